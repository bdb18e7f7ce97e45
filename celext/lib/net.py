"""The Kubernetes IP and CIDR libraries (apiserver `library.IP`, `library.CIDR`, in the base environment since
Kubernetes 1.30): selectors over addresses drivers publish, such as DRANET's `dra.net/ipv4` (`10.0.8.8` or
`192.168.155.224/19`).

    ip(<string>) -> net.IP                    isIP(<string>) -> bool         ip.isCanonical(<string>) -> bool
    <net.IP>.family() -> int                  4 or 6
    <net.IP>.isUnspecified() / .isLoopback() / .isLinkLocalMulticast() / .isLinkLocalUnicast()
        / .isGlobalUnicast() -> bool          as Go's netip.Addr answers them
    cidr(<string>) -> net.CIDR                isCIDR(<string>) -> bool
    <net.CIDR>.containsIP(<net.IP | string>) / .containsCIDR(<net.CIDR | string>) -> bool
    <net.CIDR>.ip() -> net.IP                 the address as written, not masked
    <net.CIDR>.prefixLength() -> int          <net.CIDR>.masked() -> net.CIDR
    string(<net.IP | net.CIDR>) -> string     Go's canonical form

Parsing is Go's netip (celext.netaddr), with Kubernetes' refusals of zones and IPv4-mapped IPv6 addresses and its
error texts, including two quirks kept as upstream has them: a `cidr()` parse error carries its prefix twice
(`parseCIDR` and `stringToCIDR` both add it), and `containsIP(<string>)` with a string that is no address fails
with `no such overload` rather than the parse error (`cidrContainsIP` hands the parse error to
MaybeNoSuchOverloadErr with the CIDR as its argument).
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.gostrconv import go_quote
from celext.lib.ints import cel_int
from celext.lib.library import Library, overload, parsing
from celext.netaddr import Addr, AddrError, Prefix, parse_addr, parse_prefix
from celext.values import CELEvalError

__all__ = ["library", "parse_cidr", "parse_ip"]

_S = celvalues.StringType
_B = celvalues.BoolType
_I = celvalues.IntType
_CIDR_ERROR = "network address parse error during conversion from string: "


def parse_ip(text: str) -> Addr:
    """ip.go parseIPAddr: raises AddrError with Kubernetes' text."""
    try:
        addr = parse_addr(text)
    except AddrError as err:
        raise AddrError(f"IP Address {go_quote(text)} parse error during conversion from string: {err}") from None
    if addr.zone:
        raise AddrError(f"IP address {go_quote(text)} with zone value is not allowed")
    if addr.is4in6():
        raise AddrError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return addr


def parse_cidr(text: str) -> Prefix:
    """cidr.go parseCIDR: raises AddrError with Kubernetes' text (without stringToCIDR's second prefix)."""
    try:
        prefix = parse_prefix(text)
    except AddrError as err:
        raise AddrError(f"{_CIDR_ERROR}{err}") from None
    if prefix.addr.is4in6():
        raise AddrError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return prefix


_ip = parsing(parse_ip)
_cidr = parsing(parse_cidr, prefix=_CIDR_ERROR)  # stringToCIDR adds the prefix parseCIDR already gave


def _valid(parse: Any) -> Any:
    def check(text: Any) -> Any:
        try:
            parse(str(text))
        except AddrError:
            return _B(False)
        return _B(True)
    return check


def _is_canonical(text: Any) -> Any:
    value = _ip(text)
    return value if isinstance(value, CELEvalError) else _B(str(value) == str(text))


def _contains_ip_string(cidr: Prefix, text: Any) -> Any:
    value = _ip(text)
    return CELEvalError("no such overload") if isinstance(value, CELEvalError) else _B(cidr.contains(value))


def _contains_cidr_string(cidr: Prefix, text: Any) -> Any:
    value = _cidr(text)
    return value if isinstance(value, CELEvalError) else _B(cidr.contains_prefix(value))


def library() -> Library:
    return Library("kubernetes.net", (
        overload("ip", "string_to_ip", (_S,), _ip, member=False),
        overload("ip", "cidr_ip", (Prefix,), lambda c: c.addr),
        overload("isIP", "is_ip", (_S,), _valid(parse_ip), member=False),
        overload("ip.isCanonical", "ip_is_canonical", (_S,), _is_canonical, member=False),
        overload("family", "ip_family", (Addr,), lambda a: cel_int(4 if a.bits == 32 else 6)),
        overload("isUnspecified", "ip_is_unspecified", (Addr,), lambda a: _B(a.is_unspecified())),
        overload("isLoopback", "ip_is_loopback", (Addr,), lambda a: _B(a.is_loopback())),
        overload("isLinkLocalMulticast", "ip_is_link_local_multicast", (Addr,),
                 lambda a: _B(a.is_link_local_multicast())),
        overload("isLinkLocalUnicast", "ip_is_link_local_unicast", (Addr,), lambda a: _B(a.is_link_local_unicast())),
        overload("isGlobalUnicast", "ip_is_global_unicast", (Addr,), lambda a: _B(a.is_global_unicast())),
        overload("cidr", "string_to_cidr", (_S,), _cidr, member=False),
        overload("isCIDR", "is_cidr", (_S,), _valid(parse_cidr), member=False),
        overload("containsIP", "cidr_contains_ip_string", (Prefix, _S), _contains_ip_string),
        overload("containsIP", "cidr_contains_ip_ip", (Prefix, Addr), lambda c, a: _B(c.contains(a))),
        overload("containsCIDR", "cidr_contains_cidr_string", (Prefix, _S), _contains_cidr_string),
        overload("containsCIDR", "cidr_contains_cidr", (Prefix, Prefix), lambda c, o: _B(c.contains_prefix(o))),
        overload("prefixLength", "cidr_prefix_length", (Prefix,), lambda c: cel_int(c.length)),
        overload("masked", "cidr_masked", (Prefix,), lambda c: c.masked()),
    ))
