"""Selector findings in full (rule, field path, message, hint) for small claims, templates and device classes:
missing and uncompilable expressions, unqualified constraint names, the draft `include()`, pinned NUMA nodes.
Fast through `run_rules`, so mutation testing runs them first on `webhook.rules.selectors*` (tests/mutation)."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, device_class_with_selector
from tests.webhook.rules.slice_cases import Found, findings

CASES = [
    pytest.param(device_class_with_selector(), {'spec': {'selectors': [{'cel': {}}]}},
                 [('selector-required', 'spec.selectors[0].cel.expression', 'Required value', 'a selector is `- cel: {expression: <CEL>}`')],
                 id='class selector without expression'),
    pytest.param(device_class_with_selector('device.driver =='), None,
                 [('selector-compile', 'spec.selectors[0].cel.expression', 'compilation failed: Syntax error: unexpected end of input', 'the API server rejects a selector that does not compile')],
                 id='class selector not compiling'),
    pytest.param(claim_with_selector('device.driver == "gpu.example.com"', constraints=[{'matchAttribute': 'numa'}]), None,
                 [('constraint-attribute-unqualified', 'spec.devices.constraints[0].matchAttribute', 'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash', "qualify it with the driver's domain, e.g. <driver>/numa, or use resource.kubernetes.io/numaNode")],
                 id='claim unqualified numa constraint'),
    pytest.param(claim_with_selector('device.driver == "gpu.example.com"', constraints=[{'matchAttribute': 'model'}]), None,
                 [('constraint-attribute-unqualified', 'spec.devices.constraints[0].matchAttribute', 'Invalid value: "model": a fully qualified name must be a domain and a name separated by a slash', "qualify it with the driver's domain, e.g. <driver>/model")],
                 id='claim unqualified other constraint'),
    pytest.param(claim_with_selector('device.driver == 1'), None,
                 [('selector-compile', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', "compilation failed: found no matching overload for '_==_' applied to '(string, int)'", 'the API server rejects a selector that does not compile')],
                 id='claim selector wrong type'),
    pytest.param(claim_with_selector('device.attributes["gpu.example.com"].models.include("a")'), None,
                 [('selector-includes-spelling', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', "`include()` is the KEP-5491 draft spelling; Kubernetes only declares `includes()`, so the API server rejects this selector (undeclared reference to 'include')", 'device.attributes["gpu.example.com"].models.includes(...)   (safe fix: draguard lint --fix)')],
                 id='claim include misuse'),
    pytest.param(claim_with_selector('device.attributes.model == "a"'), None,
                 [('selector-compile', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', "compilation failed: found no matching overload for '_==_' applied to '(map(string, dyn), string)'", 'the API server rejects a selector that does not compile')],
                 id='claim attribute without domain'),
    pytest.param(claim_with_selector('device.attributes.?model.orValue("") == "a"'), None,
                 [('selector-compile', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', "compilation failed: found no matching overload for 'orValue' applied to 'optional_type(map(string, dyn)).(string)'", 'the API server rejects a selector that does not compile')],
                 id='claim optional attribute without domain'),
    pytest.param(claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode == 0'), None,
                 [('list-fragile-compare', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', '`==` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', 'device.attributes["resource.kubernetes.io"].numaNode.includes(0)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)'), ('selector-numa-pinned', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]')],
                 id='claim numa pinned'),
    pytest.param(claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode in [0, true]'), None,
                 [('list-fragile-compare', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', '`in` on resource.kubernetes.io/numaNode is silently false once the driver publishes it as a list', '[0, true].exists(v, device.attributes["resource.kubernetes.io"].numaNode.includes(v))   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)'), ('selector-compile', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', "compilation failed: expected type 'int' but found 'bool'", 'the API server rejects a selector that does not compile'), ('selector-numa-pinned', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]')],
                 id='claim numa pinned list'),
    pytest.param(claim_with_selector('device.attributes["gpu.example.com"].numa == 0'), None,
                 [('list-fragile-compare', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', '`==` on gpu.example.com/numa is silently false once the driver publishes it as a list', 'device.attributes["gpu.example.com"].numa.includes(0)   (safe fix: draguard lint --fix; includes() needs Kubernetes with the DRAListTypeAttributes feature gate)'), ('selector-numa-pinned', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'the selector pins gpu.example.com/numa to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]'), ('selector-vendor-numa', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'gpu.example.com/numa is a vendor NUMA attribute; KEP-6072 standardises resource.kubernetes.io/numaNode, which every updated driver publishes and which lines devices of different drivers up', 'device.attributes["resource.kubernetes.io"].numaNode (check your drivers publish it)')],
                 id='claim vendor numa'),
    pytest.param(claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode.includes(0)'), None,
                 [('selector-numa-pinned', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'the selector pins resource.kubernetes.io/numaNode to NUMA node 0: node ids differ between machines, so this claim only fits nodes with that layout', 'align devices with a constraint instead: constraints: [{matchAttribute: resource.kubernetes.io/numaNode}]')],
                 id='claim includes on scalar'),
    pytest.param(claim_with_selector('device.driver == 1', kind='ResourceClaimTemplate'), None,
                 [('selector-compile', 'spec.spec.devices.requests[0].exactly.selectors[0].cel.expression', "compilation failed: found no matching overload for '_==_' applied to '(string, int)'", 'the API server rejects a selector that does not compile')],
                 id='template selector'),
]


@pytest.mark.parametrize(("obj", "override", "expected"), CASES)
def test_selector_findings_in_full(obj: dict[str, Any], override: dict[str, Any] | None, expected: Found) -> None:
    assert findings({**obj, **(override or {})}) == expected
