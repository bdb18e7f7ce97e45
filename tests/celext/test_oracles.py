"""The upstream selector test table (k8s.io/dynamic-resource-allocation cel/compile_test.go), case by case.

celext implements the StoredExpressions environment the scheduler uses (every feature the binary knows);
the few cases that test the stricter NewExpressions environment with a feature gate off are skipped with
that reason. The two generated "very-long-list" cases are rebuilt from their Go source (48 = the limit).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import celext
from celext.errors import CostLimitError

ORACLE = "cel-oracles/dynamic-resource-allocation-compile-test.yaml"
LIMIT = 48  # ResourceSliceMaxAttributeValuesPerDevice
COST_LIMIT = 1_000_000  # CELSelectorExpressionMaxCost


def _cases() -> list[Any]:
    path = Path(__file__).resolve().parents[3] / "shared" / "corpus" / ORACLE
    if not path.is_file():
        return [pytest.param(None, id="corpus-absent")]
    cases = YAML(typ="safe").load(path.read_text())["testcases"]
    return [pytest.param(case, id=case["name"]) for case in cases]


def _generated(case: dict[str, Any]) -> dict[str, Any]:
    """The Go-built fields of the very-long-list cases, rebuilt exactly as their goSource says."""
    case = dict(case)
    count = LIMIT if case["name"].endswith("positive") else LIMIT + 1
    case["expression"] = f'device.attributes["dra.example.com"].name.includes("value-{count}")'
    case["attributes"] = {"name": {"strings": [f"value-{i}" for i in range(count)]}}
    if "expectMatchError" in case:
        case["expectMatchError"] = f"'includes' function cannot be applied to lists longer than {LIMIT} values"
    return case


@pytest.mark.parametrize("case", _cases())
def test_upstream_case(case: dict[str, Any] | None, corpus: Path) -> None:
    assert case is not None
    if case.get("envType") == "environment.NewExpressions" and (
            case.get("enableListTypeAttributes") is False or case.get("enableConsumableCapacity") is False):
        pytest.skip("tests the NewExpressions environment with a feature gate off; celext is StoredExpressions")
    if case.get("generatedByGoCode"):
        case = _generated(case)
    device = {"name": "device", "attributes": case.get("attributes") or {}, "capacity": case.get("capacity") or {}}
    if case.get("allowMultipleAllocations") is not None:
        device["allowMultipleAllocations"] = case["allowMultipleAllocations"]
    driver = case.get("driver") or ""
    if "expectCompileError" in case:
        with pytest.raises(celext.CompileError) as compile_error:
            celext.compile(case["expression"])
        assert case["expectCompileError"] in str(compile_error.value)
        return
    if isinstance(case.get("expectCost"), int) and case["expectCost"] > COST_LIMIT:
        # Kubernetes' compiler reports the estimate and the API server refuses the selector at creation
        # ("too complex, exceeds cost limit"); celext refuses it at compile time, with the same estimate.
        with pytest.raises(CostLimitError) as refused:
            celext.compile(case["expression"])
        assert (refused.value.message, refused.value.cost[1]) == ("too complex, exceeds cost limit", case["expectCost"])
        return
    selector = celext.compile(case["expression"])
    if "expectMatchError" in case:
        with pytest.raises(celext.EvaluationError) as evaluation_error:
            selector.matches(device, driver)
        assert case["expectMatchError"] in str(evaluation_error.value)
        return
    assert selector.matches(device, driver) is case["expectMatch"]
    assert selector.evaluate(device, driver) is case["expectMatch"]  # the unmemoised path agrees
