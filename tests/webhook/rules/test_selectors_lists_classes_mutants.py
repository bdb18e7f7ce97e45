"""Selectors read per device class: an inventory with two DeviceClasses (each selecting one driver's devices)
and one whose selector does not compile (it selects nothing, so its requests fall back to every device); a claim
whose requests name different classes gets each request's findings counted on that class's candidates. The
findings in full. Named `test_selectors_lists_*` so mutation testing runs it first on
`webhook.rules.selectors_lists`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, device, device_class_with_selector, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

INVENTORY = [
    slice_with(device("a", attributes={"gpu.example.com/model": "A100", "gpu.example.com/mem": 80}),
               device("b", attributes={"gpu.example.com/mem": 40})),
    slice_with(device("d", attributes={"other.example.com/model": "X", "other.example.com/mem": "big"}),
               driver="other.example.com", name="node-0-other"),
    device_class_with_selector('device.driver == "gpu.example.com"', name="gpu.example.com"),
    device_class_with_selector('device.driver == "other.example.com"', name="other.example.com"),
    device_class_with_selector('device.driver ==', name="broken.example.com"),
]
CLAIMS = {
    "two classes reading a model only one device of each lacks": [
        ("gpu.example.com", 'device.attributes["gpu.example.com"].model == "A100"'),
        ("other.example.com", 'device.attributes["gpu.example.com"].model == "A100"')],
    "two classes comparing mem with a string": [
        ("gpu.example.com", 'device.attributes["gpu.example.com"].mem == "big"'),
        ("other.example.com", 'device.attributes["other.example.com"].mem == 1')],
    "a class whose selector does not compile": [
        ("broken.example.com", 'device.attributes["gpu.example.com"].model == "A100"')],
}


def _claim(requests: list[tuple[str, str]]) -> dict[str, Any]:
    claim = claim_with_selector()
    claim["spec"]["devices"]["requests"] = [
        {"name": f"r{i}", "exactly": {"deviceClassName": name, "selectors": [{"cel": {"expression": expression}}]}}
        for i, (name, expression) in enumerate(requests)]
    return claim


CASES = [
    pytest.param('two classes reading a model only one device of each lacks',
                 [('list-fragile-compare', 'R[0].exactly.selectors[0].cel.expression', '`==` on gpu.example.com/model is silently false once the driver publishes it as a list', 'device.attributes["gpu.example.com"].model.includes("A100")   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (43, 45)), ('selector-attribute-missing', 'R[0].exactly.selectors[0].cel.expression', 'gpu.example.com/model is absent on 1 of 2 candidate device(s) (e.g. gpu.example.com/pool-0/b): `device.attributes["gpu.example.com"].model` fails there with no such key, which aborts allocation for the claim', 'guard the read: has(device.attributes["gpu.example.com"].model) && ...', (0, 42)), ('list-fragile-compare', 'R[1].exactly.selectors[0].cel.expression', '`==` on gpu.example.com/model is silently false once the driver publishes it as a list', 'device.attributes["gpu.example.com"].model.includes("A100")   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (43, 45)), ('selector-attribute-missing', 'R[1].exactly.selectors[0].cel.expression', 'gpu.example.com/model is absent on 1 of 1 candidate device(s) (e.g. other.example.com/pool-0/d): `device.attributes["gpu.example.com"].model` fails there with no such key, which aborts allocation for the claim', 'guard the read: has(device.attributes["gpu.example.com"].model) && ...', (0, 42))]),
    pytest.param('two classes comparing mem with a string',
                 [('list-fragile-compare', 'R[0].exactly.selectors[0].cel.expression', '`==` on gpu.example.com/mem is silently false once the driver publishes it as a list', 'device.attributes["gpu.example.com"].mem.includes("big")   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (41, 43)), ('selector-type-mismatch', 'R[0].exactly.selectors[0].cel.expression', 'gpu.example.com/mem is an int on every candidate device that publishes it (2); `==` with a string value never matches it, so this is always false', 'compare with an int value, or check the attribute name', (41, 43)), ('list-fragile-compare', 'R[1].exactly.selectors[0].cel.expression', '`==` on other.example.com/mem is silently false once the driver publishes it as a list', 'device.attributes["other.example.com"].mem.includes(1)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (43, 45)), ('selector-type-mismatch', 'R[1].exactly.selectors[0].cel.expression', 'other.example.com/mem is a string on every candidate device that publishes it (1); `==` with an int value never matches it, so this is always false', 'compare with a string value, or check the attribute name', (43, 45))]),
    pytest.param('a class whose selector does not compile',
                 [('list-fragile-compare', 'R[0].exactly.selectors[0].cel.expression', '`==` on gpu.example.com/model is silently false once the driver publishes it as a list', 'device.attributes["gpu.example.com"].model.includes("A100")   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)', (43, 45))]),
]


@pytest.mark.parametrize(("claim", "expected"), CASES)
def test_findings_per_device_class(claim: str, expected: list[tuple[str, str, str, str, tuple[int, int] | None]]) -> None:
    found = run_rules(_claim(CLAIMS[claim]), Policy.default(), slices=INVENTORY).findings
    assert [(f.rule, str(f.path).replace("spec.devices.requests", "R"), f.message, f.hint, f.span) for f in found] == expected
