"""The Kubernetes URL library (apiserver `library.URLs`, pkg/cel/library/urls.go and pkg/cel/url.go; in the base
environment of every release DRA selectors compile in).

    url(<string>) -> kubernetes.URL           an absolute URI or an absolute path, else a runtime error
    isURL(<string>) -> bool
    <kubernetes.URL>.getScheme() / .getHost() / .getHostname() / .getPort() / .getEscapedPath() -> string
    <kubernetes.URL>.getQuery() -> map(string, list(string))

Parsing is Go's net/url (celext.neturl): `url()` checks with ParseRequestURI and keeps what Parse makes of the
string, as upstream does, so a fragment is split off (`url("/p#f").getEscapedPath()` is `/p`) and a bad escape in
the fragment fails `url()` where `isURL()` is true. `getHostname()` drops an IPv6 address's brackets, `getHost()`
keeps them and the port. Two URLs are equal when Go prints them alike (`URL.Equal` compares `String()`); a URL
compared with another type is `no such overload`.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.library import Library, overload
from celext.neturl import URL, URLError, is_request_uri, parse_url
from celext.values import CELEvalError

__all__ = ["library"]

_S = celvalues.StringType
_URL_ERROR = "URL parse error during conversion from string: "


def _url(text: Any) -> Any:
    try:
        return parse_url(str(text))
    except URLError as err:
        return CELEvalError(f"{_URL_ERROR}{err}")


def _query(u: URL) -> celvalues.MapType:
    return celvalues.MapType({_S(key): celvalues.ListType([_S(v) for v in values])
                             for key, values in u.query().items()})


def library() -> Library:
    return Library("kubernetes.urls", (
        overload("url", "string_to_url", (_S,), _url, member=False),
        overload("isURL", "is_url_string", (_S,), lambda s: celvalues.BoolType(is_request_uri(str(s))), member=False),
        overload("getScheme", "url_get_scheme", (URL,), lambda u: _S(u.scheme.decode("ascii"))),
        overload("getHost", "url_get_host", (URL,), lambda u: _S(u.host_text())),
        overload("getHostname", "url_get_hostname", (URL,), lambda u: _S(u.hostname())),
        overload("getPort", "url_get_port", (URL,), lambda u: _S(u.port())),
        overload("getEscapedPath", "url_get_escaped_path", (URL,), lambda u: _S(u.escaped_path())),
        overload("getQuery", "url_get_query", (URL,), _query),
    ))
