"""ResourceClaims, templates and DeviceClasses as the API server judges them, seen through `draguard validate`
(the printed finding and the exit code): a constraint with both matchAttribute and distinctAttribute, empty and
blank selector expressions, a request in the other version's layout, and integral numbers written as floats.
The cases come from a review against kube-apiserver's pkg/apis/resource/validation (1.35 and master)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.cli import main

EXPECTING = ("mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
             "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}")
ONE_OF = "Required value: exactly one of `exactly` or `firstAvailable` is required"


def validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *flags: str) -> tuple[int, list[str]]:
    """Exit code and the finding lines (`deny rule: path: message`, position cut off) of `draguard validate`."""
    path = tmp_path / "objects.yaml"
    path.write_text(text)
    code = main(["validate", str(path), "--no-color", *flags])
    out = capsys.readouterr().out
    lines = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(str(path))]
    return code, lines


def claim(devices: str, api: str = "v1") -> str:
    return (f"apiVersion: resource.k8s.io/{api}\nkind: ResourceClaim\nmetadata: {{name: c, namespace: default}}\n"
            f"spec:\n  devices:\n{devices}")


# -- a constraint with both matchAttribute and distinctAttribute ---------------------------------------------

BOTH = claim("""    requests:
    - name: a
      exactly: {deviceClassName: x}
    constraints:
    - matchAttribute: gpu.example.com/model
      distinctAttribute: uuid
""")


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36", "1.37"])
def test_distinct_attribute_beside_match_attribute_is_not_validated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], release: str) -> None:
    """validateDeviceConstraint: `if MatchAttribute != nil {...} else if DistinctAttribute != nil {...}`. Before
    1.36 DRAConsumableCapacity is off by default, and the 1.35 server drops distinctAttribute before validating;
    1.34's drop assigned to a copy of each constraint (fixed by kubernetes#134962), so 1.34 keeps it."""
    dropped = [f"warn k8s-feature-gate: spec.devices.constraints[0].distinctAttribute: the API server drops this "
               f"field: feature gate DRAConsumableCapacity (alpha in Kubernetes {release}, off by default; this "
               f"cluster: off)"] if release == "1.35" else []
    assert validate(tmp_path, capsys, BOTH, "--kubernetes-version", release) == (1 if dropped else 0, dropped)


def test_match_attribute_is_the_one_validated_when_both_are_set(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BOTH.replace("gpu.example.com/model", "model")
    assert validate(tmp_path, capsys, text) == (1, [
        'deny constraint-attribute-unqualified: spec.devices.constraints[0].matchAttribute: Invalid value: '
        '"model": a fully qualified name must be a domain and a name separated by a slash'])


@pytest.mark.parametrize(("name", "expected"), [
    ("gpu.example.com/uuid", (0, [])),
    ("uuid", (1, ['deny constraint-attribute-unqualified: spec.devices.constraints[0].distinctAttribute: Invalid '
                  'value: "uuid": must include a domain'])),  # 1.34's words (validateFullyQualifiedName)
])
def test_a_1_34_server_keeps_distinct_attribute_with_its_gate_off(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, expected: tuple[int, list[str]]) -> None:
    """1.34's drop was a no-op, so a constraint naming only distinctAttribute is stored with it and validated:
    neither dropped nor refused for naming no attribute (as 1.35 with default gates refuses it)."""
    text = BOTH.replace("    - matchAttribute: gpu.example.com/model\n      distinctAttribute: uuid",
                        f"    - distinctAttribute: {name}")
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.34") == expected
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.35") == (1, [
        "deny constraint-attribute-unqualified: spec.devices.constraints[0].matchAttribute: Required value",
        "warn k8s-feature-gate: spec.devices.constraints[0].distinctAttribute: the API server drops this field: "
        "feature gate DRAConsumableCapacity (alpha in Kubernetes 1.35, off by default; this cluster: off)"])


def test_distinct_attribute_alone_is_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BOTH.replace("    - matchAttribute: gpu.example.com/model\n      distinctAttribute",
                        "    - distinctAttribute")
    assert validate(tmp_path, capsys, text) == (1, [
        'deny constraint-attribute-unqualified: spec.devices.constraints[0].distinctAttribute: Invalid value: '
        '"uuid": a fully qualified name must be a domain and a name separated by a slash'])


# -- a constraint that names no attribute (validateDeviceConstraint's last branches) ------------------------

NEITHER = claim("""    requests:
    - name: a
      exactly: {deviceClassName: x}
    constraints:
    - requests: [a]
""")
DISTINCT = NEITHER + "      distinctAttribute: gpu.example.com/uuid\n"
NO_ATTRIBUTE = ('deny constraint-attribute-unqualified: spec.devices.constraints[0]: Required value: exactly one of '
                '"matchAttribute" or "distinctAttribute" is required, but multiple fields are set')
NO_MATCH = "deny constraint-attribute-unqualified: spec.devices.constraints[0].matchAttribute: Required value"


@pytest.mark.parametrize(("release", "expected"), [("1.35", NO_MATCH), ("1.36", NO_ATTRIBUTE)])
def test_a_constraint_without_an_attribute_is_refused_as_the_release_words_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], release: str, expected: str) -> None:
    """Without DRAConsumableCapacity (off before 1.36) matchAttribute is required; with it, one of the two."""
    assert validate(tmp_path, capsys, NEITHER, "--kubernetes-version", release) == (1, [expected])
    assert validate(tmp_path, capsys, NEITHER, "--kubernetes-version", "1.37", "--feature-gates",
                    "DRAConsumableCapacity=false") == (1, [NO_MATCH])


def test_a_distinct_attribute_the_gate_drops_leaves_the_constraint_without_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The server drops distinctAttribute before validating, so the claim is refused for a missing matchAttribute
    (and the name it dropped is not judged)."""
    text = DISTINCT.replace("gpu.example.com/uuid", "uuid")
    assert validate(tmp_path, capsys, text, "--kubernetes-version", "1.35") == (1, [
        NO_MATCH, "warn k8s-feature-gate: spec.devices.constraints[0].distinctAttribute: the API server drops this "
        "field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.35, off by default; this cluster: off)"])
    assert validate(tmp_path, capsys, DISTINCT, "--kubernetes-version", "1.35", "--feature-gates",
                    "DRAConsumableCapacity=true") == (0, [])
    assert validate(tmp_path, capsys, DISTINCT, "--kubernetes-version", "1.36") == (0, [])


def test_a_stored_claim_that_used_distinct_attribute_keeps_it() -> None:
    from tests.webhook.profiles.conftest import policy_for
    from webhook.manifests import load_text
    from webhook.run import run_rules

    obj = load_text(DISTINCT, "claim.yaml").manifests[0].obj
    assert sorted(f.rule for f in run_rules(obj, policy_for("1.35")).findings) == [
        "constraint-attribute-unqualified", "k8s-feature-gate"]
    assert [f.rule for f in run_rules(obj, policy_for("1.35"), old=obj).findings] == []


# -- a request whose firstAvailable DRAPrioritizedList drops ----------------------------------------------

ALTERNATIVES = claim("""    requests:
    - name: a
      firstAvailable:
      - {name: x, deviceClassName: gpu, selectors: [{cel: {expression: 'device.driver == 1'}}]}
    - name: b
      exactly: {deviceClassName: gpu}
      firstAvailable:
      - {name: "y", deviceClassName: gpu}
""")
GATE_OFF = "feature gate DRAPrioritizedList (GA in Kubernetes 1.36, on by default; this cluster: off)"


def test_requests_are_validated_after_their_alternatives_are_dropped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With the gate off the server drops firstAvailable first: the first request is left with neither form, the
    second with `exactly` alone (valid), and the dropped alternatives' selectors are not compiled."""
    code, lines = validate(tmp_path, capsys, ALTERNATIVES, "--kubernetes-version", "1.36", "--feature-gates",
                           "DRAPrioritizedList=false")
    assert (code, lines) == (1, [
        f"deny selector-required: spec.devices.requests[0]: {ONE_OF} (the API server dropped `firstAvailable`: "
        "DRAPrioritizedList is off in this cluster; see the k8s-feature-gate finding)",
        f"warn k8s-feature-gate: spec.devices.requests[0].firstAvailable: the API server drops this field: {GATE_OFF}",
        f"warn k8s-feature-gate: spec.devices.requests[1].firstAvailable: the API server drops this field: {GATE_OFF}"])
    code, lines = validate(tmp_path, capsys, ALTERNATIVES, "--kubernetes-version", "1.36")
    assert [line.split(":")[0] for line in lines] == ["warn selector-compile", "deny selector-required"]


def test_a_v1beta1_request_left_without_its_alternatives_names_the_gate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = claim("""    requests:
    - name: a
      firstAvailable:
      - {name: x, deviceClassName: gpu}
""", api="v1beta1")
    code, lines = validate(tmp_path, capsys, text, "--kubernetes-version", "1.36", "--feature-gates",
                           "DRAPrioritizedList=false")
    assert (code, lines[0]) == (1, f"deny selector-required: spec.devices.requests[0]: {ONE_OF} (the API server "
                                   "dropped `firstAvailable`: DRAPrioritizedList is off in this cluster; see the "
                                   "k8s-feature-gate finding)")


def test_a_stored_claim_that_used_alternatives_keeps_them() -> None:
    from tests.webhook.profiles.conftest import policy_for
    from webhook.manifests import load_text
    from webhook.run import run_rules

    obj = load_text(ALTERNATIVES, "claim.yaml").manifests[0].obj
    policy = policy_for("1.36", {"DRAPrioritizedList": False})
    assert "selector-required" in {f.rule for f in run_rules(obj, policy).findings}
    kept = run_rules(obj, policy, old=obj).findings
    assert [f.rule for f in kept if f.rule in ("k8s-feature-gate", "selector-required")] == ["selector-required"]
    assert [f.message for f in kept if f.rule == "selector-required"] == [
        "Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"]


# -- empty and blank expressions -----------------------------------------------------------------------------

EMPTY = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: e}
spec:
  selectors:
  - cel: {expression: ""}
  - cel: {expression: "   "}
  - cel: {expression: "\\n\\t"}
  - cel: {}
  - {}
"""


def test_empty_and_blank_expressions_are_compile_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing requires `expression`: the server compiles "" and reports cel-go's error as Invalid value."""
    assert validate(tmp_path, capsys, EMPTY) == (1, [
        f'deny selector-required: spec.selectors[0].cel.expression: Invalid value: "": compilation failed: '
        f"ERROR: <input>:1:1: Syntax error: {EXPECTING}",
        f'deny selector-required: spec.selectors[1].cel.expression: Invalid value: "   ": compilation failed: '
        f"ERROR: <input>:1:4: Syntax error: {EXPECTING}",
        f'deny selector-required: spec.selectors[2].cel.expression: Invalid value: "\\n\\t": compilation failed: '
        f"ERROR: <input>:2:2: Syntax error: {EXPECTING}",
        # an absent expression decodes as "" as well; draguard keeps saying it is missing
        "deny selector-required: spec.selectors[3].cel.expression: Required value",
        "deny selector-required: spec.selectors[4].cel: Required value",
    ])


# -- a request in the other version's layout -----------------------------------------------------------------

FLAT = """    requests:
    - name: a
      deviceClassName: gpu.example.com
      selectors:
      - cel: {expression: 'device.driver == "x"'}
"""
NESTED = """    requests:
    - name: a
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'device.driver =='}
"""


@pytest.mark.parametrize("api", ["v1", "v1beta2"])
def test_a_v1beta1_layout_under_v1_is_no_request(tmp_path: Path, capsys: pytest.CaptureFixture[str], api: str) -> None:
    assert validate(tmp_path, capsys, claim(FLAT, api)) == (1, [
        f"deny selector-required: spec.devices.requests[0]: {ONE_OF} (deviceClassName, selectors sit on the request "
        f"itself, the resource.k8s.io/v1beta1 layout: in v1 they belong under `exactly:`, and the API server drops "
        f"them as unknown fields)",
        'warn k8s-unknown-field: spec.devices.requests[0].deviceClassName: unknown field '
        '"spec.devices.requests[0].deviceClassName"',
        'warn k8s-unknown-field: spec.devices.requests[0].selectors: unknown field '
        '"spec.devices.requests[0].selectors"'])


def test_the_v1beta1_layout_under_v1beta1_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(tmp_path, capsys, claim(FLAT, "v1beta1")) == (0, [])


def test_exactly_under_v1beta1_is_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """v1beta1 has no `exactly`: the decoder drops it with its (broken) selector, and nothing is left."""
    assert validate(tmp_path, capsys, claim(NESTED, "v1beta1")) == (1, [
        f"deny selector-required: spec.devices.requests[0]: {ONE_OF} (`exactly` is a resource.k8s.io/v1 field: "
        f"v1beta1 keeps deviceClassName and selectors on the request itself, and the API server drops `exactly` as "
        f"an unknown field)",
        'warn k8s-unknown-field: spec.devices.requests[0].exactly: unknown field "spec.devices.requests[0].exactly"'])


def test_the_v1_layout_under_v1_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = validate(tmp_path, capsys, claim(NESTED), "--fail-on", "deny")
    assert (code, [line.split(": ", 2)[:2] for line in lines]) == (0, [
        ["warn selector-compile", "spec.devices.requests[0].exactly.selectors[0].cel.expression"]])


@pytest.mark.parametrize("api", ["v1", "v1beta1"])
def test_exactly_and_first_available_together(tmp_path: Path, capsys: pytest.CaptureFixture[str], api: str) -> None:
    request = ("    requests:\n    - name: a\n" + ("      exactly: {deviceClassName: x}\n" if api == "v1" else
                                                   "      deviceClassName: x\n")
               + "      firstAvailable: [{name: b, deviceClassName: x}]\n")
    assert validate(tmp_path, capsys, claim(request, api)) == (1, [
        "deny selector-required: spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or "
        "`firstAvailable` is required, but multiple fields are set"])


def test_a_v1beta1_request_with_only_a_count_still_converts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """hasAnyMainRequestFieldsSet: any device field makes it an `exactly` request, so no request-level error; the
    server then requires its class, and without one v1beta1's defaults leave allocationMode empty."""
    assert validate(tmp_path, capsys, claim("    requests:\n    - {name: a, count: 2}\n", "v1beta1")) == (1, [
        'deny k8s-device-request: spec.devices.requests[0].exactly.allocationMode: Unsupported value: "": supported '
        'values: "All", "ExactCount"',
        "deny k8s-device-request: spec.devices.requests[0].exactly.deviceClassName: Required value"])


# -- integral floats -----------------------------------------------------------------------------------------

WIRE = claim("""    requests:
    - name: a
      exactly: {deviceClassName: x, allocationMode: ExactCount, count: 1.0}
    - name: b
      exactly:
        deviceClassName: x
        count: 2e0
        tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 3.0}]
    - name: c
      exactly: {deviceClassName: x, count: 1.5}
""")


def test_integral_floats_are_integers_as_kubectl_sends_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(tmp_path, capsys, WIRE) == (1, [
        "deny k8s-wire-type: spec.devices.requests[2].exactly.count: Invalid value: 1.5: must be of type integer"])


SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1.0, generation: 2e0}
  nodeName: "n"
  devices:
  - name: d0
    attributes:
      gpu.example.com/x: {int: 3.0}
      gpu.example.com/y: {int: 3.5}
"""


def test_integral_floats_in_a_slice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(tmp_path, capsys, SLICE) == (1, [
        "deny k8s-wire-type: spec.devices[0].attributes[gpu.example.com/y].int: Invalid value: 3.5: must be of type "
        "integer"])


def test_an_integral_float_is_read_as_its_int(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The value the server validates is the int: `0.0` is told `Invalid value: 0`, as Go prints int64(0)."""
    text = SLICE.replace("resourceSliceCount: 1.0", "resourceSliceCount: 0.0").replace(
        "      gpu.example.com/y: {int: 3.5}\n", "")
    assert validate(tmp_path, capsys, text) == (1, [
        "deny k8s-pool: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"])
