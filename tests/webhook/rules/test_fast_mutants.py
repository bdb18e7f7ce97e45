"""The fast accept's verdicts, asserted directly: `attribute_census` (the value count, or -1, and the list flag),
`capacity_ok`, `device_verdict` and the bounded `Verdicts` memo. A verdict that is too generous would hide a
finding (`test_fast_parity.py` compares findings); one that is too strict, or a list flag that is wrong, only
changes which path runs or the slice's device limit, so these are pinned here. Texts judged through the shared
memos are unique to this file, so no earlier test has judged them. Named `test_fast_*` so mutation testing
runs it first on `webhook.rules.k8s.fast`."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN
from webhook.rules.k8s.fast import (
    CLEAN,
    CLEAN_WITH_LISTS,
    FAST_FIELDS,
    MEMO_ENTRIES,
    NOT_CLEAN,
    Verdicts,
    attribute_census,
    attribute_values,
    capacity_ok,
    device_verdict,
)

NOT_PLAIN = (-1, False)


@pytest.mark.parametrize(("attributes", "census"), [
    ({}, (0, False)),
    ({"a": {"int": 0}, "b": {"bool": True}}, (2, False)),
    ({"a": {"int": INT64_MIN}}, (1, False)), ({"a": {"int": INT64_MAX}}, (1, False)),
    ({"a": {"int": INT64_MIN - 1}}, NOT_PLAIN), ({"a": {"int": INT64_MAX + 1}}, NOT_PLAIN),
    ({"a": {"string": "x" * 16}}, (1, False)), ({"a": {"string": "x" * 64}}, (1, False)),
    ({"a": {"string": "x" * 65}}, NOT_PLAIN), ({"a": {"string": "é" * 33}}, NOT_PLAIN),
    ({"a": {"version": "7.3.1-census.1"}}, (1, False)), ({"a": {"version": "07.3.1"}}, NOT_PLAIN),
    ({"a": {"version": "7." + "0" * 63}}, NOT_PLAIN),
    ({"a": {"ints": [INT64_MIN, INT64_MAX]}}, (2, True)), ({"a": {"ints": [INT64_MIN - 1]}}, NOT_PLAIN),
    ({"a": {"ints": [INT64_MAX + 1]}}, NOT_PLAIN), ({"a": {"ints": [1, True]}}, NOT_PLAIN),
    ({"a": {"strings": ["x" * 17, "y"]}}, (2, True)), ({"a": {"strings": ["x" * 65]}}, NOT_PLAIN),
    ({"a": {"bools": [True, False, True]}}, (3, True)), ({"a": {"bools": [1]}}, NOT_PLAIN),
    ({"a": {"versions": ["7.3.2-census.2", "7.3.3"]}}, (2, True)), ({"a": {"versions": [7]}}, NOT_PLAIN),
    ({"a": {"versions": ["07.3.4"]}}, NOT_PLAIN), ({"a": {"ints": []}}, NOT_PLAIN),
    ({"a": {"others": [1]}}, NOT_PLAIN), ({"a": {"ints": [1]}, "b": {"int": 2}}, (2, True)),
    ({"a": {"int": "1"}}, NOT_PLAIN), ({"a": {"string": 1}}, NOT_PLAIN), ({"a": {"bool": 1}}, NOT_PLAIN),
    ({"a": {"version": 1}}, NOT_PLAIN), ({"a": {"int": 1.0}}, NOT_PLAIN), ({"a": {"int": 1, "bool": True}}, NOT_PLAIN),
    ({"a": 1}, NOT_PLAIN), ({"Bad Key": {"int": 1}}, NOT_PLAIN), ({"a": {"int": True}}, NOT_PLAIN),
])
def test_attribute_census(attributes: dict[str, Any], census: tuple[int, bool]) -> None:
    assert attribute_census(attributes) == census
    assert attribute_values(attributes) == census[0]


@pytest.mark.parametrize(("capacity", "ok"), [
    ({}, True), ({"c": {"value": "713Mi"}}, True), ({"c": {"value": "x-713"}}, False), ({"c": {"value": 713}}, False),
    ({"Bad Key": {"value": "1"}}, False), ({"c": {"value": "1", "requestPolicy": {}}}, False), ({"c": 1}, False),
])
def test_capacity_ok(capacity: dict[str, Any], ok: bool) -> None:
    assert capacity_ok(capacity) is ok


def _device(n_attributes: int = 0, n_capacities: int = 0, **fields: Any) -> dict[str, Any]:
    device: dict[str, Any] = {"name": "dev-0"}
    if n_attributes:
        device["attributes"] = {f"a{i}": {"int": i} for i in range(n_attributes)}
    if n_capacities:
        device["capacity"] = {f"c{i}": {"value": "1"} for i in range(n_capacities)}
    return {**device, **fields}


@pytest.mark.parametrize(("device", "max_values", "verdict"), [
    (_device(), 48, CLEAN), (_device(16, 16), 48, CLEAN), (_device(17, 16), 48, NOT_CLEAN),
    (_device(32), 48, CLEAN), (_device(0, 32), 48, CLEAN), (_device(0, 33), 48, NOT_CLEAN),
    (_device(attributes={"a": {"ints": [1, 2]}}), 48, CLEAN_WITH_LISTS),
    (_device(attributes={"a": {"ints": list(range(48))}}), 48, CLEAN_WITH_LISTS),
    (_device(attributes={"a": {"ints": list(range(49))}}), 48, NOT_CLEAN),
    (_device(attributes={"a": {"ints": list(range(49))}}), None, CLEAN_WITH_LISTS),
    (_device(attributes={"a": {"int": INT64_MAX + 1}}), 48, NOT_CLEAN),
    (_device(capacity={"c": {"value": "x-714"}}), 48, NOT_CLEAN),
    (_device(attributes=[]), 48, NOT_CLEAN), (_device(capacity=[]), 48, NOT_CLEAN),
    (_device(taints=[]), 48, NOT_CLEAN), ({"name": "Dev 0"}, 48, NOT_CLEAN), ({"name": 0}, 48, NOT_CLEAN),
    ({}, 48, NOT_CLEAN), (3, 48, NOT_CLEAN),
])
def test_device_verdict(device: Any, max_values: int | None, verdict: int) -> None:
    assert device_verdict(device, FAST_FIELDS, max_values) == verdict


def test_verdicts_remember_both_answers() -> None:
    asked: list[str] = []

    def judge(text: str) -> bool:
        asked.append(text)
        return text.startswith("g")

    verdicts = Verdicts(judge)
    assert [verdicts("good"), verdicts("bad"), verdicts("good"), verdicts("bad")] == [True, False, True, False]
    assert asked == ["good", "bad"]
    assert verdicts.all_good(["good", "good"]) is True
    assert verdicts.all_good(["good", "bad"]) is False
    assert verdicts.all_good([["unhashable"]]) is False
    assert verdicts.all_good(["good", 1]) is False


def test_verdicts_empty_a_full_table() -> None:
    verdicts = Verdicts(lambda text: text.startswith("g"))
    for i in range(MEMO_ENTRIES // 2):
        verdicts(f"g{i}")
        verdicts(f"b{i}")
    assert (len(verdicts.good), len(verdicts.bad)) == (MEMO_ENTRIES // 2, MEMO_ENTRIES // 2)
    verdicts("g-next")
    assert (verdicts.good, verdicts.bad) == ({"g-next"}, set())


def test_verdicts_hold_no_long_text() -> None:
    verdicts = Verdicts(lambda text: True)
    assert verdicts("g" * 129) is True
    assert verdicts("g" * 128) is True
    assert verdicts.good == {"g" * 128}
