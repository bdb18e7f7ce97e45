"""Selector.matches: memoised on the device projection, the same answers as plain evaluation, thread-safe."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import celext
from celext.compile import prepare
from celext.selector import Selector
from tests.celext.outcome import DEVICE, DRIVER


def _numa(value: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "d", "attributes": {"resource.kubernetes.io/numaNode": value, **extra}}


def test_memoised_answers_equal_plain_evaluation_across_varied_devices() -> None:
    selector = celext.compile('device.driver == "gpu.example.com" && '
                              'device.attributes["resource.kubernetes.io"].numaNode.includes(4)')
    devices = [_numa({"int": 4}), _numa({"ints": [6, 4]}), _numa({"int": 5}), _numa({"ints": []}),
               {"name": "none"}, _numa({"int": 4}, uuid={"string": "u1"}), _numa({"int": 4}, uuid={"string": "u2"})]
    for driver in ("gpu.example.com", "other"):
        for device in devices * 2:
            expected = _plain(selector, device, driver)
            assert _answer(selector, device, driver) == expected
            assert _answer(selector, celext.to_device(device, driver), driver) == expected


def _plain(selector: celext.Selector, device: Any, driver: str) -> bool | str:
    try:
        return selector.evaluate(device, driver)
    except celext.EvaluationError as err:
        return err.message


def _answer(selector: celext.Selector, device: Any, driver: str) -> bool | str:
    try:
        return selector.matches(device, driver)
    except celext.EvaluationError as err:
        return err.message


def test_errors_are_memoised_and_raised_again() -> None:
    selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode.includes(4)')
    for _ in range(2):
        with pytest.raises(celext.EvaluationError, match=r"^no such key: numaNode$"):
            selector.matches({"name": "x"}, "d.io")


def test_unqualified_and_qualified_wire_names_are_told_apart() -> None:
    selector = celext.compile('device.attributes["d.io"].n == 1')
    assert selector.matches({"attributes": {"n": {"int": 1}}}, "d.io") is True
    assert _answer(selector, {"attributes": {"n": {"int": 1}}}, "e.io") == "no such key: n"
    assert selector.matches({"attributes": {"d.io/n": {"int": 1}}}, "e.io") is True


def test_a_bad_attribute_elsewhere_is_not_hidden_by_the_memo() -> None:
    selector = celext.compile('device.attributes["d.io"].n == 1')
    assert selector.matches({"attributes": {"n": {"int": 1}}}, "d.io") is True
    bad = {"attributes": {"n": {"int": 1}, "v": {"version": "1.0"}}}
    with pytest.raises(celext.EvaluationError, match=r"^attribute v: parse semantic version: No Major"):
        selector.matches(bad, "d.io")


def test_non_bool_results_at_runtime() -> None:
    selector = celext.compile('device.attributes["gpu.example.com"].numas')
    with pytest.raises(celext.EvaluationError,
                       match=r"^CEL result of type list could not be converted to bool"):
        selector.matches(DEVICE, DRIVER)


def test_the_cost_limit_stops_runaway_loops() -> None:
    # The upstream `expensive` oracle case checks the real limit; a small limit keeps this test quick.
    loops = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    expression = f"{loops}.all(a, {loops}.all(b, {loops}.all(c, a > 0)))"
    assert Selector(prepare(expression), cost_limit=10_000).matches({}, "d.io") is True
    with pytest.raises(celext.EvaluationError, match=r"^operation cancelled: actual cost limit exceeded$"):
        Selector(prepare(expression), cost_limit=1_000).matches({}, "d.io")


def test_concurrent_use_from_threads_gives_the_same_answers() -> None:
    selector = celext.compile('device.attributes["resource.kubernetes.io"].numaNode.includes(4) || '
                              'device.attributes["gpu.example.com"].model.startsWith("A")')
    devices = [_numa({"int": i % 8}, model={"string": "A" if i % 3 else "B"}) for i in range(64)]
    expected = [_plain(selector, d, DRIVER) for d in devices]
    results: list[list[bool | str]] = []
    failures: list[BaseException] = []

    def work() -> None:
        try:
            results.append([_answer(selector, d, DRIVER) for d in devices])
        except BaseException as err:  # report, do not hang the test
            failures.append(err)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert results == [expected] * 6


@pytest.mark.parametrize("convert", [False, True])
def test_a_repeated_projection_is_evaluated_once(monkeypatch: pytest.MonkeyPatch, convert: bool) -> None:
    calls: list[str] = []
    original = Selector.evaluate

    def counting(self: Selector, device: Any, driver: str = "") -> bool:
        calls.append(driver)
        return original(self, device, driver)

    monkeypatch.setattr(Selector, "evaluate", counting)
    # The memo is the reference engine's (the compiled engine evaluates every wire device: it is cheaper).
    selector = Selector(prepare('has(device.attributes["dra.net"].numaNode) && '
                                'device.attributes["dra.net"].numaNode.includes(1)'), engine="reference")
    devices = [{"name": f"d{i}", "attributes": {"other": {"int": i}}} for i in range(5)]  # attribute absent
    devices += [{"name": f"n{i}", "attributes": {"dra.net/numaNode": {"int": 1}}} for i in range(5)]
    for device in devices:
        value = celext.to_device(device, "d.io") if convert else device
        selector.matches(value, "d.io")
    assert len(calls) == 2  # one evaluation per distinct projection (absent, numaNode=1)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize(("attribute", "expression", "expected"), [
    ({"int": 1000.0}, "x == 1000", True),  # YAML `1e3`: kubectl sends JSON 1000
    ({"ints": [0, 1.0]}, "x.includes(1)", True),
    ({"int": 1.5}, "x == 1", "attribute gpu.example.com/x: unsupported attribute value"),
])
def test_an_integral_float_is_the_int_kubectl_sends(engine: str, attribute: dict[str, Any], expression: str,
                                                    expected: object) -> None:
    device = {"name": "d", "attributes": {"gpu.example.com/x": attribute}}
    selector = celext.compile(expression.replace("x", 'device.attributes["gpu.example.com"].x', 1), engine=engine)
    try:
        assert selector.evaluate(device, "gpu.example.com") == expected
    except celext.EvaluationError as err:
        assert err.message == expected
