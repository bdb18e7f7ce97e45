"""Go's net/url as Kubernetes' URL library uses it: `ParseRequestURI` (the check), `Parse` (the value), a URL's
`Hostname()`, `Port()`, `EscapedPath()`, `Query()` (`ParseQuery`) and `String()`, with Go's error texts.

The rules are those of the Go toolchains Kubernetes 1.34-1.37 are built with (Go 1.24-1.26) at their current
patch levels; where they differ from one another or from older Go, this follows the newest:
- a host in brackets must be an IPv6 address, optionally with a zone (`invalid host: ParseAddr(...)`, `invalid
  IP-literal`; Go 1.24.8 / 1.25.2 and later), and a `[` anywhere but first in the host is `invalid IP-literal`;
- an `http` or `https` host with more than one colon outside brackets is refused (`invalid port ":b:c" after
  host`; Go 1.26's default `urlstrictcolons=1`, the default of Kubernetes 1.36 and 1.37, whose go.mod says
  `godebug default=go1.26`). Kubernetes 1.34 and 1.35 (Go 1.24, 1.25) take the last colon as the port's:
  `https://::1/` is a URL there, with host `::1`;
- a query of more than 10,000 parameters (`&`-separated) reads as no parameters at all (Go 1.24.12 / 1.25.6
  and later, `urlmaxqueryparams`);
- a query part holding an unescaped `;` is dropped (Go 1.17 and later).

Go works on bytes: so does this module (a string is UTF-8 encoded first). A result that is no valid UTF-8 (an
escape such as `%ff` decoded) is returned with each byte that does not decode as U+FFFD, where Go keeps the
byte itself.
"""

from __future__ import annotations

from msgspec import Struct, structs

from celext.gostrconv import go_quote
from celext.netaddr import AddrError, parse_addr

__all__ = ["URL", "URLError", "is_request_uri", "parse_url", "query_values"]

MAX_QUERY_PARAMS = 10_000  # net/url defaultMaxParams

# net/url's encoding modes
_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(1, 8)
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HOST_ALLOWED = frozenset(b"!$&'()*+,;=:[]<>\"")
_RESERVED = frozenset(b"$&+,/:;=?@")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_USERINFO = _ALNUM | frozenset(b"-._:~!$&'()*+,;=%@")
_VALID_ENCODED = frozenset(b"!$&'()*+,;=:@[]%")


class URLError(ValueError):
    """A parse failure, with Go's error text (`parse "<url>": <reason>`)."""


class _Fail(Exception):
    """A reason, before `url.Error` puts the operation and the URL in front of it."""


class URL(Struct, frozen=True, eq=False):
    """url.URL's fields (raw bytes, as Go keeps them); user is None, or (name, password or None). Two URLs are
    equal when their `String()` forms are (apiserver pkg/cel/url.go `URL.Equal`)."""

    scheme: bytes = b""
    opaque: bytes = b""
    user: tuple[bytes, bytes | None] | None = None
    host: bytes = b""
    path: bytes = b""
    raw_path: bytes = b""
    omit_host: bool = False
    force_query: bool = False
    raw_query: bytes = b""
    fragment: bytes = b""
    raw_fragment: bytes = b""

    def host_text(self) -> str:
        return _text(self.host)

    def hostname(self) -> str:
        return _text(_split_host_port(self.host)[0])

    def port(self) -> str:
        return _text(_split_host_port(self.host)[1])

    def escaped_path(self) -> str:
        return _text(_escaped_path(self))

    def query(self) -> dict[str, list[str]]:
        return query_values(self.raw_query)

    def __str__(self) -> str:
        return _text(_string(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and _string(self) == _string(other)

    def __hash__(self) -> int:
        return hash(_string(self))


def _text(raw: bytes) -> str:
    """A Go string as Python text: bytes that are no UTF-8 become U+FFFD, one each."""
    text = raw.decode("utf-8", "surrogateescape")
    return text if text.isascii() or max(text) < "\udc80" else "".join(
        "\ufffd" if "\udc80" <= c <= "\udcff" else c for c in text)


def _quote(raw: bytes) -> str:
    """strconv.Quote of a Go string: an invalid UTF-8 byte as `\\xNN`."""
    text = raw.decode("utf-8", "surrogateescape")
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return go_quote(text)
    parts, run = [], ""
    for c in text:
        if "\udc80" <= c <= "\udcff":
            parts.append(go_quote(run)[1:-1] + f"\\x{ord(c) - 0xDC00:02x}")
            run = ""
        else:
            run += c
    return '"' + "".join(parts) + go_quote(run)[1:-1] + '"'


def _should_escape(c: int, mode: int) -> bool:
    if c in _ALNUM:
        return False
    if mode in (_HOST, _ZONE) and c in _HOST_ALLOWED:
        return False
    if c in b"-_.~":
        return False
    if c in _RESERVED:
        if mode == _PATH:
            return c == 0x3F  # ?
        if mode == _PATH_SEGMENT:
            return c in b"/;,?"
        if mode == _USER_PASSWORD:
            return c in b"@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    return not (mode == _FRAGMENT and c in b"!()*")


def _unhex(c: int) -> int:
    return c - 48 if c <= 57 else (c | 0x20) - 87


def _unescape(s: bytes, mode: int) -> bytes:
    n, has_plus, i = 0, False, 0
    while i < len(s):
        c = s[i]
        if c == 0x25:  # %
            n += 1
            if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
                raise _Fail(f"invalid URL escape {_quote(s[i:i + 3])}")
            if mode == _HOST and _unhex(s[i + 1]) < 8 and s[i:i + 3] != b"%25":
                raise _Fail(f"invalid URL escape {_quote(s[i:i + 3])}")
            if mode == _ZONE:
                v = _unhex(s[i + 1]) << 4 | _unhex(s[i + 2])
                if s[i:i + 3] != b"%25" and v != 0x20 and _should_escape(v, _HOST):
                    raise _Fail(f"invalid URL escape {_quote(s[i:i + 3])}")
            i += 3
        else:
            if c == 0x2B:  # +
                has_plus = mode == _QUERY_COMPONENT
            elif mode in (_HOST, _ZONE) and c < 0x80 and _should_escape(c, mode):
                raise _Fail(f"invalid character {_quote(s[i:i + 1])} in host name")
            i += 1
    if n == 0 and not has_plus:
        return s
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == 0x25:
            out.append(_unhex(s[i + 1]) << 4 | _unhex(s[i + 2]))
            i += 3
            continue
        out.append(0x20 if c == 0x2B and mode == _QUERY_COMPONENT else c)
        i += 1
    return bytes(out)


def _escape(s: bytes, mode: int) -> bytes:
    out = bytearray()
    for c in s:
        if c == 0x20 and mode == _QUERY_COMPONENT:
            out.append(0x2B)
        elif _should_escape(c, mode):
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out)


def _valid_encoded(s: bytes, mode: int) -> bool:
    return all(c in _VALID_ENCODED or not _should_escape(c, mode) for c in s)


def _valid_optional_port(port: bytes) -> bool:
    return port == b"" or (port[:1] == b":" and all(0x30 <= c <= 0x39 for c in port[1:]))


def _scheme(raw: bytes) -> tuple[bytes, bytes]:
    for i, c in enumerate(raw):
        if c in _ALNUM and not 0x30 <= c <= 0x39:
            continue
        if 0x30 <= c <= 0x39 or c in b"+-.":
            if i == 0:
                return b"", raw
            continue
        if c == 0x3A:  # :
            if i == 0:
                raise _Fail("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return b"", raw
    return b"", raw


def _parse_host(scheme: bytes, host: bytes) -> bytes:
    bracket = host.rfind(b"[")
    if bracket > 0:
        raise _Fail("invalid IP-literal")
    if bracket == 0:
        close = host.rfind(b"]")
        if close < 0:
            raise _Fail("missing ']' in host")
        colon_port = host[close + 1:]
        if not _valid_optional_port(colon_port):
            raise _Fail(f"invalid port {_quote(colon_port)} after host")
        colon_port = _unescape(colon_port, _HOST)
        name = host[1:close]
        zone = name.find(b"%25")
        name = (_unescape(name[:zone], _HOST) + _unescape(name[zone:], _ZONE) if zone >= 0
                else _unescape(name, _HOST))
        try:
            addr = parse_addr(_text(name))
        except AddrError as err:
            raise _Fail(f"invalid host: {err}") from None
        if addr.bits == 32:
            raise _Fail("invalid IP-literal")
        return b"[" + name + b"]" + colon_port
    first = host.find(b":")
    if first >= 0:
        last = host.rfind(b":")
        at = first if scheme in (b"http", b"https") else last  # urlstrictcolons=1 for http and https
        if not _valid_optional_port(host[at:]):
            raise _Fail(f"invalid port {_quote(host[at:])} after host")
    return _unescape(host, _HOST)


def _parse_authority(scheme: bytes, authority: bytes) -> tuple[tuple[bytes, bytes | None] | None, bytes]:
    at = authority.rfind(b"@")
    host = _parse_host(scheme, authority[at + 1:] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not all(c in _USERINFO for c in userinfo):
        raise _Fail("net/url: invalid userinfo")
    if b":" not in userinfo:
        return (_unescape(userinfo, _USER_PASSWORD), None), host
    name, _, password = userinfo.partition(b":")
    return (_unescape(name, _USER_PASSWORD), _unescape(password, _USER_PASSWORD)), host


def _raw_and_decoded(raw: bytes, mode: int) -> tuple[bytes, bytes]:
    """setPath / setFragment: the decoded form, and the raw one only where the default escaping differs."""
    decoded = _unescape(raw, mode)
    return decoded, (b"" if _escape(decoded, mode) == raw else raw)


def _parse(raw: bytes, via_request: bool) -> URL:
    if any(c < 0x20 or c == 0x7F for c in raw):
        raise _Fail("net/url: invalid control character in URL")
    if raw == b"" and via_request:
        raise _Fail("empty url")
    if raw == b"*":
        return URL(path=b"*")
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    force_query, query = False, b""
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        force_query, rest = True, rest[:-1]
    else:
        rest, _, query = rest.partition(b"?")
    if not rest.startswith(b"/"):
        if scheme:
            return URL(scheme=scheme, opaque=rest, force_query=force_query, raw_query=query)
        if via_request:
            raise _Fail("invalid URI for request")
        if b":" in rest.partition(b"/")[0]:
            raise _Fail("first path segment in URL cannot contain colon")
    user, host, omit_host = None, b"", False
    if (scheme or (not via_request and not rest.startswith(b"///"))) and rest.startswith(b"//"):
        authority, slash, tail = rest[2:].partition(b"/")
        rest = slash + tail
        user, host = _parse_authority(scheme, authority)
    elif scheme and rest.startswith(b"/"):
        omit_host = True
    path, raw_path = _raw_and_decoded(rest, _PATH)
    return URL(scheme, b"", user, host, path, raw_path, omit_host, force_query, query)


def _error(op_url: bytes, reason: _Fail) -> URLError:
    return URLError(f"parse {_quote(op_url)}: {reason}")


def is_request_uri(text: str) -> bool:
    """url.ParseRequestURI succeeds: an absolute URI or an absolute path."""
    try:
        _parse(text.encode("utf-8", "surrogatepass"), True)
    except _Fail:
        return False
    return True


def parse_url(text: str) -> URL:
    """What Kubernetes' `url()` does: url.ParseRequestURI as the check, then url.Parse for the value (which splits
    off the fragment that ParseRequestURI leaves in the path or query). Raises URLError with Go's text."""
    raw = text.encode("utf-8", "surrogatepass")
    try:
        _parse(raw, True)
    except _Fail as reason:
        raise _error(raw, reason) from None
    before, hashed, fragment = raw.partition(b"#")
    try:
        url = _parse(before, False)
    except _Fail as reason:
        raise _error(before, reason) from None
    if not hashed or not fragment:
        return url
    try:
        decoded, raw_fragment = _raw_and_decoded(fragment, _FRAGMENT)
    except _Fail as reason:
        raise _error(raw, reason) from None
    return structs.replace(url, fragment=decoded, raw_fragment=raw_fragment)


def query_values(raw: bytes) -> dict[str, list[str]]:
    """url.ParseQuery, its error dropped (URL.Query): the parts that decode, in the order of their first key."""
    values: dict[str, list[str]] = {}
    if raw.count(b"&") + 1 > MAX_QUERY_PARAMS:
        return values
    for part in raw.split(b"&") if raw else ():
        if b";" in part or not part:
            continue
        key, _, value = part.partition(b"=")
        try:
            decoded_key, decoded_value = _unescape(key, _QUERY_COMPONENT), _unescape(value, _QUERY_COMPONENT)
        except _Fail:
            continue
        values.setdefault(_text(decoded_key), []).append(_text(decoded_value))
    return values


def _split_host_port(host_port: bytes) -> tuple[bytes, bytes]:
    host, port = host_port, b""
    colon = host.rfind(b":")
    if colon >= 0 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1:]
    if host.startswith(b"[") and host.endswith(b"]"):
        host = host[1:-1]
    return host, port


def _kept_raw(raw: bytes, decoded: bytes, mode: int) -> bytes:
    """EscapedPath's and EscapedFragment's first step: the raw form when it is valid and decodes to the field,
    else nothing."""
    if raw and _valid_encoded(raw, mode):
        try:
            if _unescape(raw, mode) == decoded:
                return raw
        except _Fail:
            pass
    return b""


def _escaped_path(u: URL) -> bytes:
    return _kept_raw(u.raw_path, u.path, _PATH) or (b"*" if u.path == b"*" else _escape(u.path, _PATH))


def _string(u: URL) -> bytes:
    """URL.String(): what two URLs' equality compares."""
    out = bytearray()
    if u.scheme:
        out += u.scheme + b":"
    if u.opaque:
        out += u.opaque
    else:
        if (u.scheme or u.host or u.user is not None) and not (u.omit_host and not u.host and u.user is None):
            if u.host or u.path or u.user is not None:
                out += b"//"
            if u.user is not None:
                name, password = u.user
                out += _escape(name, _USER_PASSWORD)
                if password is not None:
                    out += b":" + _escape(password, _USER_PASSWORD)
                out += b"@"
            out += _escape(u.host, _HOST)
        path = _escaped_path(u)
        if path and path[:1] != b"/" and u.host:
            out += b"/"
        if not out and b":" in path.partition(b"/")[0]:
            out += b"./"
        out += path
    if u.force_query or u.raw_query:
        out += b"?" + u.raw_query
    if u.fragment:
        out += b"#" + (_kept_raw(u.raw_fragment, u.fragment, _FRAGMENT) or _escape(u.fragment, _FRAGMENT))
    return bytes(out)
