"""The type checker, the cost estimator and the checker's AST load without lark, cel-python or pendulum: the AST is
celext's own nodes with plain Python values, built by the parser (`celext.syntax.build`)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

HEAVY = ("lark", "celpy", "pendulum")


def test_check_and_cost_import_neither_lark_nor_cel_python() -> None:
    program = ("import sys; import celext.check.ast, celext.check.checker, celext.cost.estimator; "
               f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
