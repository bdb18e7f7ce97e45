"""Where selectors sit: a DeviceClass's `spec.selectors`, a v1beta1 request's selectors beside its class, and
firstAvailable subrequests (after one that is not an object); in each, a selector that does not compile and the
four malformed entries (not an object, `cel` not an object, `expression` beside `cel`, a blank expression), with
their paths in full. Where the API server's decoder reads the entries, the two of the wrong JSON type are
`k8s-wire-type` findings only. The same request in a v1 claim is no request there (its decoder drops the fields):
one selector-required finding at the request, the API server's validateDeviceRequest error.
Named `test_selectors_sites_*` so mutation testing runs it first on `webhook.rules.selectors_sites`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, device_class_with_selector
from webhook.policy import Policy
from webhook.rules.k8s.schema import DROPPED
from webhook.run import run_rules

BAD = [{"cel": {"expression": "device.driver =="}}, "x", {"cel": "x"}, {"expression": "true"},
       {"cel": {"expression": " "}}]
SHAPE = "a selector is `- cel: {expression: <CEL>}`"
WIRE = ("give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and "
        "booleans bare, quantities like `16Gi`")
Found = tuple[str, str, str, str, tuple[int, int] | None]


def _unknown(path: str) -> Found:
    return ("k8s-unknown-field", path, f'unknown field "{path}"', DROPPED, None)


def _wire(path: str, shown: str) -> list[Found]:
    return [("k8s-wire-type", path, f"Invalid value: {shown}: must be of type object", WIRE, None)]


def _expected(at: str, decoded: bool = True, written: str | None = None) -> list[Found]:
    """`at`: where the server's validation says the selectors are; `written`: where its decoder reads them, when
    that differs (a v1beta1 request is validated converted, its selectors under `exactly`)."""
    wire_at = written or at
    return [
        ("selector-compile", f"{at}[0].cel.expression", "compilation failed: Syntax error: unexpected end of input",
         "the API server rejects a selector that does not compile", (16, 16)),
        # the decoder refuses the two of the wrong JSON type (k8s-wire-type alone); where it reads nothing
        # (k8s-wire-type off or suppressed) selector-required reports them
        *(_wire(f"{wire_at}[1]", '"x"') if decoded else
          [("selector-required", f"{at}[1]", "a selector must be an object with a `cel` field", SHAPE, None)]),
        *(_wire(f"{wire_at}[2].cel", '"x"') if decoded else
          [("selector-required", f"{at}[2].cel", "Required value", SHAPE, None)]),
        ("selector-required", f"{at}[3].cel",
         "Required value (`expression` sits beside `cel` instead of under it: indent it below `cel:`)", SHAPE, None),
        *([_unknown(f"{wire_at}[3].expression")] if decoded else []),
        ("selector-required", f"{at}[4].cel.expression",
         "Invalid value: \" \": compilation failed: ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' "
         "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
         "BYTES, IDENTIFIER}", SHAPE, None),
    ]


def _claim(request: dict[str, Any], api_version: str = "resource.k8s.io/v1") -> dict[str, Any]:
    claim = claim_with_selector()
    claim["apiVersion"] = api_version
    claim["spec"]["devices"]["requests"] = [request]
    return claim


def _class() -> dict[str, Any]:
    device_class = device_class_with_selector()
    device_class["spec"]["selectors"] = BAD
    return device_class


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(_class(), _expected("spec.selectors"), id="a device class"),
    pytest.param(_claim({"name": "r", "deviceClassName": "gpu.example.com", "selectors": BAD},
                        "resource.k8s.io/v1beta1"),
                 _expected("spec.devices.requests[0].exactly.selectors", written="spec.devices.requests[0].selectors"),
                 id="a v1beta1 request"),
    pytest.param(_claim({"name": "r", "deviceClassName": "gpu.example.com", "selectors": BAD}),
                 [("selector-required", "spec.devices.requests[0]",
                   "Required value: exactly one of `exactly` or `firstAvailable` is required (deviceClassName, "
                   "selectors sit on the request itself, the resource.k8s.io/v1beta1 layout: in v1 they belong "
                   "under `exactly:`, and the API server drops them as unknown fields)", SHAPE, None),
                  _unknown("spec.devices.requests[0].deviceClassName"), _unknown("spec.devices.requests[0].selectors")],
                 id="a v1beta1-shaped request in a v1 claim"),
    pytest.param(_claim({"name": "r", "firstAvailable": [3, {"name": "s", "deviceClassName": "gpu.example.com",
                                                             "selectors": BAD}]}),
                 _wire("spec.devices.requests[0].firstAvailable[0]", "3")
                 + _expected("spec.devices.requests[0].firstAvailable[1].selectors"), id="a firstAvailable subrequest"),
])
def test_selectors_where_they_sit(obj: dict[str, Any], expected: list[Found]) -> None:
    found = run_rules(obj, Policy.default()).findings
    # (sorted: findings come out by path, and a v1beta1 request's two kinds of path sort apart)
    assert sorted((f.rule, str(f.path), f.message, f.hint, f.span) for f in found) == sorted(expected)
