"""Run one cel-spec conformance test through a selector engine, as ../shared/conformance/cel-spec/README.md says.

A selector must evaluate to bool, so each test becomes one selector: its bindings as `cel.bind`s, and the
expression compared with the expected value by type and by value (`[1] == [1u]` is true in CEL, so lists and
maps are compared element by element, types included). An error test passes on any compile or evaluation error.
Kubernetes always type-checks: a test the spec runs with the checker off passes when the engine refuses it at
compile time with a non-syntax error, as the API server would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import celext

SPEC = Path(__file__).resolve().parents[4] / "shared" / "conformance" / "cel-spec" / "simple-tests.json"
RESERVED = frozenset({"true", "false", "null"})  # a binding cannot shadow a literal; the literal wins in CEL
DEVICE = {"name": "conformance"}

Compiler = Callable[[str], Any]  # expression -> object with .evaluate(device, driver=...)


@dataclass(frozen=True, slots=True)
class Case:
    id: str  # file/section/name (#n when a name repeats)
    expr: str
    expected: str | None  # CEL literal text; None for an error test
    bindings: tuple[tuple[str, str], ...]
    disable_check: bool


def load(path: Path = SPEC) -> list[Case]:
    data = json.loads(path.read_text())
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for test in data["tests"]:
        key = f"{test['file']}/{test['section']}/{test['name']}"
        seen[key] = seen.get(key, 0) + 1
        cases.append(Case(key if seen[key] == 1 else f"{key}#{seen[key]}", test["expr"],
                          None if test.get("error") else test["expected"],
                          tuple(test.get("bindings", {}).items()), bool(test.get("disable_check"))))
    return cases


def _same(value: str, expected: str) -> str:
    """A bool CEL expression: `value` equals `expected` with the same type (element types too, one level down
    and in nested lists, as far as the expected literal spells them)."""
    return f"type({value}) == type({expected}) && {value} == {expected}"


def selector_text(case: Case) -> str:
    if case.expected is None:
        body = f"cel.bind(__r, ({case.expr}), type(__r) == type(__r))"
    else:
        expected = case.expected
        # dyn(): the comparison must type-check whatever the two types are (the expression inside is still
        # checked as written); a static mismatch shows as a type() difference at run time.
        body = (f"cel.bind(__r, dyn({case.expr}), cel.bind(__e, dyn({expected}), {_same('__r', '__e')} && "
                f"(type(__e) != type([]) || __e.all(__i, __x, type(__r[__i]) == type(__x))) && "
                f"(type(__e) != type({{}}) || __e.all(__k, type(__r[__k]) == type(__e[__k])))))")
    for name, value in reversed(case.bindings):
        if name not in RESERVED:
            body = f"cel.bind({name}, {value}, {body})"
    return body


def outcome(case: Case, compiler: Compiler) -> tuple[bool, str]:
    """(passed, what happened)."""
    try:
        selector = compiler(selector_text(case))
    except celext.CompileError as err:
        passed = case.expected is None or (case.disable_check and not err.message.startswith("Syntax error"))
        return passed, f"CompileError: {err}"
    try:
        result = selector.evaluate(DEVICE, driver="conformance")
    except celext.EvaluationError as err:
        return case.expected is None, f"EvaluationError: {err}"
    return case.expected is not None and result is True, f"evaluated to {result}"
