"""Selector findings in full (rule, path, message, hint and the span of the expression they point at): compile
errors and where they point (line and column turned into an offset), the expression length limit at 10 KiB and
one byte past it, a selector skipped (too long, over the cost limit, `include()`) before one with an error,
invalid quantity and semver literals, attribute references, the NUMA node pinned by a literal, and vendor NUMA
aliases in `matchAttribute`. Named `test_selectors_cel_*` so mutation testing runs it first on
`webhook.rules.selectors_cel` and `webhook.rules.selectors`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

import celext
from tests.builders import claim_with_selector
from webhook.policy import Policy
from webhook.run import run_rules

S = "spec.devices.requests[0].exactly.selectors"
LIMIT = 10 * 1024  # resource.CELSelectorExpressionMaxLength, in bytes
COMPILE_HINT = 'the API server rejects a selector that does not compile'
END_OF_INPUT = 'compilation failed: Syntax error: unexpected end of input'
TOO_LONG = ('selector-too-long', f'{S}[0].cel.expression', 'Too long: may not be more than 10240 bytes', 'split the condition over several selectors (all of them must match)', None)

Seen = list[tuple[str, str, str, str, tuple[int, int] | None]]


def seen(expressions: list[str], constraints: list[dict[str, Any]] | None = None) -> Seen:
    found = run_rules(claim_with_selector(*expressions, constraints=constraints), Policy.default()).findings
    return [(f.rule, str(f.path).replace(S, "S"), f.message, f.hint, f.span) for f in found]


def at(size: int, head: str = 'device.driver == "', tail: str = '"') -> str:
    """An expression of exactly `size` bytes."""
    return head + "a" * (size - len(head) - len(tail)) + tail


UNCHECKED_HINT = ('Kubernetes provides this and celext does not, so the selector is not checked (the API server may '
                  'accept it); docs/celext.md lists what celext leaves out')
NESTED_BINDS = ("has({'k': [1].map(z, cel.bind(v0, [z], " + ''.join(f'cel.bind(v{i}, [v{i - 1}, v{i - 1}, v{i - 1}, v{i - 1}], ' for i in range(1, 12))
                + 'size(v11) > 0' + ')' * 12 + ')}.k)')
CASES = [
    pytest.param(["device.driver == 'a' &&\n  device.driver ==="], None,
                 [('selector-compile', 'S[0].cel.expression', "compilation failed: Syntax error: unexpected '='", 'the API server rejects a selector that does not compile', (42, 43))],
                 id='a syntax error on the second line'),
    pytest.param(['true &&\ntrue &&\n =='], None,
                 [('selector-compile', 'S[0].cel.expression', "compilation failed: Syntax error: unexpected '=='", 'the API server rejects a selector that does not compile', (17, 18))],
                 id='a syntax error on the third line, second column'),
    pytest.param(['device.attributes["gpu.example.com"].model.include("a")', 'device.driver =='], None,
                 [('selector-includes-spelling', 'S[0].cel.expression', "`include()` is the KEP-5491 draft spelling; Kubernetes only declares `includes()`, so the API server rejects this selector (undeclared reference to 'include')", 'device.attributes["gpu.example.com"].model.includes(...)   (safe fix: draguard lint --fix)', (43, 50)), ('selector-compile', 'S[1].cel.expression', 'compilation failed: Syntax error: unexpected end of input', 'the API server rejects a selector that does not compile', (16, 16))],
                 id='include(), then a syntax error'),
    pytest.param(['device.attributes["gpu.example.com"].model.include("a") && nosuch'], None,
                 [('selector-compile', 'S[0].cel.expression', "compilation failed: undeclared reference to 'nosuch' (in container '')", 'the API server rejects a selector that does not compile', (59, 60)), ('selector-includes-spelling', 'S[0].cel.expression', "`include()` is the KEP-5491 draft spelling; Kubernetes only declares `includes()`, so the API server rejects this selector (undeclared reference to 'include')", 'device.attributes["gpu.example.com"].model.includes(...)   (safe fix: draguard lint --fix)', (43, 50))],
                 id='include() with another error'),
    pytest.param(['isURL("https://example.com") && device.driver == "a"', 'format.dns1123Label().validate(device.driver).hasValue()'], None,
                 [('selector-compile', 'S[1].cel.expression', "draguard cannot check this selector: 'format' is not supported: the Kubernetes format library (format.dns1123Label(), format.named(), ...) is not provided by celext", UNCHECKED_HINT, (0, 1))],
                 id='a library Kubernetes has and celext does not: not checked, not rejected; URLs are checked'),
    pytest.param(['authorizer.group("x") == 1'], None,
                 [('selector-compile', 'S[0].cel.expression', "compilation failed: 'authorizer' is not supported: the Kubernetes authz library has no meaning for device selectors", COMPILE_HINT, (0, 1))],
                 id='the authorizer, which the DRA environment does not declare either'),
    pytest.param([NESTED_BINDS], None, [],
                 id="bindings past the reference engine's expansion limit: the compiled engine checks them"),
    pytest.param(['device.attributes["gpu.example.com"].model.matches_not("a")'], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`.matches_not()` on gpu.example.com/model is a runtime error (no matching overload) that aborts allocation once the driver publishes it as a list', 'for a list: device.attributes["gpu.example.com"].model.exists(v, v.matches_not(...)); keep a scalar-only form only if the driver documents a scalar', (43, 54)), ('selector-compile', 'S[0].cel.expression', "compilation failed: undeclared reference to 'matches_not' (in container '')", 'the API server rejects a selector that does not compile', (54, 55))],
                 id='an unknown function'),
    pytest.param(['[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, device.attributes["x.io"].s.startsWith("a")))))))', 'device.driver =='], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`.startsWith()` on x.io/s is a runtime error (no matching overload) that aborts allocation once the driver publishes it as a list', 'for a list: device.attributes["x.io"].s.exists(v, v.startsWith(...)); keep a scalar-only form only if the driver documents a scalar', (208, 218)), ('selector-cost', 'S[0].cel.expression', "too complex, exceeds cost limit (Kubernetes' static estimate: 9,555,551 cost units, limit 1,000,000); the API server rejects this selector", 'avoid nesting all()/exists() over lists and comparing values of unbounded length; test one attribute with includes() instead', (0, 229)), ('selector-compile', 'S[1].cel.expression', 'compilation failed: Syntax error: unexpected end of input', 'the API server rejects a selector that does not compile', (16, 16))],
                 id='a comprehension over the cost limit, then a syntax error'),
    pytest.param(['device.capacity["gpu.example.com"].memory.compareTo(quantity("1x")) > 0', 'device.attributes["gpu.example.com"].v.isGreaterThan(semver("1.x"))'], None,
                 [('selector-literal-invalid', 'S[0].cel.expression', "quantity('1x') fails on every device: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", 'write a valid quantity literal (templates must be rendered before use)', (61, 65)), ('list-fragile-compare', 'S[1].cel.expression', '`.isGreaterThan()` on gpu.example.com/v is a runtime error (no matching overload) that aborts allocation once the driver publishes it as a list', 'for a list: device.attributes["gpu.example.com"].v.exists(v, v.isGreaterThan(...)); keep a scalar-only form only if the driver documents a scalar', (39, 52)), ('selector-literal-invalid', 'S[1].cel.expression', "semver('1.x') fails on every device: No Major.Minor.Patch elements found", 'write a valid semver literal (templates must be rendered before use)', (60, 65))],
                 id='a bad quantity literal, then a bad semver literal'),
    pytest.param(['quantity("1Gi") == quantity("2x")'], None,
                 [('selector-literal-invalid', 'S[0].cel.expression', "quantity('2x') fails on every device: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", 'write a valid quantity literal (templates must be rendered before use)', (28, 32))],
                 id='a good quantity literal then a bad one'),
    pytest.param(['device.attributes["numaNode"].x == 1'], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`==` on numaNode/x is silently false once the driver publishes it as a list', 'device.attributes["numaNode"].x.includes(1)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (32, 34)), ('selector-attribute-reference', 'S[0].cel.expression', 'domain "numaNode" is not a driver domain (no dot); an unknown domain is an empty map, so every attribute read from it fails', 'attributes a driver publishes without a domain live under its name: device.attributes["<driver>"].numaNode', (18, 28))],
                 id='a driver-less domain'),
    pytest.param(['device.attributes["a.io/b"].x == 1'], None,
                 [('selector-attribute-reference', 'S[0].cel.expression', 'device.attributes["a.io/b"] indexes with the qualified name "a.io/b"; the index is a domain, so this map is always empty and every lookup in it fails', 'device.attributes["a.io"].b', (18, 26))],
                 id='a domain with a slash'),
    pytest.param(['device.attributes["gpu.example.com"].model.value == "a"'], None,
                 [('selector-attribute-reference', 'S[0].cel.expression', '`.value` reads a field of the value of gpu.example.com/model; attribute values (int, bool, string, version) have no fields, so this fails on every device', 'device.attributes["gpu.example.com"].model is the value itself (no .value)', (43, 48))],
                 id='reading a field of an attribute'),
    pytest.param(['device.attributes["gpu.example.com"].?model.value == "a"'], None,
                 [('selector-attribute-reference', 'S[0].cel.expression', '`.value` reads a field of the value of gpu.example.com/model; attribute values (int, bool, string, version) have no fields, so this fails on every device', 'device.attributes["gpu.example.com"].?model is the value itself (no .value)', (44, 49)), ('selector-compile', 'S[0].cel.expression', "compilation failed: found no matching overload for '_==_' applied to '(optional_type(dyn), string)'", 'the API server rejects a selector that does not compile', (50, 51))],
                 id='reading a field of an optional attribute'),
    pytest.param(['device.attributes["resource.kubernetes.io"].numaNode == 0', 'device.attributes["resource.kubernetes.io"].numaNode != 1', 'device.attributes["resource.kubernetes.io"].numaNode in [0, 2]', 'device.attributes["resource.kubernetes.io"].numaNode.includes(3)'], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`==` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', 'device.attributes["resource.kubernetes.io"].numaNode.includes(0)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (53, 55)), ('selector-numa-pinned', 'S[0].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]', (0, 57)), ('list-fragile-compare', 'S[1].cel.expression', '`!=` on resource.kubernetes.io/numaNode is silently true once the driver publishes it as a list', '!device.attributes["resource.kubernetes.io"].numaNode.includes(1)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (53, 55)), ('selector-numa-pinned', 'S[1].cel.expression', "the selector excludes NUMA node 1 by id (resource.kubernetes.io/numaNode): node ids differ between machines, so which devices this leaves out depends on each node's layout", 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]', (0, 57)), ('list-fragile-compare', 'S[2].cel.expression', '`in` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', '[0, 2].exists(v, device.attributes["resource.kubernetes.io"].numaNode.includes(v))   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (53, 55)), ('selector-numa-pinned', 'S[2].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0, 2: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]', (0, 62)), ('selector-numa-pinned', 'S[3].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 3: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]', (0, 64))],
                 id='the NUMA node pinned with ==, !=, in and includes'),
    pytest.param(['device.attributes["resource.kubernetes.io"].numaNode > 0', 'device.attributes["resource.kubernetes.io"].numaNode == device.attributes["resource.kubernetes.io"].numaNode'], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`>` on resource.kubernetes.io/numaNode is a runtime error (no matching overload) that aborts allocation once the driver publishes it as a list', 'for a list: device.attributes["resource.kubernetes.io"].numaNode.exists(v, v > ...); or compare with includes() on exact values', (53, 54)), ('list-fragile-compare', 'S[1].cel.expression', '`==` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', 'compare with includes(): device.attributes["resource.kubernetes.io"].numaNode.includes(<value>)', (53, 55))],
                 id='the NUMA node compared with something else'),
    pytest.param(['device.attributes["resource.kubernetes.io"].numaNode in [0, true]'], None,
                 [('list-fragile-compare', 'S[0].cel.expression', '`in` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', '[0, true].exists(v, device.attributes["resource.kubernetes.io"].numaNode.includes(v))   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (53, 55)), ('selector-compile', 'S[0].cel.expression', "compilation failed: expected type 'int' but found 'bool'", 'the API server rejects a selector that does not compile', (60, 61)), ('selector-numa-pinned', 'S[0].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]', (0, 65))],
                 id='the NUMA node in a list with a bool'),
    pytest.param([], [{'matchAttribute': 'dra.net/numaNode', 'requests': ['req-0']}],
                 [('selector-vendor-numa', 'spec.devices.constraints[0].matchAttribute', 'matchAttribute dra.net/numaNode is a vendor NUMA name: only devices whose driver publishes this alias carry it (each driver picks its own aliases), so the constraint cannot place a device of a driver that does not; KEP-6072 standardises resource.kubernetes.io/numaNode for every driver', 'matchAttribute: resource.kubernetes.io/numaNode (once all drivers the claim uses publish it)', None)],
                 id='a vendor NUMA alias in matchAttribute'),
    pytest.param([], [{'matchAttribute': 'resource.kubernetes.io/numaNode', 'requests': ['req-0']}],
                 [],
                 id='the standard NUMA attribute in matchAttribute'),
]


@pytest.mark.parametrize(("expressions", "constraints", "expected"), CASES)
def test_selector_findings_in_full(expressions: list[str], constraints: list[dict[str, Any]] | None,
                                   expected: Seen) -> None:
    assert seen(expressions, constraints) == expected


def test_bindings_past_the_reference_engines_limit_are_not_checked_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """With DRAGUARD_CEL_ENGINE=reference, the selector the reference engine cannot expand is reported as not
    checked, not as rejected (Kubernetes accepts it)."""
    monkeypatch.setattr(celext, "DEFAULT_ENGINE", "reference")
    assert seen([NESTED_BINDS]) == [
        ('selector-compile', 'S[0].cel.expression', "draguard cannot check this selector: cel.bind expands to more than 100,000 nodes where celext's reference engine evaluates it (it substitutes each binding at its every use): use fewer nested bindings", UNCHECKED_HINT, (0, 1))]


def test_a_syntax_error_at_the_length_limit_is_compiled() -> None:
    assert seen([at(LIMIT, tail='" +')]) == [
        ('selector-compile', 'S[0].cel.expression', END_OF_INPUT, COMPILE_HINT, (LIMIT, LIMIT))]
    assert seen([at(LIMIT + 1, tail='" +')]) == [(*TOO_LONG[:1], 'S[0].cel.expression', *TOO_LONG[2:])]


def test_include_at_the_length_limit_is_read() -> None:
    assert seen([at(LIMIT, 'device.attributes["gpu.example.com"].model.include("', '")')]) == [
        ('selector-includes-spelling', 'S[0].cel.expression', "`include()` is the KEP-5491 draft spelling; Kubernetes only declares `includes()`, so the API server rejects this selector (undeclared reference to 'include')", 'device.attributes["gpu.example.com"].model.includes(...)   (safe fix: draguard lint --fix)', (43, 50))]


def test_a_selector_past_the_limit_does_not_hide_the_next_one() -> None:
    assert seen([at(LIMIT + 1), "device.driver =="]) == [
        (*TOO_LONG[:1], 'S[0].cel.expression', *TOO_LONG[2:]),
        ('selector-compile', 'S[1].cel.expression', END_OF_INPUT, COMPILE_HINT, (16, 16))]
