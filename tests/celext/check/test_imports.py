"""The type checker, the cost estimator and the checker's AST load without lark, cel-python or pendulum: the AST is
celext's own nodes with plain Python values, built by the parser (`celext.syntax.build`)."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.conftest import REPO

HEAVY = ("lark", "celpy", "pendulum")


def test_check_and_cost_import_neither_lark_nor_cel_python() -> None:
    program = ("import sys; import celext.check.ast, celext.check.checker, celext.cost.estimator; "
               f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# The compiled path's modules: no cel-python, nor its lark (the parse tree is celext.syntax.nodes) and pendulum.
COMPILED_PATH = ("celext.values", "celext.lib", "celext.env", "celext.plan", "celext.runtime.ops", "celext.compile",
                 "celext.analysis", "celext.selector", "celext.alloc", "celext.reference.operations")
CEL_PYTHON = ("celpy", "lark", "pendulum")


def _loaded(program: str) -> list[str]:
    program += f"\nimport sys; print(sorted(m for m in {CEL_PYTHON!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, check=True)
    return list(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_the_compiled_path_imports_no_cel_python() -> None:
    assert _loaded(f"import {', '.join(COMPILED_PATH)}") == []


def test_compiling_and_running_selectors_loads_no_cel_python() -> None:
    program = (
        "import celext\n"
        "device = {'name': 'd', 'attributes': {'v': {'version': '1.2.3'}, 'n': {'int': 4}},\n"
        "          'capacity': {'mem': {'value': '16Gi'}}}\n"
        "for text in ('device.attributes[\"d.io\"].v.isGreaterThan(semver(\"1.0.0\"))',\n"
        "             'device.attributes[\"d.io\"].n * 2 - 1 == 7 && -device.attributes[\"d.io\"].n < 0',\n"
        "             'device.capacity[\"d.io\"].mem.compareTo(quantity(\"8Gi\")) > 0',\n"
        "             '[1, 2].map(x, x * 2).exists(y, y == 4) && {\"a\": 1}[?\"a\"].hasValue()',\n"
        "             'duration(\"1h\").getHours() == 1 && has(device.attributes[\"d.io\"].n)'):\n"
        "    assert celext.compile(text, engine='compiled').evaluate(device, 'd.io') is True, text\n"
    )
    assert _loaded(program) == []


def test_the_reference_engine_still_runs_on_cel_python() -> None:
    program = "import celext\nassert celext.compile('1 + 1 == 2', engine='reference').evaluate({}, 'd') is True"
    assert _loaded(program) == ["celpy", "lark", "pendulum"]
