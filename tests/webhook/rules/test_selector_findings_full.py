"""Selector findings as a user reads them (rule, path, message, hint): a malformed selector entry (also a wrong
JSON type to the API server's decoder), and a scalar comparison on an attribute some device publishes as a list,
with the rewrite `lint --fix` offers."""

from __future__ import annotations

from typing import Any

from tests.builders import claim_with_selector, device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

SELECTORS = "spec.devices.requests[0].exactly.selectors"
LISTED = [slice_with(device("a", attributes={"gpu.example.com/family": ["ampere", "x"]}))]
WIRE = ("give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and "
        "booleans bare, quantities like `16Gi`")
FIX_NOTE = "(safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)"


def seen(obj: dict[str, Any], slices: list[dict[str, Any]] | None = None) -> list[tuple[str, str, str, str | None]]:
    found = run_rules(obj, Policy.default(), slices=slices or []).findings
    return [(f.rule, str(f.path), f.message, f.hint) for f in found]


def with_selectors(selectors: list[Any]) -> dict[str, Any]:
    claim = claim_with_selector("true")
    claim["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = selectors
    return claim


def test_a_selector_that_is_not_an_object() -> None:
    assert seen(with_selectors(["device.driver == 'x'"])) == [
        ("k8s-wire-type", f"{SELECTORS}[0]", "Invalid value: \"device.driver == 'x'\": must be of type object", WIRE),
        ("selector-required", f"{SELECTORS}[0]", "a selector must be an object with a `cel` field",
         "a selector is `- cel: {expression: <CEL>}`")]


def test_a_cel_field_that_is_not_an_object() -> None:
    assert seen(with_selectors([{"cel": "x"}])) == [
        ("k8s-wire-type", f"{SELECTORS}[0].cel", 'Invalid value: "x": must be of type object', WIRE),
        ("selector-required", f"{SELECTORS}[0].cel", "Required value", "a selector is `- cel: {expression: <CEL>}`")]


def test_equality_on_a_listed_attribute() -> None:
    claim = claim_with_selector('device.attributes["gpu.example.com"].family == "ampere"')
    assert seen(claim, LISTED) == [(
        "list-fragile-compare", f"{SELECTORS}[0].cel.expression",
        "`==` on gpu.example.com/family: gpu.example.com/family is a list on 1 device(s) in the inventory "
        "(e.g. gpu.example.com/pool-0/a), where this is silently false",
        f'device.attributes["gpu.example.com"].family.includes("ampere")   {FIX_NOTE}')]


def test_in_on_a_listed_attribute() -> None:
    claim = claim_with_selector('device.attributes["gpu.example.com"].family in ["ampere", "hopper"]')
    assert seen(claim, LISTED) == [(
        "list-fragile-compare", f"{SELECTORS}[0].cel.expression",
        "`in` on gpu.example.com/family: gpu.example.com/family is a list on 1 device(s) in the inventory "
        "(e.g. gpu.example.com/pool-0/a), where this is silently false",
        '["ampere", "hopper"].exists(v, device.attributes["gpu.example.com"].family.includes(v))   ' + FIX_NOTE)]


def test_includes_on_a_scalar_attribute_is_fine() -> None:
    claim = claim_with_selector('device.attributes["gpu.example.com"].family.includes("ampere")')
    assert seen(claim, [slice_with(device("a", attributes={"gpu.example.com/family": "ampere"}))]) == []
