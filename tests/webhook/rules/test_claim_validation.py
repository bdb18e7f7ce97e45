"""ResourceClaims, templates and DeviceClasses against kube-apiserver's validation (pkg/apis/resource/validation:
validateDeviceClaim, validateDeviceRequest, validateExactDeviceRequest, validateDeviceSubRequest,
validateDeviceAllocationMode, validateDeviceToleration, validateDeviceClaimConfiguration, validateOpaqueConfiguration,
validateRawExtension, validateDeviceClassSpec, ValidateObjectMeta), each limit at limit - 1, the limit and limit + 1,
seen through `draguard validate` as a user sees it: the finding lines and the exit code. Rules: "k8s-device-request",
"k8s-device-constraint", "k8s-device-config", "k8s-device-class", "k8s-object-meta"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webhook.rules.test_claim_server_parity import claim, validate
from webhook.policy import Policy
from webhook.rules.k8s.names import LABEL_ERROR, SUBDOMAIN_ERROR
from webhook.run import run_rules

REQ = "deny k8s-device-request: spec.devices.requests"


def sorted_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *flags: str
                    ) -> tuple[int, list[str]]:
    code, lines = validate(tmp_path, capsys, text, *flags)
    return code, sorted(lines)


def requests(n: int, **exactly: object) -> str:
    fields = ", ".join(f"{k}: {json.dumps(v)}" for k, v in {"deviceClassName": "x", **exactly}.items())
    return "    requests:\n" + "".join(f"    - {{name: r{i}, exactly: {{{fields}}}}}\n" for i in range(n))


def selectors(n: int) -> list[dict[str, dict[str, str]]]:
    return [{"cel": {"expression": f"device.driver == 'd{i}.example.com'"}} for i in range(n)]


# -- list limits: at the limit nothing, past it one `Too many` (1.35+: and nothing about the items) -----------

@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []), (33, [f"{REQ}: Too many: 33: must have at most 32 items"])])
def test_at_most_32_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    assert validate(tmp_path, capsys, claim(requests(n))) == (1 if expected else 0, expected)


def test_past_a_limit_1_35_checks_no_item_and_1_34_checks_every_item(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = claim(requests(33, count=-1))
    too_many = f"{REQ}: Too many: 33: must have at most 32 items"
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.35") == (1, [too_many])
    code, lines = validate(tmp_path, capsys, text, "--kubernetes-version", "1.34")
    assert (code, lines.count(too_many), len(lines)) == (1, 1, 34)


@pytest.mark.parametrize(("n", "expected"), [
    (7, []), (8, []), (9, [f"{REQ}[0].firstAvailable: Too many: 9: must have at most 8 items"])])
def test_at_most_8_first_available_entries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    entries = ", ".join(f"{{name: s{i}, deviceClassName: x}}" for i in range(n))
    text = claim(f"    requests:\n    - {{name: a, firstAvailable: [{entries}]}}\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []), (33, [f"{REQ}[0].exactly.selectors: Too many: 33: must have at most 32 items"])])
def test_at_most_32_selectors_per_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    text = claim(requests(1, selectors=selectors(n)))
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


def device_class(spec: str) -> str:
    return f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: gpu.example.com}}\nspec: {spec}\n"


@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []),
    (33, ["deny k8s-device-class: spec.selectors: Too many: 33: must have at most 32 items"])])
def test_at_most_32_selectors_per_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    text = device_class(json.dumps({"selectors": selectors(n)}))
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


CONFIG = {"opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}


@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []),
    (33, ["deny k8s-device-config: spec.devices.config: Too many: 33: must have at most 32 items"])])
def test_at_most_32_config_entries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    text = claim(requests(1) + "    config: " + json.dumps([CONFIG] * n) + "\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []),
    (33, ["deny k8s-device-constraint: spec.devices.constraints: Too many: 33: must have at most 32 items"])])
def test_at_most_32_constraints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    text = claim(requests(1) + "    constraints: " + json.dumps([{"matchAttribute": "a.example.com/b"}] * n) + "\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


@pytest.mark.parametrize(("n", "expected"), [
    (31, []), (32, []),
    (33, ["deny k8s-device-constraint: spec.devices.constraints[0].requests: Too many: 33: must have at most 32 "
          "items"])])
def test_a_constraint_names_at_most_32_requests_and_past_that_none_is_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, expected: list[str]) -> None:
    names = [f"r{i}" for i in range(n)]  # r32 names no request: not reported once the list is too long
    text = claim(requests(min(n, 32)) + "    constraints: " + json.dumps(
        [{"matchAttribute": "a.example.com/b", "requests": names}]) + "\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


def test_requests_named_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = claim("""    requests:
    - {name: a, exactly: {deviceClassName: x}}
    - {name: a, firstAvailable: [{name: s, deviceClassName: x}, {name: s, deviceClassName: x}]}
    constraints: [{matchAttribute: a.example.com/b, requests: [a, a]}]
    config: [{requests: [a, a], opaque: {driver: d.example.com, parameters: {}}}]
""")
    assert sorted_validate(tmp_path, capsys, text) == (1, [
        'deny k8s-device-config: spec.devices.config[0].requests[1]: Duplicate value: "a"',
        'deny k8s-device-constraint: spec.devices.constraints[0].requests[1]: Duplicate value: "a"',
        f'{REQ}[1].firstAvailable[1]: Duplicate value: "s"',
        f'{REQ}[1]: Duplicate value: "a"'])
    # 1.34's validateSet named the key field of a struct
    assert sorted_validate(tmp_path, capsys, text, "--kubernetes-version", "1.34")[1][2:] == [
        f'{REQ}[1].firstAvailable[1].name: Duplicate value: "s"', f'{REQ}[1].name: Duplicate value: "a"']


# -- names ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "expected"), [
    ("a" * 63, []),
    ("a" * 64, [f'{REQ}[0].name: Invalid value: "{"a" * 64}": must be no more than 63 characters']),
    ("GPU", [f'{REQ}[0].name: Invalid value: "GPU": {LABEL_ERROR}']),
    ('""', [f'{REQ}[0].name: Invalid value: "": {LABEL_ERROR}']),
])
def test_a_request_name_is_a_dns_label(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, expected: list[str]) -> None:
    text = claim(f"    requests:\n    - {{name: {name}, exactly: {{deviceClassName: x}}}}\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


@pytest.mark.parametrize(("name", "expected"), [
    ("a" * 253, []),
    ("a" * 254, [f'{REQ}[0].exactly.deviceClassName: Invalid value: "{"a" * 254}": must be no more than 253 '
                 'characters']),
    ("Gpu", [f'{REQ}[0].exactly.deviceClassName: Invalid value: "Gpu": {SUBDOMAIN_ERROR}']),
    ('""', [f"{REQ}[0].exactly.deviceClassName: Required value"]),
])
def test_a_device_class_name_is_a_dns_subdomain(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, expected: list[str]) -> None:
    text = claim(f"    requests:\n    - {{name: a, exactly: {{deviceClassName: {name}}}}}\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


# -- allocationMode and count, after the defaults (ExactCount, count 1) ---------------------------------------

@pytest.mark.parametrize(("fields", "expected"), [
    ("", []), ("count: 0", []), ("count: 1", []), ("allocationMode: All", []), ("allocationMode: All, count: 0", []),
    ("count: -1", [f"{REQ}[0].exactly.count: Invalid value: -1: must be greater than zero"]),
    ("allocationMode: All, count: 1",
     [f"{REQ}[0].exactly.count: Invalid value: 1: must not be specified when allocationMode is 'All'"]),
    ("allocationMode: all", [f'{REQ}[0].exactly.allocationMode: Unsupported value: "all": supported values: "All", '
                             '"ExactCount"']),
])
def test_allocation_mode_and_count(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fields: str, expected: list[str]) -> None:
    text = claim(f"    requests:\n    - {{name: a, exactly: {{deviceClassName: x, {fields}}}}}\n")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)
    sub = claim(f"    requests:\n    - {{name: a, firstAvailable: [{{name: s, deviceClassName: x, {fields}}}]}}\n")
    assert validate(tmp_path, capsys, sub)[1] == [e.replace("[0].exactly.", "[0].firstAvailable[0].") for e in expected]


# -- tolerations ---------------------------------------------------------------------------------------------

TOL = f"{REQ}[0].exactly.tolerations[0]"
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
               "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@pytest.mark.parametrize(("toleration", "release", "expected"), [
    ("{key: example.com/k, value: v}", "1.37", []),  # operator defaults to Equal
    ("{operator: Exists, effect: NoExecute, tolerationSeconds: 5}", "1.37", []),
    ("{operator: Exists, value: v}", "1.37", [f'{TOL}.value: Invalid value: "v": must be empty for operator `Exists`']),
    ("{operator: Equal, value: 'a b'}", "1.37", [f'{TOL}.value: Invalid value: "a b": {LABEL_VALUE}']),
    ("{operator: In}", "1.37", [f'{TOL}.operator: Unsupported value: "In": supported values: "Equal", "Exists"']),
    ("{key: 'a b', operator: Exists}", "1.37", [f'{TOL}.key: Invalid value: "a b": {NAME_PART}']),
    ("{operator: Exists, effect: None}", "1.37", []),
    ("{operator: Exists, effect: None}", "1.34", [
        f'{TOL}.effect: Unsupported value: "None": supported values: "NoExecute", "NoSchedule"']),
    ("{operator: Exists, effect: PreferNoSchedule}", "1.36", [
        f'{TOL}.effect: Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"']),
])
def test_tolerations(tmp_path: Path, capsys: pytest.CaptureFixture[str], toleration: str, release: str,
                     expected: list[str]) -> None:
    text = claim(f"    requests:\n    - {{name: a, exactly: {{deviceClassName: x, tolerations: [{toleration}]}}}}\n")
    # 1.34 drops tolerations (DRADeviceTaints alpha): turn the gate on there, as a cluster using them would
    gates = ["--feature-gates", "DRADeviceTaints=true"] if release == "1.34" else []
    assert validate(tmp_path, capsys, text, "--kubernetes-version", release, *gates) == (
        1 if expected else 0, expected)




def test_tolerations_the_gate_drops_are_not_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = claim("    requests:\n    - {name: a, exactly: {deviceClassName: x, tolerations: [{operator: In}]}}\n")
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.34") == (1, [
        "warn k8s-feature-gate: spec.devices.requests[0].exactly.tolerations: the API server drops this field: "
        "feature gate DRADeviceTaints (alpha in Kubernetes 1.34, off by default; this cluster: off)"])


# -- config --------------------------------------------------------------------------------------------------

CFG = "deny k8s-device-config: spec.devices.config[0].opaque"


def parameters_of(size: int) -> dict[str, str]:
    """An object whose compact JSON (what kubectl sends) is `size` bytes: {"k":"..."} is 8 bytes plus the text."""
    return {"k": "a" * (size - 8)}


@pytest.mark.parametrize(("parameters", "expected"), [
    (parameters_of(10 * 1024 - 1), []),
    (parameters_of(10 * 1024), []),
    (parameters_of(10 * 1024 + 1), [f"{CFG}.parameters: Too long: may not be more than 10240 bytes"]),
    ({}, []),
    ([1], [f'{CFG}.parameters: Invalid value: "<value omitted>": must be a valid JSON object']),
    ("x", [f'{CFG}.parameters: Invalid value: "<value omitted>": must be a valid JSON object']),
    (None, [f"{CFG}.parameters: Required value"]),
])
def test_opaque_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str], parameters: object,
                           expected: list[str]) -> None:
    config = [{"opaque": {"driver": "gpu.example.com", "parameters": parameters}}]
    assert validate(tmp_path, capsys, claim(requests(1) + f"    config: {json.dumps(config)}\n")) == (
        1 if expected else 0, expected)


@pytest.mark.parametrize(("driver", "expected"), [
    ("d" * 63, []), ("GPU.Example.com", []),  # ValidateCSIDriverName checks the lower-cased name
    ("d" * 64, [f"{CFG}.driver: Too long: may not be more than 63 bytes"]),
    ("", [f"{CFG}.driver: Required value", f'{CFG}.driver: Invalid value: "": {SUBDOMAIN_ERROR}']),
])
def test_opaque_driver(tmp_path: Path, capsys: pytest.CaptureFixture[str], driver: str, expected: list[str]) -> None:
    config = [{"opaque": {"driver": driver, "parameters": {}}}]
    code, lines = validate(tmp_path, capsys, claim(requests(1) + f"    config: {json.dumps(config)}\n"))
    assert (code, sorted(lines)) == (1 if expected else 0, sorted(expected))


def test_a_config_entry_needs_opaque(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = device_class('{config: [{}, {opaque: {driver: d.example.com, parameters: {a: 1}}}]}')
    assert validate(tmp_path, capsys, text) == (1, ["deny k8s-device-config: spec.config[0].opaque: Required value"])


# -- DeviceClass extendedResourceName (DRAExtendedResource) ------------------------------------------------

@pytest.mark.parametrize(("name", "ok"), [
    ("example.com/gpu", True), ("gpu", False), ("kubernetes.io/gpu", False), ("foo.kubernetes.io/gpu", False),
    ("requests.example.com/gpu", False), ("example.com/" + "g" * 63, True), ("example.com/" + "g" * 64, False),
    ("example.com/gpu-", False)])
def test_extended_resource_name(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, ok: bool) -> None:
    text = device_class(json.dumps({"extendedResourceName": name}))
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.37") == (0, []) if ok else (1, [
        f'deny k8s-device-class: spec.extendedResourceName: Invalid value: "{name}": must be a valid extended '
        f"resource name"])


# -- metadata -------------------------------------------------------------------------------------------------

def test_metadata_of_a_claim_a_template_and_a_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
            "metadata: {name: Bad_Name, namespace: ml, labels: {'a b': x}}\n"
            "spec:\n  metadata: {name: Not_Checked, labels: {ok: 'a b'}}\n  spec: {devices: {requests: []}}\n")
    assert sorted_validate(tmp_path, capsys, text) == (1, [
        f'deny k8s-object-meta: metadata.labels: Invalid value: "a b": {NAME_PART}',
        f'deny k8s-object-meta: metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_ERROR}',
        f'deny k8s-object-meta: spec.metadata.labels: Invalid value: "a b": {LABEL_VALUE}'])
    text = device_class("{}").replace("{name: gpu.example.com}", "{generateName: gpu-}")
    assert validate(tmp_path, capsys, text) == (0, [])
    text = device_class("{}").replace("{name: gpu.example.com}", "{namespace: x}")
    assert validate(tmp_path, capsys, text) == (1, [
        "deny k8s-object-meta: metadata.name: Required value: name or generateName is required"])


@pytest.mark.parametrize(("size", "expected"), [
    (256 * 1024, []),
    (256 * 1024 + 1, ["deny k8s-object-meta: metadata.annotations: Too long: may not be more than 262144 bytes"])])
def test_annotations_at_most_256_kib(tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int,
                                     expected: list[str]) -> None:
    annotations = f"annotations: {{k: {'a' * (size - 1)}}}"  # key and value bytes together
    text = claim(requests(1)).replace("namespace: default}", f"namespace: default, {annotations}}}")
    assert validate(tmp_path, capsys, text) == (1 if expected else 0, expected)


# -- versions and updates --------------------------------------------------------------------------------------

def test_v1beta1_errors_name_the_fields_under_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ResourceNormalizationRules: a v1beta1 request's own fields are reported under `exactly`."""
    text = claim("    requests:\n    - {name: a, deviceClassName: x, allocationMode: All, count: 2}\n"
                 "    - {name: b, deviceClassName: x, count: 0}\n", "v1beta1")
    assert validate(tmp_path, capsys, text) == (1, [
        f"{REQ}[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"])


BAD_CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "d"},
             "spec": {"devices": {"requests": [{"name": "A", "exactly": {"deviceClassName": "x", "count": -1}}]}}}
PARITY = {"k8s-device-request", "k8s-object-meta", "k8s-immutable", "k8s-device-config"}


def update_findings(new: dict[str, object], old: dict[str, object], release: str,
                    **gates: bool) -> list[tuple[str, str, str]]:
    policy = Policy.default().with_profile(release, gates) if gates else Policy.default().with_profile(release)
    return sorted((f.rule, str(f.path), f.message) for f in run_rules(new, policy, old=old).findings
                  if f.rule in PARITY)


@pytest.mark.parametrize(("release", "revalidated"), [("1.34", True), ("1.35", False), ("1.36", False),
                                                      ("1.37", False)])
def test_a_claim_update_validates_the_spec_again_only_in_1_34(release: str, revalidated: bool) -> None:
    """1.34's strategy runs ValidateResourceClaim on the new claim before ValidateResourceClaimUpdate; from 1.35
    (kubernetes#134093, #134412) an unchanged spec is not judged again. The runner's ratchet then makes the
    finding the stored claim already had a warning."""
    found = update_findings(BAD_CLAIM, BAD_CLAIM, release)
    assert [rule for rule, _path, _message in found] == (["k8s-device-request"] * 2 if revalidated else [])


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36", "1.37"])
def test_a_template_update_validates_the_spec_in_every_release(release: str) -> None:
    """ResourceClaimTemplate's strategy runs ValidateResourceClaimTemplate on the new template in 1.34-1.37."""
    bad = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
           "metadata": {"name": "t", "namespace": "d"}, "spec": {"spec": BAD_CLAIM["spec"]}}
    assert {rule for rule, _path, _message in update_findings(bad, bad, release)} == {"k8s-device-request"}


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36", "1.37"])
def test_a_changed_claim_spec_is_immutable_in_every_release(release: str) -> None:
    old = {**BAD_CLAIM, "spec": {"devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "x"}}]}}}
    new = {**BAD_CLAIM, "spec": {"devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "y"}}]}}}
    assert update_findings(new, old, release) == [("k8s-immutable", "spec", "Invalid value: null: field is immutable")]


@pytest.mark.parametrize(("gate", "immutable"), [(False, False), (True, True)])
def test_a_field_the_server_drops_does_not_change_the_spec(gate: bool, immutable: bool) -> None:
    """PrepareForUpdate drops adminAccess with DRAAdminAccess off (the stored claim does not use it) before the
    spec is compared: the update then changes nothing."""
    old = {**BAD_CLAIM, "spec": {"devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "x"}}]}}}
    new = {**BAD_CLAIM, "spec": {"devices": {"requests": [
        {"name": "a", "exactly": {"deviceClassName": "x", "adminAccess": True}}]}}}
    expected = [("k8s-immutable", "spec", "Invalid value: null: field is immutable")] if immutable else []
    assert update_findings(new, old, "1.35", DRAAdminAccess=gate) == expected


@pytest.mark.parametrize(("old_access", "new_access"), [(None, False), (False, None), (True, False)])
def test_admin_access_set_to_false_differs_from_unset(old_access: bool | None, new_access: bool | None) -> None:
    """adminAccess is a pointer: false is set, and differs from unset."""
    def with_access(value: bool | None) -> dict[str, object]:
        exactly: dict[str, object] = {"deviceClassName": "x"}
        if value is not None:
            exactly["adminAccess"] = value
        return {**BAD_CLAIM, "spec": {"devices": {"requests": [{"name": "a", "exactly": exactly}]}}}

    assert update_findings(with_access(new_access), with_access(old_access), "1.37") == [
        ("k8s-immutable", "spec", "Invalid value: null: field is immutable")]


@pytest.mark.parametrize(("release", "checked"), [("1.34", True), ("1.35", False), ("1.37", False)])
def test_a_device_class_keeping_its_config_is_size_checked_again_only_in_1_34(release: str, checked: bool) -> None:
    """1.34 runs ValidateDeviceClass (no old spec) on update too; 1.35+ only ValidateDeviceClassUpdate, which does
    not size-check a config equal to the stored one."""
    big = {"opaque": {"driver": "gpu.example.com", "parameters": {"blob": "x" * (10 * 1024)}}}
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
           "spec": {"config": [big]}}
    found = update_findings(cls, cls, release)
    assert found == ([("k8s-device-config", "spec.config[0].opaque.parameters",
                       "Too long: may not be more than 10240 bytes (already present before this update)")]
                     if checked else [])


def test_validate_has_no_old_object_and_reports_no_immutability(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`draguard validate` judges files as a create: nothing is immutable there."""
    text = claim(requests(1)) + "---\n" + claim(requests(1)).replace("{deviceClassName: \"x\"}", "{deviceClassName: z}")
    assert validate(tmp_path, capsys, text) == (0, [])

# -- past a limit, 1.35+ validates no item: no selector or constraint findings about them either ---------------

BROKEN = "device.driver == "  # selector-compile (warn) wherever the server compiles it


def selector_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if "selector-compile" in line or "constraint-" in line]


@pytest.mark.parametrize(("n", "release", "compiled"), [
    (31, "1.35", 31), (32, "1.35", 32), (33, "1.35", 0), (33, "1.37", 0), (33, "1.34", 33)])
def test_requests_past_their_limit_have_no_selector_findings_from_1_35(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, release: str, compiled: int) -> None:
    text = claim(requests(n, selectors=[{"cel": {"expression": BROKEN}}]))
    _code, lines = validate(tmp_path, capsys, text, "--kubernetes-version", release)
    assert len(selector_lines(lines)) == compiled
    assert (f"{REQ}: Too many: {n}: must have at most 32 items" in lines) == (n > 32)


@pytest.mark.parametrize(("n", "release", "compiled"), [
    (31, "1.35", 31), (32, "1.35", 32), (33, "1.35", 0), (33, "1.34", 33)])
def test_selectors_past_their_limit_are_not_compiled_from_1_35(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, release: str, compiled: int) -> None:
    broken = [{"cel": {"expression": BROKEN + str(i) + " +"}} for i in range(n)]
    _code, lines = validate(tmp_path, capsys, claim(requests(1, selectors=broken)), "--kubernetes-version", release)
    assert len(selector_lines(lines)) == compiled
    assert (f"{REQ}[0].exactly.selectors: Too many: {n}: must have at most 32 items" in lines) == (n > 32)


@pytest.mark.parametrize(("n", "release", "compiled"), [(7, "1.35", 7), (8, "1.35", 8), (9, "1.35", 0),
                                                        (9, "1.34", 9)])
def test_first_available_past_its_limit_is_not_compiled_from_1_35(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, release: str, compiled: int) -> None:
    entries = ", ".join(f"{{name: s{i}, deviceClassName: x, selectors: [{{cel: {{expression: '{BROKEN}'}}}}]}}"
                        for i in range(n))
    text = claim(f"    requests:\n    - {{name: a, firstAvailable: [{entries}]}}\n")
    _code, lines = validate(tmp_path, capsys, text, "--kubernetes-version", release)
    assert len(selector_lines(lines)) == compiled


@pytest.mark.parametrize(("n", "release", "named"), [(31, "1.35", 31), (32, "1.35", 32), (33, "1.35", 0),
                                                     (33, "1.34", 33)])
def test_constraints_past_their_limit_are_not_validated_from_1_35(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, release: str, named: int) -> None:
    """Each constraint names an unknown request and an unqualified attribute; past 32 constraints 1.35+ reports
    `Too many` alone."""
    constraints = "    constraints:\n" + "".join(f"    - {{requests: [nope], matchAttribute: model{i}}}\n"
                                                for i in range(n))
    _code, lines = validate(tmp_path, capsys, claim(requests(1) + constraints), "--kubernetes-version", release)
    assert len([line for line in lines if "constraint-request-unknown" in line]) == named
    assert len([line for line in lines if "constraint-attribute-unqualified" in line]) == named
    too_many = "deny k8s-device-constraint: spec.devices.constraints: Too many: 33: must have at most 32 items"
    assert (too_many in lines) == (n > 32)
