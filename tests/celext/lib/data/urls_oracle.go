// Oracle: Go's net/url on each input as Kubernetes' URL library uses it (ParseRequestURI, then Parse).
package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
)

type result struct {
	Input    string              `json:"input"`
	IsURL    bool                `json:"isURL"`
	Error    *string             `json:"error,omitempty"`
	Scheme   string              `json:"scheme"`
	Host     string              `json:"host"`
	Hostname string              `json:"hostname"`
	Port     string              `json:"port"`
	Path     string              `json:"escapedPath"`
	Query    map[string][]string `json:"query"`
	String   string              `json:"string"`
	Keys     []string            `json:"keys"`
}

func main() {
	var inputs []string
	data, _ := os.ReadFile(os.Args[1])
	if err := json.Unmarshal(data, &inputs); err != nil {
		panic(err)
	}
	var out []result
	for _, s := range inputs {
		r := result{Input: s}
		_, err := url.ParseRequestURI(s)
		r.IsURL = err == nil
		if err != nil {
			e := fmt.Sprintf("URL parse error during conversion from string: %v", err)
			r.Error = &e
		} else if u, err := url.Parse(s); err != nil {
			e := fmt.Sprintf("URL parse error during conversion from string: %v", err)
			r.Error = &e
		} else {
			r.Scheme, r.Host, r.Hostname, r.Port, r.Path = u.Scheme, u.Host, u.Hostname(), u.Port(), u.EscapedPath()
			r.Query = u.Query()
			for k := range r.Query {
				r.Keys = append(r.Keys, k)
			}
			sort.Strings(r.Keys)
			r.String = u.String()
		}
		out = append(out, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	enc.Encode(out)
}
