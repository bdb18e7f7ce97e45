"""Fields behind feature gates with a gate off: dropped with a `k8s-feature-gate` finding on every device and
capacity entry that sets them, kept on UPDATE when the old slice already used them (upstream's
dra*FeatureInUse ratchet). Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.gates` (tests/mutation)."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, changed
from webhook.policy import Policy
from webhook.run import run_rules

OFF = Policy.default().with_profile("1.37", gates={"DRAConsumableCapacity": False})

CASES = [
    pytest.param({'spec.devices[0].allowMultipleAllocations': True, 'spec.devices[0].capacity': {'a': {'value': '1'}, 'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}, 'zz': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}},
                 None,
                 [('k8s-feature-gate', 'spec.devices[0].allowMultipleAllocations', 'the API server drops this field: feature gate DRAConsumableCapacity (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.devices[0].capacity[mem].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.devices[0].capacity[zz].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='request policy on two capacities'),
    pytest.param({'spec.devices': [{'name': 'a', 'capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}}, {'name': 'b', 'capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}}]},
                 None,
                 [('k8s-feature-gate', 'spec.devices[0].capacity[mem].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.devices[1].capacity[mem].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='request policy on two devices'),
    pytest.param({'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}},
                 {'spec.devices[0].capacity': {'mem': {'value': '8Gi', 'requestPolicy': {'default': '1Gi'}}}},
                 [('k8s-capacity', 'spec.devices[0].capacity[mem].requestPolicy', 'Forbidden: allowMultipleAllocations must be true', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='request policy kept when the old slice used it'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': True},
                 {'spec.devices': [{'name': 'x'}, {'name': 'y', 'allowMultipleAllocations': True}]},
                 [],
                 id='allow multiple kept when the old slice used it'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind'},
                 {'spec.partitionTypeAttribute': 'gpu.example.com/other'},
                 [('k8s-partition-type-attribute', 'spec.partitionTypeAttribute', 'Invalid value: "gpu.example.com/kind": may only be set on a slice which declares devices that consume counters', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='partition type kept when the old slice used it'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind'},
                 {},
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition type dropped when the old slice did not use it'),
    pytest.param({'spec.devices': [{'name': 'd0'}, {'name': 'd1'}, {'name': 'd2'}, {'name': 'd3'}, {'name': 'd4'}, {'name': 'd5'}, {'name': 'd6'}, {'name': 'd7'}, {'name': 'd8'}, {'name': 'd9'}, {'name': 'd10'}, {'name': 'd11'}, {'name': 'd12'}, {'name': 'd13'}, {'name': 'd14'}, {'name': 'd15'}, {'name': 'd16'}, {'name': 'd17'}, {'name': 'd18'}, {'name': 'd19'}, {'name': 'd20'}, {'name': 'd21'}, {'name': 'd22'}, {'name': 'd23'}, {'name': 'd24'}, {'name': 'd25'}, {'name': 'd26'}, {'name': 'd27'}, {'name': 'd28'}, {'name': 'd29'}, {'name': 'd30'}, {'name': 'd31'}, {'name': 'd32'}, {'name': 'd33'}, {'name': 'd34'}, {'name': 'd35'}, {'name': 'd36'}, {'name': 'd37'}, {'name': 'd38'}, {'name': 'd39'}, {'name': 'd40'}, {'name': 'd41'}, {'name': 'd42'}, {'name': 'd43'}, {'name': 'd44'}, {'name': 'd45'}, {'name': 'd46'}, {'name': 'd47'}, {'name': 'd48'}, {'name': 'd49'}, {'name': 'd50'}, {'name': 'd51'}, {'name': 'd52'}, {'name': 'd53'}, {'name': 'd54'}, {'name': 'd55'}, {'name': 'd56'}, {'name': 'd57'}, {'name': 'd58'}, {'name': 'd59'}, {'name': 'd60'}, {'name': 'd61'}, {'name': 'd62'}, {'name': 'd63'}, {'name': 'd64'}, {'name': 'd65'}, {'name': 'd66'}, {'name': 'd67'}, {'name': 'd68'}, {'name': 'd69'}, {'name': 'd70'}, {'name': 'd71'}, {'name': 'd72'}, {'name': 'd73'}, {'name': 'd74'}, {'name': 'd75'}, {'name': 'd76'}, {'name': 'd77'}, {'name': 'd78'}, {'name': 'd79'}, {'name': 'd80'}, {'name': 'd81'}, {'name': 'd82'}, {'name': 'd83'}, {'name': 'd84'}, {'name': 'd85'}, {'name': 'd86'}, {'name': 'd87'}, {'name': 'd88'}, {'name': 'd89'}, {'name': 'd90'}, {'name': 'd91'}, {'name': 'd92'}, {'name': 'd93'}, {'name': 'd94'}, {'name': 'd95'}, {'name': 'd96'}, {'name': 'd97'}, {'name': 'd98'}, {'name': 'd99'}, {'name': 'd100'}, {'name': 'd101'}, {'name': 'd102'}, {'name': 'd103'}, {'name': 'd104'}, {'name': 'd105'}, {'name': 'd106'}, {'name': 'd107'}, {'name': 'd108'}, {'name': 'd109'}, {'name': 'd110'}, {'name': 'd111'}, {'name': 'd112'}, {'name': 'd113'}, {'name': 'd114'}, {'name': 'd115'}, {'name': 'd116'}, {'name': 'd117'}, {'name': 'd118'}, {'name': 'd119'}, {'name': 'd120'}, {'name': 'd121'}, {'name': 'd122'}, {'name': 'd123'}, {'name': 'd124'}, {'name': 'd125'}, {'name': 'd126'}, {'name': 'd127'}, {'name': 'd128'}]},
                 None,
                 [('k8s-device-count', 'spec.devices', 'Too many: 129: must have at most 128 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='too many devices explained'),
]


@pytest.mark.parametrize(("changes", "old_changes", "expected"), CASES)
def test_gated_fields_in_full(changes: dict[str, Any], old_changes: dict[str, Any] | None, expected: Found) -> None:
    old = changed(old_changes) if old_changes is not None else None
    outcome = run_rules(changed(changes), OFF, old=old)
    assert [(f.rule, str(f.path), f.message, f.hint) if f.hint else (f.rule, str(f.path), f.message)
            for f in outcome.findings] == expected
