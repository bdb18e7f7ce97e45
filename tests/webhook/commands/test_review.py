from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from webhook import cli

SAMPLE = REPO / "examples" / "admissionreview-resourceslice.json"
CLAIM = REPO / "examples" / "admissionreview-resourceclaim.json"


def test_a_denied_sample_prints_the_review_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["review", str(SAMPLE)]) == 1
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert (answer["apiVersion"], answer["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
    assert answer["response"]["uid"] == "8a1c6f2e-3b7d-4e59-9d0a-5f1e2c3b4a69"
    assert answer["response"]["allowed"] is False
    assert err == ""


def test_an_allowed_claim_exits_0_and_the_policy_file_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["review", str(CLAIM)]) == 0
    assert json.loads(capsys.readouterr().out)["response"]["warnings"]
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  list-fragile-compare: deny\n")
    assert cli.main(["review", str(CLAIM), "--policy", str(policy)]) == 1


def test_a_kind_the_webhook_does_not_handle_is_allowed_with_a_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(SAMPLE.read_text())
    config_map = {"group": "", "version": "v1", "kind": "ConfigMap"}
    data["request"].update(kind=config_map, resource={"group": "", "version": "v1", "resource": "configmaps"},
                           object={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(data).encode())))
    assert cli.main(["review", "-", "--webhook", "resourceslices"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["response"] == {"uid": data["request"]["uid"], "allowed": True}
    assert err == "draguard: note: v1, Kind=ConfigMap is not handled by this webhook; allowed without checks\n"


def test_a_slice_under_another_kind_is_denied(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(SAMPLE.read_text())
    data["request"]["kind"]["kind"] = "ConfigMap"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(data).encode())))
    assert cli.main(["review", "-", "--webhook", "resourceslices"]) == 1
    assert json.loads(capsys.readouterr().out)["response"]["status"]["message"] == (
        "request.kind ConfigMap does not match request.resource resource.k8s.io/v1/resourceslices "
        "(which holds ResourceSlice)")


def test_a_malformed_file_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"apiVersion": "v1", "kind": "Pod"}')
    assert cli.main(["review", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f'draguard: error: {bad}: HTTP 400: expected admission.k8s.io/v1, Kind=AdmissionReview, got "v1", Kind="Pod"\n'
    )
    missing = tmp_path / "missing.json"
    assert cli.main(["review", str(missing)]) == 2
    assert capsys.readouterr().err == f"draguard: error: {missing}: cannot read: No such file or directory\n"


def test_the_example_policy_turns_the_sample_denial_into_a_warning_and_an_audit_annotation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/webhook.md's `draguard review ... --policy examples/policy.yaml` example, as printed there."""
    assert cli.main(["review", str(SAMPLE), "--policy", str(REPO / "examples" / "policy.yaml")]) == 0
    response = json.loads(capsys.readouterr().out)["response"]
    assert response["allowed"] is True
    assert [w.split("]")[0] for w in response["warnings"]] == ["[numa-node-alias-mismatch"]
    assert list(response["auditAnnotations"]) == ["numa-node-standard-missing"]


def test_a_directory_or_a_bad_policy_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["review", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"draguard: error: {tmp_path}: cannot read: Is a directory\n"
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  no-such-rule: deny\n")
    assert cli.main(["review", str(SAMPLE), "--policy", str(policy)]) == 2
    assert capsys.readouterr().err == (
        f"draguard: error: policy {policy}: rules: unknown rule id 'no-such-rule' (see `draguard rules`)\n"
    )


def _claim_with_selectors(tmp_path: Path, count: int) -> Path:
    data = json.loads(CLAIM.read_text())
    requests = data["request"]["object"]["spec"]["devices"]["requests"]
    selectors = [{"cel": {"expression": f'device.driver == "d{i}.example.com"'}} for i in range(count)]
    # at most 32 selectors per request (DeviceSelectorsMaxSize), so spread over as many requests as it takes
    first = requests[0]
    requests[:1] = [{**first, "name": f"gpu-{n}" if n else "gpu", "exactly": {**first["exactly"],
                                                                              "selectors": selectors[at:at + 32]}}
                    for n, at in enumerate(range(0, count, 32))]
    path = tmp_path / f"claim-{count}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("count", "allowed"), [(127, True), (128, True), (129, False)])
def test_the_webhooks_selector_budget_applies_as_serve_applies_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count: int, allowed: bool
) -> None:
    assert cli.main(["review", str(_claim_with_selectors(tmp_path, count))]) == (0 if allowed else 1)
    response = json.loads(capsys.readouterr().out)["response"]
    assert response["allowed"] is allowed
    if not allowed:
        assert "129 distinct selector expressions exceed this webhook's budget of 128 per object" in \
            response["status"]["message"]


def test_the_budget_flags_are_serves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _claim_with_selectors(tmp_path, 129)
    assert cli.main(["review", str(path), "--max-selectors", "200"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        cli.main(["review", str(path), "--max-selectors", "0"])
    assert done.value.code == 2
    assert "'0' must be at least 1" in capsys.readouterr().err
