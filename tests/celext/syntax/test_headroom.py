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
    def outer() -> tuple[int, int]:
        return threading.get_ident(), headroom.deep(threading.get_ident)

    here, nested = headroom.deep(outer)
    assert here == nested != threading.get_ident()  # on the helper thread, and the nested one too


GEVENT_NEIGHBOUR = """
from gevent import monkey; monkey.patch_all()
import gevent, json, sys
import celext
seen, errors = set(), []
def compiler():
    for i in range(20):  # a new text each time: compiled, not cached, and deep enough for the headroom thread
        celext.compile("(" * 240 + "device.driver == 'x'" + ")" * 240 + " " * i)
        gevent.sleep(0)
def neighbour():  # another request of the same worker: decodes a body nested far deeper than any review
    body = "[" * 150000 + "]" * 150000
    for _ in range(100):
        seen.add(sys.getrecursionlimit())
        try:
            json.loads(body)
        except RecursionError:
            errors.append(1)
        gevent.sleep(0)
base = sys.getrecursionlimit()
gevent.joinall([gevent.spawn(compiler), gevent.spawn(neighbour)])
print(sorted(seen) == [base], len(errors))
"""


def test_in_a_gevent_worker_no_other_greenlet_runs_while_the_limit_is_raised() -> None:
    # The webhook's worker is gevent's: a deep compile used to wait cooperatively on its helper thread with the
    # process-wide recursion limit raised, so another request's greenlet could decode a deeply nested body 150,000
    # levels deep in C and overflow the stack (the worker died of SIGSEGV). It waits on an OS lock now.
    import subprocess

    done = subprocess.run([sys.executable, "-c", GEVENT_NEIGHBOUR], capture_output=True, text=True, timeout=300,
                          check=False)
    assert (done.returncode, done.stdout) == (0, "True 100\n"), done.stderr[-2000:]
