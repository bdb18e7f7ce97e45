"""The selector rules on the newer CEL forms: two-variable and transform macros, and optional reads (`.?id`,
`[?"id"]`, `.orValue()`, `.value()`, `.hasValue()`)."""

from __future__ import annotations

import pytest

from tests.builders import claim_with_selector, device, slice_with
from tests.webhook.rules.test_selectors import assert_fragile, check, findings

DOMAIN = 'device.attributes["resource.kubernetes.io"]'
NUMA = f"{DOMAIN}.numaNode"
OPT = f"{DOMAIN}.?numaNode"
GPU = 'device.attributes["gpu.example.com"]'
LISTS = (slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1")),)


# -- list-fragile-compare ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        f"{NUMA}.transformList(i, v, v + 1).size() > 0",
        f"{NUMA}.transformList(i, v, v > 0, v).size() > 0",
        f"{NUMA}.transformMap(i, v, v).size() > 0",
        f"{NUMA}.exists_one(n, n == 0)",
        f"{NUMA}.existsOne(i, n, n == 0)",
        f"{NUMA}.map(n, n > 0, n).size() > 0",
        f"{NUMA}.sortBy(n, n)[0] == [0]",
        f"{OPT}.orValue([]).exists(n, n == 0)",
        f"{OPT}.orValue(-1).includes(0)",
        f"{OPT}.hasValue()",
    ],
)
def test_the_newer_list_aware_forms_pass(expression: str) -> None:
    assert check("list-fragile-compare", claim_with_selector(expression), slices=LISTS) == []


@pytest.mark.parametrize(
    ("expression", "message_start", "replacement"),
    [
        (f"{OPT}.orValue(-1) == 4",
         "`==` on resource.kubernetes.io/numaNode (read with `.orValue()`) is silently false",
         f"{OPT}.orValue(-1).includes(4)"),
        (f'{DOMAIN}[?"numaNode"].value() != 4',
         "`!=` on resource.kubernetes.io/numaNode (read with `.value()`) is silently true",
         f'!{DOMAIN}[?"numaNode"].value().includes(4)'),
        (f"{OPT}.orValue(-1) in [0, 1]", "`in` on", f"[0, 1].exists(v, {OPT}.orValue(-1).includes(v))"),
        (f"{GPU}.?rdma.orValue(false)", "gpu.example.com/rdma used as a condition (read with `.orValue()`)",
         ".includes(true)"),
        (f"{OPT}.orValue(-1) < 2", "`<` on resource.kubernetes.io/numaNode (read with `.orValue()`) is a runtime",
         None),
    ],
)
def test_an_unwrapped_optional_read_is_fragile(expression: str, message_start: str, replacement: str | None) -> None:
    assert_fragile(expression, message_start, replacement)


@pytest.mark.parametrize(
    ("expression", "hint_start"),
    [
        (f"{OPT}.orValue([4]) == 4", "compare with includes() and a scalar literal as the fallback:"),
        (f"{OPT}.orValue({GPU}.other) != 4", "compare with includes() and a scalar literal as the fallback:"),
        (f'{GPU}.?rdma.orValue("no")', "compare with includes() and a bool literal as the fallback:"),
    ],
)
def test_no_fix_where_includes_on_the_fallback_would_change_the_meaning(expression: str, hint_start: str) -> None:
    found = [f for f in findings("list-fragile-compare", claim_with_selector(expression)) if "(read with" in f.message]
    (finding,) = found
    assert finding.fix is None
    assert finding.hint is not None and finding.hint.startswith(hint_start)


def test_the_inventory_names_list_devices_for_an_optional_read() -> None:
    ((_p, message, covered),) = check("list-fragile-compare", claim_with_selector(f"{OPT}.orValue(-1) == 0"),
                                      slices=LISTS)
    assert covered == "=="
    assert message == ("`==` on resource.kubernetes.io/numaNode (read with `.orValue()`): "
                       "resource.kubernetes.io/numaNode is a list on 1 device(s) in the inventory "
                       "(e.g. gpu.example.com/pool-0/gpu-0), where this is silently false")


# -- selector-attribute-missing ----------------------------------------------------------------------------


def test_an_optional_read_is_no_missing_read_but_its_value_is() -> None:
    slices = (slice_with(device("gpu-0", numa=0), device("gpu-1")),)
    for safe in (f"{OPT}.orValue(-1).includes(0)", f"{OPT}.hasValue() && {NUMA}.includes(0)",
                 f"{OPT}.hasValue() && {OPT}.value().includes(0)"):
        assert check("selector-attribute-missing", claim_with_selector(safe), slices=slices) == [], safe
    (finding,) = findings("selector-attribute-missing", claim_with_selector(f"{OPT}.value().includes(0)"),
                          slices=slices)
    assert finding.message == (
        "resource.kubernetes.io/numaNode is absent on 1 of 2 candidate device(s) (e.g. gpu.example.com/pool-0/gpu-1): "
        f"`{OPT}.value()` fails there with optional.none() dereference, which aborts allocation for the claim")
    assert finding.hint == f"guard the read: {OPT}.hasValue() && ..., or give a default: {OPT}.orValue(<default>)"
    assert finding.span == (0, len(OPT))


# -- selector-attribute-reference, selector-vendor-numa, selector-numa-pinned, selector-type-mismatch ------


def test_an_optional_read_of_a_wire_type_key_is_always_empty() -> None:
    ((_p, message, covered),) = check("selector-attribute-reference",
                                      claim_with_selector(f"{GPU}.?int.orValue(0) == 1"))
    assert covered == "int"
    assert message == ("`.int` is a wire-format type key, not an attribute: CEL exposes an attribute's value "
                       f"directly, so `{GPU}.?int` is optional.none() on every device")
    ((_p, message, _c),) = check("selector-attribute-reference", claim_with_selector(f"{GPU}.?int.value() == 1"))
    assert message.endswith(f"so `{GPU}.?int` fails with no such key")


def test_a_vendor_numa_optional_read_gets_an_optional_hint() -> None:
    (finding,) = findings("selector-vendor-numa",
                          claim_with_selector('device.attributes["dra.net"].?numaNode.orValue(-1).includes(0)'))
    assert finding.message.startswith("dra.net/numaNode is a vendor NUMA attribute")
    assert finding.hint == 'device.attributes["resource.kubernetes.io"].?numaNode (check your drivers publish it)'


@pytest.mark.parametrize("expression", [f"{OPT}.orValue(-1) == 2", f"{OPT}.orValue(-1).includes(2)",
                                        f'[2].exists(n, {DOMAIN}[?"numaNode"].value().includes(n))'])
def test_an_optional_read_pins_the_compared_node_not_the_fallback(expression: str) -> None:
    ((_p, message, _c),) = check("selector-numa-pinned", claim_with_selector(expression))
    assert "pins resource.kubernetes.io/numaNode to NUMA node 2: " in message


def test_type_mismatch_through_an_optional_read() -> None:
    slices = (slice_with(device("gpu-0", attributes={"model": "A100"})),)
    ((_p, message, covered),) = check("selector-type-mismatch", claim_with_selector(f'{GPU}.?model.orValue("") == 4'),
                                      slices=slices)
    assert covered == "=="
    assert message.startswith("gpu.example.com/model is a string on every candidate device that publishes it (1); "
                              "`==` with an int value never matches it")
