"""The reference engine never lets a Python exception out, and walks expressions as deep as cel-go allows."""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

import pytest
from celpy.evaluation import Activation

import celext
from celext.env import FUNCTIONS
from celext.errors import CompileError, EvaluationError
from celext.reference.evaluator import COST_EXCEEDED, evaluate
from celext.syntax import headroom

compile_module = importlib.import_module("celext.compile")


def _tree(expression: str) -> Any:
    return compile_module.prepare(expression).tree


def _run(expression: str, **functions: Any) -> Any:
    return evaluate(_tree(expression), Activation(functions={**FUNCTIONS, **functions}))


def test_a_walk_that_runs_out_of_frames_is_rerun_with_headroom() -> None:
    def nest(depth: int) -> int:
        return 0 if depth == 0 else 1 + nest(depth - 1)

    assert headroom.call(nest, 5) == 5
    assert headroom.call(nest, sys.getrecursionlimit() * 3) == sys.getrecursionlimit() * 3
    assert sys.getrecursionlimit() < headroom.RECURSION_LIMIT  # restored afterwards


def test_headroom_hands_back_the_walks_own_errors() -> None:
    def fail() -> None:
        raise CompileError("boom")

    with pytest.raises(CompileError, match="boom"):
        headroom.deep(fail)


def test_deep_runs_from_several_threads_at_once() -> None:
    expression = "(" * 200 + "1 + 1 == 2" + ")" * 200
    results: list[object] = []
    workers = [threading.Thread(target=lambda: results.append(celext.compile(expression).evaluate({"name": "x"})))
               for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert results == [True] * 4


def test_evaluation_250_levels_deep_gives_the_shallow_result() -> None:
    deep = "(" * 247 + "[1, 2].exists(x, x == 2)" + ")" * 247  # the list elements are the 250th level
    assert bool(_run(deep)) is True
    arithmetic = "(" * 120 + "1" + " + 1)" * 120 + " == 121"
    assert bool(_run(arithmetic)) is True


@pytest.mark.parametrize(("raised", "message"), [
    (RuntimeError("disk on fire"), "evaluation failed: RuntimeError: disk on fire"),
    (KeyError("k"), "evaluation failed: KeyError: 'k'"),
    (ZeroDivisionError("x\nsecond line"), "evaluation failed: ZeroDivisionError: x"),
])
def test_an_unexpected_exception_becomes_one_evaluation_error(raised: Exception, message: str) -> None:
    def boom(*_: Any) -> Any:
        raise raised

    with pytest.raises(EvaluationError) as caught:
        _run("size('a') == 1", size=boom)
    assert caught.value.message == message


def test_cost_limit_and_cel_errors_keep_their_upstream_texts() -> None:
    with pytest.raises(EvaluationError, match=f"^{COST_EXCEEDED}$"):
        evaluate(_tree("[1, 2, 3].all(x, x > 0)"), Activation(functions=dict(FUNCTIONS)), cost_limit=3)
    with pytest.raises(EvaluationError, match=r"^division by zero$"):
        _run("1 / 0 == 1")


def test_a_compile_stage_bug_is_a_compile_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_: Any) -> None:
        raise AttributeError("no attribute 'x'")

    monkeypatch.setattr(compile_module, "check_types", broken)
    with pytest.raises(CompileError) as caught:
        compile_module.prepare("device.driver == 'a'")
    assert caught.value.message == "internal error while compiling: AttributeError: no attribute 'x'"


def test_a_deep_walk_inside_a_deep_walk_runs_in_place() -> None:
    def inner() -> str:
        return threading.current_thread().name

    assert headroom.deep(lambda: headroom.deep(inner)) == "celext-deep"
