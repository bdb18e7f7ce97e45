"""IP addresses and prefixes as Go's net/netip reads and prints them, for the Kubernetes IP and CIDR libraries.

Kubernetes parses with `netip.ParseAddr` / `netip.ParsePrefix` and reports their errors verbatim
(k8s.io/apiserver pkg/cel/library/ip.go `parseIPAddr`, cidr.go `parseCIDR`), so the parse here follows Go's rules
rather than Python's `ipaddress`: IPv4 fields without leading zeros, IPv6 hex fields of any number of digits
below 2^16, an embedded IPv4 tail only in the last two fields, zones after `%`, and Go's texts
(`ParseAddr("1.2.3"): IPv4 address too short`). Printing is Go's too: the longest run of two or more zero fields
becomes `::` (the first on a tie), an IPv4-mapped address ends in dotted form.
No CEL in here: `celext.lib.net` wraps these in CEL functions.
"""

from __future__ import annotations

from celext.gostrconv import go_quote, parse_int

__all__ = ["Addr", "AddrError", "Prefix", "parse_addr", "parse_prefix"]

_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}
_V4_IN_V6 = 0xFFFF << 32


class AddrError(ValueError):
    """A parse failure, with Go's error text."""


class Addr:
    """An IPv4 (`bits` 32) or IPv6 (`bits` 128) address as an integer; a zone only as ParseAddr read it."""

    __slots__ = ("bits", "value", "zone")

    def __init__(self, bits: int, value: int, zone: str = "") -> None:
        self.bits, self.value, self.zone = bits, value, zone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Addr) and (self.bits, self.value, self.zone) == (other.bits, other.value, other.zone)

    def __hash__(self) -> int:
        return hash((self.bits, self.value, self.zone))

    def __repr__(self) -> str:
        return f"Addr({str(self)!r})"

    def is4in6(self) -> bool:
        return self.bits == 128 and self.value >> 32 == 0xFFFF

    def _unmapped(self) -> Addr:
        return Addr(32, self.value & 0xFFFFFFFF) if self.is4in6() else self

    def is_unspecified(self) -> bool:
        return self.value == 0

    def is_loopback(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 24 == 127 if ip.bits == 32 else ip.value == 1

    def is_multicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 28 == 0xE if ip.bits == 32 else ip.value >> 120 == 0xFF

    def is_link_local_multicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 8 == 0xE00000 if ip.bits == 32 else (ip.value >> 112) & 0xFF0F == 0xFF02

    def is_link_local_unicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 16 == 0xA9FE if ip.bits == 32 else (ip.value >> 112) & 0xFFC0 == 0xFE80

    def is_global_unicast(self) -> bool:
        ip = self._unmapped()
        if ip.bits == 32 and ip.value in (0, 0xFFFFFFFF):
            return False
        return not (ip.is_unspecified() or ip.is_loopback() or ip.is_multicast() or ip.is_link_local_unicast())

    def __str__(self) -> str:
        if self.bits == 32:
            return _dotted(self.value)
        if self.is4in6():
            text = "::ffff:" + _dotted(self.value & 0xFFFFFFFF)
        else:
            fields = [(self.value >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
            start, end = _longest_zero_run(fields)
            if end - start >= 2:
                text = ":".join(f"{f:x}" for f in fields[:start]) + "::" + ":".join(f"{f:x}" for f in fields[end:])
            else:
                text = ":".join(f"{f:x}" for f in fields)
        return text + ("%" + self.zone if self.zone else "")


class Prefix:
    """An address and a prefix length; the address bits past the length are kept, as netip keeps them."""

    __slots__ = ("addr", "length")

    def __init__(self, addr: Addr, length: int) -> None:
        self.addr, self.length = addr, length

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Prefix) and self.addr == other.addr and self.length == other.length

    def __hash__(self) -> int:
        return hash((self.addr, self.length))

    def __repr__(self) -> str:
        return f"Prefix({str(self)!r})"

    def __str__(self) -> str:
        return f"{self.addr}/{self.length}"

    def _mask(self, value: int, length: int) -> int:
        width = self.addr.bits
        return value >> (width - length) << (width - length)

    def masked(self) -> Prefix:
        return Prefix(Addr(self.addr.bits, self._mask(self.addr.value, self.length)), self.length)

    def contains(self, ip: Addr) -> bool:
        """netip.Prefix.Contains: the same family (an IPv4-mapped address is not IPv4) and no zone."""
        if ip.zone or ip.bits != self.addr.bits:
            return False
        return self._mask(ip.value, self.length) == self._mask(self.addr.value, self.length)

    def contains_prefix(self, other: Prefix) -> bool:
        """Kubernetes' containsCIDR: `Overlaps(other) && Bits() <= other.Bits()`."""
        return other.addr.bits == self.addr.bits and self.length <= other.length \
            and self._mask(other.addr.value, self.length) == self._mask(self.addr.value, self.length)


def _dotted(value: int) -> str:
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _longest_zero_run(fields: list[int]) -> tuple[int, int]:
    best = (0, 0)
    i = 0
    while i < len(fields):
        j = i
        while j < len(fields) and fields[j] == 0:
            j += 1
        if j - i > best[1] - best[0]:
            best = (i, j)
        i = j + 1 if j == i else j
    return best


def _addr_error(text: str, message: str, at: str = "") -> AddrError:
    suffix = f" (at {go_quote(at)})" if at else ""
    return AddrError(f"ParseAddr({go_quote(text)}): {message}{suffix}")


def parse_addr(text: str) -> Addr:
    """netip.ParseAddr: the first `.`, `:` or `%` decides the form."""
    for char in text:
        if char == ".":
            return Addr(32, _parse4(text))
        if char == ":":
            return _parse6(text)
        if char == "%":
            raise _addr_error(text, "missing IPv6 address")
    raise _addr_error(text, "unable to parse IP")


def _parse4(text: str) -> int:
    fields: list[int] = []
    value = digits = 0
    for i, char in enumerate(text):
        if "0" <= char <= "9":
            if digits == 1 and value == 0:
                raise _addr_error(text, "IPv4 field has octet with leading zero")
            value = value * 10 + ord(char) - 48
            digits += 1
            if value > 255:
                raise _addr_error(text, "IPv4 field has value >255")
        elif char == ".":
            if i == 0 or i == len(text) - 1 or text[i - 1] == ".":
                raise _addr_error(text, "IPv4 field must have at least one digit", text[i:])
            if len(fields) == 3:
                raise _addr_error(text, "IPv4 address too long")
            fields.append(value)
            value = digits = 0
        else:
            raise _addr_error(text, "unexpected character", text[i:])
    if len(fields) < 3:
        raise _addr_error(text, "IPv4 address too short")
    a, b, c = fields
    return a << 24 | b << 16 | c << 8 | value


def _parse6(text: str) -> Addr:
    rest, zone = text, ""
    if "%" in rest:
        rest, zone = rest.split("%", 1)
        if not zone:
            raise _addr_error(text, "zone must be a non-empty string")
    out = bytearray(16)
    ellipsis = -1  # the byte where `::` stands
    if rest.startswith("::"):
        ellipsis, rest = 0, rest[2:]
        if not rest:
            return Addr(128, 0, zone)
    i = 0
    while i < 16:
        end, field = 0, 0
        while end < len(rest) and rest[end] in _HEX:
            field = field << 4 | _HEX[rest[end]]
            end += 1
            if field > 0xFFFF:
                raise _addr_error(text, "IPv6 field has value >=2^16", rest)
        if end == 0:
            raise _addr_error(text, "each colon-separated field must have at least one digit", rest)
        if end < len(rest) and rest[end] == ".":  # an IPv4 tail
            if ellipsis < 0 and i != 12:
                raise _addr_error(text, "embedded IPv4 address must replace the final 2 fields of the address", rest)
            if i + 4 > 16:
                raise _addr_error(text, "too many hex fields to fit an embedded IPv4 at the end of the address", rest)
            try:
                tail = _parse4(rest)
            except AddrError as err:
                raise _addr_error(text, str(err), rest) from None
            out[i:i + 4] = tail.to_bytes(4, "big")
            rest, i = "", i + 4
            break
        out[i:i + 2] = field.to_bytes(2, "big")
        i += 2
        rest = rest[end:]
        if not rest:
            break
        if rest[0] != ":":
            raise _addr_error(text, "unexpected character, want colon", rest)
        if len(rest) == 1:
            raise _addr_error(text, "colon must be followed by more characters", rest)
        rest = rest[1:]
        if rest[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(text, "multiple :: in address", rest)
            ellipsis, rest = i, rest[1:]
            if not rest:
                break
    if rest:
        raise _addr_error(text, "trailing garbage after address", rest)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(text, "address string too short")
        gap = 16 - i
        out[ellipsis + gap:16] = out[ellipsis:i]
        out[ellipsis:ellipsis + gap] = bytes(gap)
    elif ellipsis >= 0:
        raise _addr_error(text, "the :: must expand to at least one field of zeros")
    return Addr(128, int.from_bytes(out, "big"), zone)


def parse_prefix(text: str) -> Prefix:
    """netip.ParsePrefix: an address, `/`, and a decimal length without sign or leading zero; no zone."""

    def fail(message: str) -> AddrError:
        return AddrError(f"netip.ParsePrefix({go_quote(text)}): {message}")

    slash = text.rfind("/")
    if slash < 0:
        raise fail("no '/'")
    try:
        addr = parse_addr(text[:slash])
    except AddrError as err:
        raise fail(str(err)) from None
    if addr.zone:
        raise fail("IPv6 zones cannot be present in a prefix")
    digits = text[slash + 1:]
    if (len(digits) > 1 and not "1" <= digits[0] <= "9") or not _is_atoi(digits):
        raise fail(f"bad bits after slash: {go_quote(digits)}")
    length = int(digits)
    if length > addr.bits:
        raise fail("prefix length out of range")
    return Prefix(addr, length)


def _is_atoi(digits: str) -> bool:
    """strconv.Atoi accepts it, past the check above (which leaves a sign only as the whole text): ASCII digits
    within int64."""
    if not (digits.isascii() and digits.isdigit()):
        return False
    try:
        parse_int(digits, "Atoi")
    except ValueError:
        return False
    return True
