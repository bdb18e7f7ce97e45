"""The Kubernetes URL library (apiserver pkg/cel/library/urls.go, pkg/cel/url.go; in the base environment of every
release DRA selectors compile in) on both engines: upstream's documented examples and cost tests (urls.go,
cost_test.go TestURLsCost; read, not copied), Go's net/url on 231 edge inputs as a Go oracle printed them, the
rules of newer Go that oracle (Go 1.19) predates, type-check errors, equality and type names.

`data/urls_go119.json` is the output of `data/urls_oracle.go` (`go run urls_oracle.go urls_inputs.json`, Go 1.19,
standard library only): for each input, whether url.ParseRequestURI accepts it, and Kubernetes' `url()` error or
the parsed URL's parts, its query and its String().
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import celext
from celext.neturl import MAX_QUERY_PARAMS, URLError, is_request_uri, parse_url
from tests.celext.lib.engines import ENGINES, outcome_on

CASES: list[tuple[str, bool | str]] = [
    # urls.go's documented examples
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/') || isURL('../relative-path')", False),
    ("url('https://a:b:c/').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":b:c" after host'),
    ("url('../relative-path').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "../relative-path": invalid URI for request'),
    ("url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'", True),
    ("url('https://example.com:80/').getHost() == 'example.com:80' && url('https://example.com/').getHost() == "
     "'example.com'", True),
    ("url('https://[::1]:80/').getHost() == '[::1]:80' && url('https://[::1]/').getHost() == '[::1]'", True),
    ("url('/path').getHost() == '' && url('/path').getHostname() == '' && url('/path').getPort() == ''", True),
    ("url('https://example.com:80/').getHostname() == 'example.com' && url('https://127.0.0.1:80/').getHostname() "
     "== '127.0.0.1' && url('https://[::1]:80/').getHostname() == '::1'", True),
    ("url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''", True),
    ("url('https://example.com/path').getEscapedPath() == '/path' && url('https://example.com').getEscapedPath() "
     "== ''", True),
    ("url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'", True),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}", True),
    ("url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
     "{'key with spaces': ['value with spaces']}", True),
    ("url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}", True),
    # Parse after ParseRequestURI: the fragment is split off; a bad escape in it fails url() but not isURL()
    ("url('/p?q=1#f').getQuery() == {'q': ['1']} && url('/p#f').getEscapedPath() == '/p'", True),
    ("isURL('/p?x#%zz')", True),
    ("url('/p?x#%zz').getEscapedPath() == '/p'",
     'eval: URL parse error during conversion from string: parse "/p?x#%zz": invalid URL escape "%zz"'),
    # Parse reads `//host` as an authority where ParseRequestURI took it as a path
    ("isURL('//host/p') && url('//host/p').getHost() == 'host' && url('//host/p').getEscapedPath() == '/p'", True),
    # ParseQuery: a part with an unescaped `;` and a part that does not decode are dropped; `+` is a space
    ("url('/?a=1;b=2&c=3&d=%zz&e=x+y&f').getQuery() == {'c': ['3'], 'e': ['x y'], 'f': ['']}", True),
    ("url('/?a%3Bb=1').getQuery() == {'a;b': ['1']}", True),
    # errors at run time, with Go's texts
    ("url('').getHost() == ''", 'eval: URL parse error during conversion from string: parse "": empty url'),
    ("url('/a\\tb').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "/a\\tb": net/url: invalid control character in URL'),
    ("url('https://h/a%2').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "https://h/a%2": invalid URL escape "%2"'),
    ("url('https://ex ample.com/').getHost() == ''", 'eval: URL parse error during conversion from string: parse '
                                                     '"https://ex ample.com/": invalid character " " in host name'),
    ("url('https://u^@h/').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "https://u^@h/": net/url: invalid userinfo'),
    ("url(':foo').getHost() == ''",
     'eval: URL parse error during conversion from string: parse ":foo": missing protocol scheme'),
    ("url('https://[::1').getHost() == ''",
     'eval: URL parse error during conversion from string: parse "https://[::1": missing \']\' in host'),
    # equality: URL.Equal compares String(); another type is `no such overload` on the URL's side
    ("url('https://h/a b') == url('https://h/a%20b') && url('HTTPS://h/') == url('https://h/')", True),
    ("url('https://h/a%2fb') == url('https://h/a%2Fb')", False),
    ("url('https://h/p#f') != url('https://h/p')", True),
    ("dyn(url('/a')) == '/a'", "eval: no such overload"),
    ("'/a' == dyn(url('/a'))", False),
    ("url('/a') == '/a'", "compile: found no matching overload for '_==_' applied to '(kubernetes.URL, string)'"),
    # type checking: cel-go's texts
    ("url(1) == url('/')", "compile: found no matching overload for 'url' applied to '(int)'"),
    ("isURL(b'/a')", "compile: found no matching overload for 'isURL' applied to '(bytes)'"),
    ("isURL('/a', '/b')", "compile: found no matching overload for 'isURL' applied to '(string, string)'"),
    ("'https://h/'.getHost() == 'h'", "compile: found no matching overload for 'getHost' applied to 'string.()'"),
    ("url('/').getPort(1) == ''",
     "compile: found no matching overload for 'getPort' applied to 'kubernetes.URL.(int)'"),
    ("url('/').url() == url('/')", "compile: found no matching overload for 'url' applied to 'kubernetes.URL.()'"),
    ("getScheme(url('/')) == ''",
     "compile: found no matching overload for 'getScheme' applied to '(kubernetes.URL)'"),
    ("url('/').getQuery() == {'a': 'b'}", "compile: found no matching overload for '_==_' applied to "
                                          "'(map(string, list(string)), map(string, string))'"),
    ("string(url('/a')) == '/a'", "compile: found no matching overload for 'string' applied to '(kubernetes.URL)'"),
    ("url('/')", "compile: must evaluate to bool or the unknown type, not kubernetes.URL"),
    # at run time through dyn: type names as cel-go prints them
    ("dyn(url('/'))", "eval: CEL result of type kubernetes.URL could not be converted to bool: type conversion "
                      "error from 'URL' to 'bool'"),
    ("dyn(url('/')).startsWith('/')", "eval: no such overload: startsWith(kubernetes.URL, string)"),
    ("dyn('/').getScheme() == ''", "eval: no such overload: getScheme(string)"),
    # on a device: a driver publishing an endpoint
    ("isURL(device.attributes['example.com'].endpoint) && url(device.attributes['example.com'].endpoint)"
     ".getHostname() == 'fd00::8' && url(device.attributes['example.com'].endpoint).getPort() == '8443'", True),
]

DEVICE = {"name": "d", "attributes": {"example.com/endpoint": {"string": "https://[fd00::8]:8443/v1?zone=a"}}}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_url_functions(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, DEVICE) == expected


_ORACLE: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "urls_go119.json").read_text())

# Newer Go than the oracle's 1.19, as the Go of Kubernetes 1.36 and 1.37 (1.26) parses these hosts: a bracketed
# host must be an IPv6 address (Go 1.24.8 / 1.25.2 on, so every current patch release), a `[` elsewhere in the
# host is refused, and an http(s) host takes only one colon outside brackets (`urlstrictcolons`, default since
# Go 1.26; Kubernetes 1.34 and 1.35 take the last colon as the port's, as the oracle does).
NEWER_GO: dict[str, str] = {
    "https://[1.2.3.4]/": "invalid IP-literal",
    "https://[foo]/": 'invalid host: ParseAddr("foo"): unable to parse IP',
    "https://a[::1]/": "invalid IP-literal",
    "https://[::1][/": "invalid IP-literal",
    "https://[]/": 'invalid host: ParseAddr(""): unable to parse IP',
    "https://::1/": 'invalid port "::1" after host',
    "https://localhost:80:80/": 'invalid port ":80:80" after host',
    "https://a:b:c/": 'invalid port ":b:c" after host',
    "http://a:1:2/": 'invalid port ":1:2" after host',
    "https://[::1]]:80/": 'invalid host: ParseAddr("::1]"): unexpected character, want colon (at "]")',
    "https://[[::1]]/": "invalid IP-literal",
    "https://[::1%25]/": 'invalid host: ParseAddr("::1%"): zone must be a non-empty string',
    "https://[v1.x]/": 'invalid host: ParseAddr("v1.x"): unexpected character (at "v1.x")',
}


def _parts(text: str) -> dict[str, Any]:
    got: dict[str, Any] = {"input": text, "isURL": is_request_uri(text)}
    try:
        u = parse_url(text)
    except URLError as err:
        got["error"] = f"URL parse error during conversion from string: {err}"
        return got
    got.update(scheme=u.scheme.decode(), host=u.host_text(), hostname=u.hostname(), port=u.port(),
               escapedPath=u.escaped_path(), string=str(u), query=u.query())
    return got


@pytest.mark.parametrize("expected", _ORACLE, ids=lambda r: repr(r["input"]))
def test_net_url_as_go(expected: dict[str, Any]) -> None:
    text = expected["input"]
    if text in NEWER_GO:
        assert _parts(text) == {"input": text, "isURL": False, "error": "URL parse error during conversion from "
                                f"string: parse {json.dumps(text)}: {NEWER_GO[text]}"}
    else:
        assert _parts(text) == expected


def test_the_oracle_covers_the_newer_go_cases() -> None:
    assert set(NEWER_GO) <= {r["input"] for r in _ORACLE}
    assert len(_ORACLE) >= 200


def test_strict_colons_are_for_http_and_https_only() -> None:
    """Go keeps a comma-separated host list with ports working for other schemes (go.dev/issue/78077)."""
    assert parse_url("postgres://h1:5432,h2:5433/db").port() == "5433"
    assert parse_url("ftp://::1/").hostname() == ":"
    assert not is_request_uri("http://::1/")


@pytest.mark.parametrize(("count", "parsed"), [
    (MAX_QUERY_PARAMS - 1, MAX_QUERY_PARAMS - 1), (MAX_QUERY_PARAMS, MAX_QUERY_PARAMS), (MAX_QUERY_PARAMS + 1, 0)])
def test_a_query_past_ten_thousand_parameters_reads_as_none(count: int, parsed: int) -> None:
    """ParseQuery refuses more than 10,000 `&`-separated parts (Go 1.24.12 / 1.25.6 on); Query() drops the error."""
    query = "&".join(f"k{i}=v" for i in range(count))
    assert len(parse_url(f"/?{query}").query()) == parsed


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("parts", "keys"), [
    (MAX_QUERY_PARAMS - 1, 1), (MAX_QUERY_PARAMS, 1), (MAX_QUERY_PARAMS + 1, 0)])
def test_the_query_limit_in_a_selector(engine: str, parts: int, keys: int) -> None:
    """A selector of up to 10 KiB holds such a query: one key, then empty parts."""
    expression = f"url('/?a{'&' * (parts - 1)}').getQuery().size() == {keys}"
    assert outcome_on(engine, expression) is True


def test_bytes_that_decode_to_no_utf8_read_as_replacement_characters() -> None:
    """Go keeps the raw byte; a Python string cannot: each such byte becomes U+FFFD (docs/celext.md)."""
    assert parse_url("/?a=%ff%fe").query() == {"a": ["\ufffd\ufffd"]}
    assert parse_url("https://%c3%bc/").hostname() == "\u00fc"
    with pytest.raises(URLError) as raised:
        parse_url("https://h/%a\u00e9")
    assert str(raised.value) == 'parse "https://h/%a\u00e9": invalid URL escape "%a\\xc3"'


# (expression, (min, max)): library/cost.go estimates url() as its text's length x 0.1 (rounded up), with a result
# as large as the text; each getter one unit; isURL cel-go's default (one unit); `==` of two URLs the right
# operand's size x 0.1 (its Min 1). The first three rows are cost_test.go TestURLsCost's, made boolean.
COSTS: list[tuple[str, tuple[int, int]]] = [
    ("url('https:://kubernetes.io/').getScheme() == ''", (4, 4)),
    ("url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", (7, 9)),
    ("url('https:://kubernetes.io/') == url('http://x.b')", (5, 5)),
    ("url('http://x.b') == url('https:://kubernetes.io/')", (5, 7)),
    ("size(url('https:://kubernetes.io/').getQuery()) == 0", (6, 6)),
    ("isURL('https:://kubernetes.io/')", (1, 1)),
    ("url('0123456789').getHost() == ''", (2, 2)),
    ("url('01234567890').getHost() == ''", (3, 3)),
    ("url('0123456789') != url('0123456789')", (3, 3)),
]


@pytest.mark.parametrize(("expression", "expected"), COSTS)
def test_static_cost_is_kubernetes_estimate(expression: str, expected: tuple[int, int]) -> None:
    assert celext.compile(expression).cost == expected


def test_a_device_attribute_url_costs_by_its_declared_size() -> None:
    """An attribute string is at most 64 characters in Kubernetes' size estimate: url() of one costs up to 7."""
    low, high = celext.compile("url(device.attributes['example.com'].endpoint).getPort() == ''").cost
    assert high - low == 7
