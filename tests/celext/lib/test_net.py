"""The Kubernetes IP and CIDR libraries (apiserver pkg/cel/library/ip.go, cidr.go; in the base environment since
1.30) on both engines: upstream's own test expectations (ip_test.go, cidr_test.go at v0.36.0, read, not copied),
Go netip's parse rules and texts at their limits, Kubernetes' refusals and quirks, and the static cost of each
function as apiserver library/cost.go estimates it."""

from __future__ import annotations

from typing import Any

import pytest

import celext
from celext.netaddr import AddrError, parse_addr, parse_prefix
from tests.celext.lib.engines import ENGINES, outcome_on

NIC = {"name": "eth1", "attributes": {"dra.net/ipv4": {"string": "192.168.155.224/19"},
                                      "dra.net/ip": {"string": "10.0.8.8"},
                                      "dra.net/ips": {"strings": ["10.0.8.8", "fd00::8"]}}}

CASES: list[tuple[str, bool | str]] = [
    # ip_test.go
    ('ip("192.168.0.1") == ip("192.168.0.1")', True),
    ('isIP("192.168.0.1")', True),
    ('isIP("192.168.0.1.0")', False),
    ('ip.isCanonical("127.0.0.1")', True),
    ('ip.isCanonical("2001:DB8::68")', False),
    ('ip.isCanonical("2001:db8::68")', True),
    ('ip.isCanonical("127.0.0.1.0")', 'eval: IP Address "127.0.0.1.0" parse error during conversion from string: '
                                       'ParseAddr("127.0.0.1.0"): IPv4 address too long'),
    ('ip("192.168.0.1.0") == ip("1.2.3.4")', 'eval: IP Address "192.168.0.1.0" parse error during conversion from '
                                             'string: ParseAddr("192.168.0.1.0"): IPv4 address too long'),
    ('ip("2001:db8:::68").isLoopback()', 'eval: IP Address "2001:db8:::68" parse error during conversion from '
                                         'string: ParseAddr("2001:db8:::68"): each colon-separated field must have '
                                         'at least one digit (at ":68")'),
    ('ip("192.168.0.1").family() == 4 && ip("2001:db8::68").family() == 6', True),
    ('ip("0.0.0.0").isUnspecified() && !ip("127.0.0.1").isUnspecified()', True),
    ('ip("::").isUnspecified() && !ip("::1").isUnspecified()', True),
    ('ip("127.0.0.1").isLoopback() && !ip("1.2.3.4").isLoopback()', True),
    ('ip("::1").isLoopback() && !ip("2001:db8::abcd").isLoopback()', True),
    ('ip("224.0.0.1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast()', True),
    ('ip("ff02::1").isLinkLocalMulticast() && !ip("fd00::1").isLinkLocalMulticast()', True),
    ('ip("169.254.169.254").isLinkLocalUnicast() && !ip("192.168.0.1").isLinkLocalUnicast()', True),
    ('ip("fe80::1").isLinkLocalUnicast() && !ip("fd80::1").isLinkLocalUnicast()', True),
    ('ip("192.168.0.1").isGlobalUnicast() && !ip("255.255.255.255").isGlobalUnicast()', True),
    ('ip("2001:db8::abcd").isGlobalUnicast() && !ip("ff00::1").isGlobalUnicast()', True),
    ('isIP(cidr("192.168.0.0/24"))', "compile: found no matching overload for 'isIP' applied to '(net.CIDR)'"),
    ('string(ip("192.168.0.1")) == "192.168.0.1"', True),
    # cidr_test.go
    ('cidr("192.168.0.0/24") == cidr("192.168.0.0/24")', True),
    ('isCIDR("192.168.0.0/24") && !isCIDR("192.168.0.0/")', True),
    ('cidr("192.168.0.0/") == cidr("192.168.0.0/24")',
     'eval: network address parse error during conversion from string: network address parse error during '
     'conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""'),
    ('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1")) && !cidr("192.168.0.0/24").containsIP("192.168.1.1")',
     True),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
    ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', False),
    ('cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', True),
    ('cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', True),
    ('cidr("192.168.0.0/24").prefixLength() == 24', True),
    ('string(cidr("2001:db8::/32")) == "2001:db8::/32"', True),
    ('cidr("2001:db8::/32").containsIP("2001:db8::1") && !cidr("2001:db8::/32").containsIP("2001:db9::1")', True),
    # the address as written is kept (netip does not mask), so two spellings of one network differ
    ('cidr("10.1.2.3/8") == cidr("10.0.0.0/8")', False),
    ('cidr("10.1.2.3/8").ip() == ip("10.1.2.3") && cidr("10.1.2.3/8").containsIP("10.200.0.1")', True),
    # families never mix: an IPv4 address is in no IPv6 prefix, and ::/0 contains no IPv4 address
    ('cidr("::/0").containsIP("1.2.3.4") || cidr("0.0.0.0/0").containsIP("::1")', False),
    ('cidr("0.0.0.0/0").containsCIDR("::/0")', False),
    # Kubernetes' refusals
    ('ip("fe80::1%eth0").isLoopback()', 'eval: IP address "fe80::1%eth0" with zone value is not allowed'),
    ('ip("::ffff:1.2.3.4").isLoopback()', 'eval: IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ('cidr("::ffff:1.2.3.0/120").prefixLength() == 120',
     'eval: network address parse error during conversion from string: IPv4-mapped IPv6 address '
     '"::ffff:1.2.3.0/120" is not allowed'),
    ('isIP("fe80::1%eth0") || isIP("::ffff:1.2.3.4") || isCIDR("fe80::1%eth0/64")', False),
    # upstream quirk: containsIP(<string>) of a bad address is `no such overload`, containsCIDR's is the parse error
    ('cidr("10.0.0.0/8").containsIP("10.0.0")', "eval: no such overload"),
    ('cidr("10.0.0.0/8").containsCIDR("10.0.0.0")', 'eval: network address parse error during conversion from '
                                                     'string: network address parse error during conversion from '
                                                     'string: netip.ParsePrefix("10.0.0.0"): no \'/\''),
    # equality with another type: IP.Equal / CIDR.Equal answer `no such overload`; another type's Equal false
    ('ip("1.2.3.4") == "1.2.3.4"', "compile: found no matching overload for '_==_' applied to '(net.IP, string)'"),
    ('dyn(ip("1.2.3.4")) == "1.2.3.4"', "eval: no such overload"),
    ('dyn(cidr("1.2.3.4/32")) == "1.2.3.4/32"', "eval: no such overload"),
    ('"1.2.3.4" == dyn(ip("1.2.3.4"))', False),
    # the member `ip()` is a CIDR's; the global one takes a string
    ('ip(cidr("10.0.0.0/8")) == ip("10.0.0.0")',
     "compile: found no matching overload for 'ip' applied to '(net.CIDR)'"),
    ('cidr("10.0.0.0/8").family() == 4', "compile: found no matching overload for 'family' applied to 'net.CIDR.()'"),
    # the type names Kubernetes registers (cel.Types in library/ip.go and cidr.go), dotted identifiers; a type
    # compared with `==` is "too complex" for cel-go's cost estimate (a type's size is unknown), `in` a list is not
    ('type(ip("1.2.3.4")) in [net.IP] && type(cidr("10.0.0.0/8")) in [net.CIDR]', True),
    ('type(ip("1.2.3.4")) in [net.CIDR]', False),
    ('type(ip("1.2.3.4")) in [net // a comment between\n .IP]', True),
    # with a leading dot, resolved from the root as cel-go does; a name that spells no type stays undeclared
    ('type(ip("1.2.3.4")) in [.net.IP] && [.google.protobuf.Timestamp].size() == 1', True),
    ('.net.IPs == 1', "compile: undeclared reference to '.net' (in container '')"),
    ('type(ip("1.2.3.4")) == net.IP', "compile: too complex, exceeds cost limit"),
    ('[net.IP].size() == 1 && [google.protobuf.Timestamp].size() == 1 && [google.protobuf.Duration].size() == 1', True),
    ('type(timestamp("2020-01-01T00:00:00Z")) in [google.protobuf.Timestamp]', True),
    # a variable in scope named like the first part is read, as the checker resolves it
    ('[{"IP": 1}].all(net, net.IP == 1) && cel.bind(net, {"IP": true}, net.IP)', True),
    ('net.IPs == 1', "compile: undeclared reference to 'net' (in container '')"),
    # on a device: DRANET publishes an interface's address with its prefix length
    ('cidr("192.168.128.0/17").containsIP(cidr(device.attributes["dra.net"].ipv4).ip())', True),
    ('cidr(device.attributes["dra.net"].ipv4).masked() == cidr("192.168.128.0/19")', True),
    ('cidr("10.0.0.0/8").containsIP(device.attributes["dra.net"].ip)', True),
    # A list attribute's items have no size estimate (the DRA size estimator knows no element type), and a dyn
    # argument may be the string overload, which parses it: Kubernetes refuses this as too costly (cel-go takes
    # the union of the overloads' estimates), and so any parse of a loop variable.
    ('device.attributes["dra.net"].ips.exists(a, cidr("fd00::/8").containsIP(a))',
     'compile: too complex, exceeds cost limit'),
    ('device.attributes["dra.net"].ips.exists(a, cidr("fd00::/8").containsIP(ip(string(a))))',
     'compile: too complex, exceeds cost limit'),
    ('ip(device.attributes["dra.net"].ipv4).family() == 4',
     'eval: IP Address "192.168.155.224/19" parse error during conversion from string: '
     'ParseAddr("192.168.155.224/19"): unexpected character (at "/19")'),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_ip_and_cidr_functions(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression, NIC) == expected


ADDRESSES: list[tuple[str, str]] = [
    # (input, Go's String() of the parsed address, or its ParseAddr error)
    ("255.255.255.255", "255.255.255.255"),
    ("256.0.0.1", 'ParseAddr("256.0.0.1"): IPv4 field has value >255'),
    ("0.0.0.0", "0.0.0.0"),
    ("00.0.0.0", 'ParseAddr("00.0.0.0"): IPv4 field has octet with leading zero'),
    ("1.2.3", 'ParseAddr("1.2.3"): IPv4 address too short'),
    ("1.2.3.4.5", 'ParseAddr("1.2.3.4.5"): IPv4 address too long'),
    ("1.2.3.", 'ParseAddr("1.2.3."): IPv4 field must have at least one digit (at ".")'),
    ("1.2.3.4 ", 'ParseAddr("1.2.3.4 "): unexpected character (at " ")'),
    ("localhost", 'ParseAddr("localhost"): unable to parse IP'),
    ("", 'ParseAddr(""): unable to parse IP'),
    ("%eth0", 'ParseAddr("%eth0"): missing IPv6 address'),
    ("ffff::", "ffff::"),
    ("10000::", 'ParseAddr("10000::"): IPv6 field has value >=2^16 (at "10000::")'),
    ("00000000ffff::", "ffff::"),  # Go counts the value, not the digits
    ("2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),  # the first of two equally long zero runs
    ("1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"),  # a single zero field is not compressed
    ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
    ("1:2:3:4:5:6:7:8:9", 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'),
    ("1:2:3:4:5:6:7", 'ParseAddr("1:2:3:4:5:6:7"): address string too short'),
    ("1:2:3:4::5:6:7:8", 'ParseAddr("1:2:3:4::5:6:7:8"): the :: must expand to at least one field of zeros'),
    ("1::2::3", 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'),
    ("1:", 'ParseAddr("1:"): colon must be followed by more characters (at ":")'),
    ("::1.2.3.4", "::102:304"),
    ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
    ("1:2:3:4:5:1.2.3.4", 'ParseAddr("1:2:3:4:5:1.2.3.4"): embedded IPv4 address must replace the final 2 '
                          'fields of the address (at "1.2.3.4")'),
    ("::1.2.3", 'ParseAddr("::1.2.3"): ParseAddr("1.2.3"): IPv4 address too short (at "1.2.3")'),
    ("fe80::1%", 'ParseAddr("fe80::1%"): zone must be a non-empty string'),
]


@pytest.mark.parametrize(("text", "expected"), ADDRESSES)
def test_addresses_parse_and_print_as_go_netip(text: str, expected: str) -> None:
    try:
        assert str(parse_addr(text)) == expected
    except AddrError as err:
        assert str(err) == expected


PREFIXES: list[tuple[str, str]] = [
    ("10.1.2.3/0", "10.1.2.3/0"),
    ("10.1.2.3/31", "10.1.2.3/31"),
    ("10.1.2.3/32", "10.1.2.3/32"),
    ("10.1.2.3/33", 'netip.ParsePrefix("10.1.2.3/33"): prefix length out of range'),
    ("::/127", "::/127"),
    ("::/128", "::/128"),
    ("::/129", 'netip.ParsePrefix("::/129"): prefix length out of range'),
    ("10.0.0.0/08", 'netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"'),
    ("10.0.0.0/+8", 'netip.ParsePrefix("10.0.0.0/+8"): bad bits after slash: "+8"'),
    ("10.0.0.0/-1", 'netip.ParsePrefix("10.0.0.0/-1"): bad bits after slash: "-1"'),
    ("10.0.0.0/x", 'netip.ParsePrefix("10.0.0.0/x"): bad bits after slash: "x"'),
    ("10.0.0.0/9223372036854775808", 'netip.ParsePrefix("10.0.0.0/9223372036854775808"): bad bits after slash: '
                                     '"9223372036854775808"'),
    ("10.0.0.0/9223372036854775807", 'netip.ParsePrefix("10.0.0.0/9223372036854775807"): prefix length out of range'),
    ("10.0.0.0", "netip.ParsePrefix(\"10.0.0.0\"): no '/'"),
    ("10.0.0/8", 'netip.ParsePrefix("10.0.0/8"): ParseAddr("10.0.0"): IPv4 address too short'),
    ("fe80::%eth0/64", 'netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix'),
]


@pytest.mark.parametrize(("text", "expected"), PREFIXES)
def test_prefixes_parse_as_go_netip(text: str, expected: str) -> None:
    try:
        assert str(parse_prefix(text)) == expected
    except AddrError as err:
        assert str(err) == expected


@pytest.mark.parametrize(("length", "inside", "outside"), [
    (23, "10.0.1.255", "10.0.2.0"), (24, "10.0.0.255", "10.0.1.0"), (25, "10.0.0.127", "10.0.0.128")])
def test_containment_at_the_prefix_boundary(length: int, inside: str, outside: str) -> None:
    prefix = parse_prefix(f"10.0.0.0/{length}")
    assert prefix.contains(parse_addr(inside))
    assert not prefix.contains(parse_addr(outside))
    assert prefix.contains_prefix(parse_prefix(f"{inside}/{length}"))
    assert not prefix.contains_prefix(parse_prefix(f"10.0.0.0/{length - 1}"))


# (expression, (min, max)) as library/cost.go's EstimateCallCost gives them, plus the arguments' costs:
# parsing a string costs its length x 0.1 (rounded up); ip.isCanonical twice that; an accessor one unit;
# containsIP compares two 4-16 byte addresses ((8..32) x 0.1) and containsCIDR masks and compares lengths too
# (+ (4..16) x 0.1 + 1); a string argument adds its parse; `==` of two IPs or CIDRs is one unit.
COSTS: list[tuple[str, tuple[int, int]]] = [
    ('isIP("0123456789") == true', (2, 2)),
    ('ip.isCanonical("0123456789")', (2, 2)),
    ('ip.isCanonical("01234567890")', (3, 3)),
    ('ip("1.2.3.4").family() == 4', (3, 3)),
    ('cidr("10.0.0.0/8").containsIP(ip("10.0.0.1"))', (3, 6)),
    ('cidr("10.0.0.0/8").containsIP("10.0.0.1")', (3, 6)),
    ('cidr("10.0.0.0/8").containsIP("10.0.0.12")', (3, 6)),
    ('cidr("10.0.0.0/8").containsIP("10.10.0.123")', (4, 7)),
    ('cidr("10.0.0.0/8").containsCIDR(cidr("10.0.0.0/9"))', (5, 9)),
    ('cidr("10.0.0.0/8").containsCIDR("10.0.0.0/9")', (5, 9)),
    ('cidr("10.0.0.0/8").ip() == ip("10.0.0.0")', (4, 4)),
    ('cidr("10.0.0.0/8") == cidr("10.0.0.0/8")', (3, 3)),
    ('cidr("10.0.0.0/8").masked().prefixLength() == 8', (4, 4)),
]


@pytest.mark.parametrize(("expression", "expected"), COSTS)
def test_static_cost_is_kubernetes_estimate(expression: str, expected: tuple[int, int]) -> None:
    assert celext.compile(expression).cost == expected


def test_a_device_attribute_address_costs_by_its_declared_size() -> None:
    """An attribute string is at most 64 bytes in Kubernetes' size estimate, so parsing one costs up to 7."""
    low, high = celext.compile('isIP(device.attributes["dra.net"].ip)').cost
    assert high - low == 7


@pytest.mark.parametrize("engine", ENGINES)
def test_type_names_in_errors(engine: str) -> None:
    device: dict[str, Any] = {"name": "d", "attributes": {"dra.net/n": {"int": 1}}}
    expression = 'dyn(ip("1.2.3.4")).startsWith("1")'
    assert outcome_on(engine, expression, device) == "eval: no such overload: startsWith(net.IP, string)"


def test_the_dotted_type_names_are_one_set_across_the_stages() -> None:
    """The rewrite's trigger (env), the checker's identifiers and the engines' type values name the same types."""
    from celext import env
    from celext.check.checker import VARIABLES
    from celext.lib.typenames import TYPE_DENOTATIONS

    assert {n for n in VARIABLES if "." in n} == {n for n in TYPE_DENOTATIONS if "." in n} == env.DOTTED_TYPE_NAMES
