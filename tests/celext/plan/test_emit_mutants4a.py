"""celext.plan.emit: what each grammar level generates (read in `Selector.source`) and the answer a user sees,
checked against the reference engine (answers derived by hand). Fast, for the mutation budget."""

from __future__ import annotations

import pytest

from tests.celext.outcome import assert_source, outcome

GPU = 'device.attributes["gpu.example.com"]'
DRIVER_EITHER = '(device.driver == "a.io" || device.driver == "gpu.example.com")'


def _nested(levels: int) -> str:
    """`h || (h && (h || ...))`: each level's operand one Python block deeper than the last."""
    expression = f"{GPU}.healthy"
    for level in range(levels):
        expression = f"{GPU}.healthy {'&&' if level % 2 else '||'} ({expression})"
    return expression


# (expression, answer, patterns the source holds, patterns it must not hold)
ROWS: list[tuple[str, bool | str, list[str], list[str]]] = [
    # `[?x]` elements and map literals: the compact form builds them (a part, with every comprehension variable)
    ("[?optional.of(1)] == [1]", True, [r"K\d+\(FRAME\(device, driver, B, budget, \{\}\)\)"], [r"rt_subtree"]),
    ("[?optional.none(), ?optional.of(2)] == [2]", True, [r"\(FRAME\("], [r"rt_subtree"]),
    ("[1].all(x, [2].all(y, [?optional.of(x)] == [y - 1]))", True,
     [r"K\d+\(FRAME\(device, driver, B, budget, \{-1: v\d+, -2: v\d+\}\)\)"], [r"rt_subtree"]),
    ("[1].all(x, {x: x + 1}[x] == 2)", True, [r"K\d+\(FRAME\(device, driver, B, budget, \{-1: v\d+\}\)\)"],
     [r"rt_subtree"]),
    ("[1, 2][1] == 2", True, [r"rt_index\(K\d+, K\d+, False\)"], [r"rt_subtree"]),
    ("[1, 2].size() == 2", True, [], [r"rt_subtree"]),
    # a subtree at SPLIT_DEPTH (12) block levels moves into a function of its own
    (_nested(10), True, [], [r"def _f"]),
    (_nested(11), True, [r"^def _f\d+\(device, driver, budget, B\):"], []),
    # the whole device value
    ('dyn(device).driver == "gpu.example.com"', True, [r"rt_converted\(device, driver\)"], [r"rt_subtree"]),
    # `&&` / `||` chains: operands TRUE or FALSE themselves give a chain TRUE or FALSE itself
    (f"{DRIVER_EITHER} ? true : false", True,
     [r"if t\d+ is TRUE: t\d+ = TRUE; break", r"\n    if t\d+:\n"], [r"rt_not_bool", r"rt_or"]),
    (f"({GPU}.model || false) ? true : false", "eval: no such overload", [r"rt_not_bool"], []),
    (f"({GPU}.healthy && {DRIVER_EITHER}) ? true : false", True, [r"rt_not_bool", r"rt_and"], []),
    (f"false || {GPU}.healthy", True, [], [r"K\d+ is", r"t\d+ is not TRUE"]),
    (f"true && {GPU}.healthy", True, [], [r"K\d+ is", r"t\d+ is not FALSE"]),
    (f"{GPU}.healthy && false", False, [r"= FALSE\n"], []),
    (f"false && {GPU}.healthy", False, [], [r"while True", r"rt_and"]),
    # `"domain" in device.attributes`: a scan of the names
    ('"gpu.example.com" in device.attributes', True, [r"rt_has_domain\(t\d+, driver, K\d+\)"], [r"rt_subtree"]),
    ('"b.io" in device.attributes', False, [r"rt_has_domain\("], []),
    ('["gpu.example.com"].all(d, d in device.attributes)', True, [], [r"rt_has_domain"]),
    # `x op K`: the builtin comparison behind a class guard
    (f"{GPU}.numaNode == 4", "eval: no such key: numaNode",
     [r"\(TRUE if int\.__eq__\(t\d+, K\d+\) else FALSE\) if t\d+\.__class__ is INT else K\d+\(t\d+, K\d+\)"], []),
    ('device.attributes["resource.kubernetes.io"].numaNode >= 4', True,
     [r"\(TRUE if int\.__ge__\(t\d+, K\d+\) else FALSE\) if t\d+\.__class__ is INT else"], []),
    ('4 < device.attributes["resource.kubernetes.io"].numaNode', False,
     [r"\(TRUE if int\.__lt__\(K\d+, t\d+\) else FALSE\) if t\d+\.__class__ is INT else"], []),
    (f'{GPU}.model != "A100-80GB"', False,
     [r"\(TRUE if str\.__ne__\(t\d+, K\d+\) else FALSE\) if t\d+\.__class__ is STRING else"], []),
    ("[1, 2].exists(x, x < 2)", True, [r"\(TRUE if int\.__lt__\(v\d+, K\d+\) else FALSE\) if v\d+\.__class__ is INT"],
     []),
    # unary operators on constants are folded
    ("-(2) < 0", True, [r"return K\d+\n"], [r"rt_unary", r"rt_subtree"]),
    ("!(false) == true", True, [r"return K\d+\n"], [r"rt_unary", r"rt_subtree"]),
    ('-device.attributes["resource.kubernetes.io"].numaNode == -4', True, [r"rt_unary\('unary_neg', t\d+\)"], []),
    # includes(): a raw scan of the attribute's list for a constant int or string
    (f"{GPU}.numas.includes(4)", True, [r"rt_includes_raw\(t\d+, K\d+\)"], [r"rt_includes\(", r"rt_subtree"]),
    (f"{GPU}.numas.includes(9)", False, [r"rt_includes_raw\("], []),
    (f'{GPU}.model.includes("A")', False, [r"rt_includes_raw\("], []),
    (f"{GPU}.nothing.includes(4)", "eval: no such key: nothing", [r"rt_no_key\('nothing'\)"], []),
    (f"[4].all(x, {GPU}.numas.includes(x))", True, [r"rt_includes\(t\d+, v\d+\)"], [r"rt_includes_raw"]),
    ("[1, 4].includes(4)", True, [], [r"rt_subtree", r"rt_includes_raw"]),
    (f'{GPU}.model.startsWith("A")', True, [], [r"rt_subtree"]),
]


@pytest.mark.parametrize(("expression", "answer", "present", "absent"), ROWS)
def test_emitted_source_and_answer(expression: str, answer: bool | str, present: list[str],
                                   absent: list[str]) -> None:
    assert_source(expression, present, absent)
    assert [outcome(expression), outcome(expression, engine="reference")] == [answer, answer]
