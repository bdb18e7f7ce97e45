"""`draguard explain`: in-process runs with exact output, plus the topology-co-placement corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webhook import cli

NUMA = "resource.kubernetes.io/numaNode"

SLICES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-n1}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-1
    attributes:
      resource.kubernetes.io/numaNode: {ints: [1, 0, 2, 3]}
  - name: gpu-5
    attributes:
      resource.kubernetes.io/numaNode: {ints: [5, 4, 6, 7]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nic-n1}
spec:
  driver: dra.net
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: nic-6
    attributes:
      resource.kubernetes.io/numaNode: {ints: [6, 4, 5, 7]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: cpu-n1}
spec:
  driver: dra.cpu
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: cpu-0
    attributes:
      numaNode: {int: 0}
      resource.kubernetes.io/numaNode: {int: 0}
  - name: cpu-4
    attributes:
      numaNode: {int: 4}
      resource.kubernetes.io/numaNode: {int: 4}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: cpu-n2}
spec:
  driver: dra.cpu
  nodeName: n2
  pool: {name: n2, generation: 1, resourceSliceCount: 1}
  devices:
  - name: cpu-0
    attributes:
      resource.kubernetes.io/numaNode: {int: 0}
"""

CLASSES = "".join(
    f"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: {name}}}\n"
    f"spec:\n  selectors:\n  - cel: {{expression: 'device.driver == \"{name}\"'}}\n"
    for name in ("gpu.example.com", "dra.net", "dra.cpu")
)

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: numa, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
    - name: nic
      exactly: {deviceClassName: dra.net}
    - name: cpu
      exactly:
        deviceClassName: dra.cpu
        selectors:
        - cel: {expression: 'device.attributes["dra.cpu"].numaNode >= 0'}
    constraints:
    - matchAttribute: resource.kubernetes.io/numaNode
      requests: [gpu, nic, cpu]
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("slices", SLICES), ("classes", CLASSES), ("claim", CLAIM)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def explain(files: dict[str, str], *extra: str) -> int:
    return cli.main(["explain", files["claim"], "--slices", files["slices"], "--classes", files["classes"], *extra])


def test_list_semantics_fit_on_the_shared_quadrant(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert explain(files, "--node", "n1") == 0
    assert capsys.readouterr().out == (
        "ResourceClaim ml/numa\n"
        "  node n1: fits\n"
        "    gpu  gpu.example.com/n1/gpu-5  numaNode [5, 4, 6, 7]\n"
        "    nic  dra.net/n1/nic-6          numaNode [6, 4, 5, 7]\n"
        "    cpu  dra.cpu/n1/cpu-4          numaNode 4\n"
        f"    matchAttribute {NUMA}: {{4}}\n"
        "    common numaNode: {4}\n"
        "  1 of 1 node(s) can allocate it\n"
    )


def test_scalar_semantics_fail_closed(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert explain(files, "--node", "n1", "--semantics", "scalar") == 1
    assert capsys.readouterr().out == (
        "ResourceClaim ml/numa\n"
        f"  node n1: cannot allocate: constraint #0 (matchAttribute {NUMA}): {NUMA} of device dra.net/n1/nic-6 is "
        "the list [6, 4, 5, 7]; without list semantics a list value cannot match (fails closed)\n"
        f"    candidates for gpu ({NUMA}): gpu-1 [1, 0, 2, 3], gpu-5 [5, 4, 6, 7]\n"
        f"    candidates for nic ({NUMA}): nic-6 [6, 4, 5, 7]\n"
        f"    candidates for cpu ({NUMA}): cpu-0 0, cpu-4 4\n"
        "  0 of 1 node(s) can allocate it\n"
    )


def test_every_node_is_explained(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert explain(files) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-4:] == [
        "  node n2: cannot allocate: request gpu: no device matches",
        "    request gpu: 1 device(s) on this node; 0 pass class gpu.example.com",
        # met while gathering candidates for the report, so listed rather than raised
        "    selector error: claim ml/numa: selector #0 on device dra.cpu/n2/cpu-0: CEL runtime error: no such key: "
        "numaNode. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() "
        "for optional fields",
        "  1 of 2 node(s) can allocate it",
    ]


def test_json_output(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert explain(files, "--node", "n1", "--format", "json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["semantics"] == "list"
    [claim] = out["claims"]
    assert (claim["claim"], claim["fits"], claim["error"], claim["notes"]) == ("ResourceClaim ml/numa", True, "", [])
    [node] = claim["nodes"]
    assert node["status"] == "fits" and node["numaNode"] == "{4}"
    assert node["allocation"] == [
        {"request": "gpu", "device": "gpu.example.com/n1/gpu-5", "numaNode": "[5, 4, 6, 7]"},
        {"request": "nic", "device": "dra.net/n1/nic-6", "numaNode": "[6, 4, 5, 7]"},
        {"request": "cpu", "device": "dra.cpu/n1/cpu-4", "numaNode": "4"},
    ]
    assert node["common"] == [{"constraint": f"matchAttribute {NUMA}", "values": "{4}"}]


def test_cel_runtime_error_aborts_the_claim(files: dict[str, str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    claim = tmp_path / "bad.yaml"
    claim.write_text(CLAIM.replace('device.attributes["dra.cpu"].numaNode >= 0',
                                   'device.attributes["dra.cpu"].socket == 0'))
    files["claim"] = str(claim)
    assert explain(files, "--node", "n1") == 1
    assert capsys.readouterr().out.splitlines()[1] == (
        "  node n1: allocation aborted: claim ml/numa: selector #0 on device dra.cpu/n1/cpu-0: CEL runtime error: "
        "no such key: socket. consider using CEL optional chaining (.? followed by orValue()) or guarding the "
        "check with has() for optional fields"
    )


def test_missing_class_is_reported_once(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", files["claim"], "--slices", files["slices"]]) == 1
    assert capsys.readouterr().out == (
        "ResourceClaim ml/numa\n"
        "  cannot allocate on any node: claim ml/numa, request gpu: could not retrieve device class "
        'gpu.example.com: deviceclass.resource.k8s.io "gpu.example.com" not found\n'
    )


def test_a_file_without_claims_is_a_usage_error(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", files["slices"], "--slices", files["slices"]]) == 2
    expected = f"draguard: error: no ResourceClaim or ResourceClaimTemplate in {files['slices']}\n"
    assert capsys.readouterr().err == expected


def test_bad_max_steps_is_a_usage_error(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        explain(files, "--max-steps", "0")
    assert exit_.value.code == 2
    assert "argument --max-steps: must be a positive integer, not '0'" in capsys.readouterr().err


# --- the topology-co-placement corpus: answers checked against the scenario descriptions -------------

def corpus_run(corpus: Path, claim: str, slices: str, capsys: pytest.CaptureFixture[str],
               *extra: str) -> tuple[int, dict[str, dict[str, Any]]]:
    folder = corpus / "topology-co-placement"
    classes = [*sorted(folder.glob("drivers-*.yaml")), folder / "manifests-nvidia-a40-deviceclasses.yaml"]
    argv = ["explain", str(folder / claim), "--slices", str(folder / slices), "--format", "json"]
    for path in classes:
        argv += ["--classes", str(path)]
    code = cli.main([*argv, *extra])
    out = json.loads(capsys.readouterr().out)
    return code, {c["claim"]: c for c in out["claims"]}


def only_node(claim: dict[str, Any]) -> dict[str, Any]:
    nodes = claim["nodes"]
    assert isinstance(nodes, list) and len(nodes) == 1
    node = nodes[0]
    assert isinstance(node, dict)
    return node


def test_corpus_4driver_numa_aligned_on_the_a40_node(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claims = corpus_run(corpus, "claims-4driver-numa-aligned.yaml", "manifests-nvidia-a40-resourceslices.yaml",
                              capsys)
    node = only_node(claims["ResourceClaimTemplate 4driver-numa-claim"])
    assert code == 0 and node["status"] == "fits" and node["numaNode"] == "{0}"
    assert [a["request"] for a in node["allocation"]] == ["gpu", "nic", "cpu", "mem"]


def test_corpus_hugepage_claim_finds_no_hugepage_device_on_the_a40(corpus: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, claims = corpus_run(corpus, "claims-hugepage-gpu-numa-aligned.yaml",
                              "manifests-nvidia-a40-resourceslices.yaml", capsys)
    node = only_node(claims["ResourceClaimTemplate hp-gpu-claim"])
    assert code == 1
    assert node["reason"] == "request hp: no device matches"
    assert node["details"] == ["request hp: 10 device(s) on this node; 2 pass class dra.memory; "
                               "0 of those pass the request's selectors"]


def test_corpus_preferred_enforcement_is_not_kubernetes(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claims = corpus_run(corpus, "claims-enforcement-preferred-fallback.yaml",
                              "manifests-nvidia-a40-resourceslices.yaml", capsys)
    claim = claims["ResourceClaimTemplate preferred-fallback-claim"]
    assert code == 1
    assert claim["notes"] == ['constraint #0: field "enforcement" is not part of the Kubernetes DeviceConstraint '
                              "API (the API server drops it); the constraint is enforced as written without it"]
    reason = only_node(claim)["reason"]
    assert isinstance(reason, str)
    assert reason.startswith("constraint #0 (matchAttribute resource.kubernetes.io/pcieRoot): ")


@pytest.mark.parametrize(("slices", "half1"), [
    ("results-xe9680-hardware-resourceslices.yaml", "no-fit"),  # SNC on: no NIC reports dra.net/numaNode 1
    ("results-xe9680-hardware-snc-off-resourceslices.yaml", "fits"),
])
def test_corpus_half_machine_split(corpus: Path, capsys: pytest.CaptureFixture[str], slices: str, half1: str) -> None:
    folder = corpus / "topology-co-placement"
    code, claims = corpus_run(corpus, "claims-half-machine-split.yaml", slices, capsys,
                              "--classes", str(folder / "results-xe9680-hardware-deviceclasses.yaml"))
    assert only_node(claims["ResourceClaim test/half0"])["status"] == "fits"
    second = only_node(claims["ResourceClaim test/half1"])
    assert second["status"] == half1
    assert code == (0 if half1 == "fits" else 1)
    if half1 == "no-fit":
        assert second["reason"] == "request nic: no device matches"


def test_corpus_coordinator_claims_name_a_class_that_does_not_exist(corpus: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder = corpus / "topology-co-placement"
    code, claims = corpus_run(corpus, "claims-quarter-machine-coordinator.yaml",
                              "results-xe9680-hardware-resourceslices.yaml", capsys,
                              "--classes", str(folder / "results-xe9680-hardware-deviceclasses.yaml"))
    assert code == 1
    error = claims["ResourceClaim test/q0"]["error"]
    assert isinstance(error, str)
    assert error.startswith("claim test/q0, request q: could not retrieve device class "
                            "dra-cpu-2-dra-memory-2-gpu-amd-com-8-sriovnetw-a8e66b43-quarter: ")


def test_corpus_tradeoffs_solution_a_needs_list_semantics(corpus: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The doc's Solution A: GPU and NIC scalar pcieRoot inside the CPU's pcieRoot list (needs KEP-5491);
    Solution B needs the GPU driver to publish dra.net/numaNode, which its example slice does not.

    The illustrative slices use `quantity:` for capacity values and elide all but one NIC, so the copy
    fixes the former and asks for one GPU and one NIC.
    """
    folder = corpus / "topology-co-placement"
    text = (folder / "docs-topology-attribute-tradeoffs.yaml").read_text()
    copy = tmp_path / "tradeoffs.yaml"
    text = text.replace("        quantity: ", "        value: ").replace("        count: 2", "        count: 1")
    copy.write_text(text)
    argv = ["explain", str(copy), "--slices", str(copy), "--format", "json"]
    for path in sorted(folder.glob("drivers-*.yaml")):
        argv += ["--classes", str(path)]
    outcomes = {}
    for semantics in ("list", "scalar"):
        assert cli.main([*argv, "--semantics", semantics]) == 1
        out = json.loads(capsys.readouterr().out)
        outcomes[semantics] = {c["claim"]: only_node(c) for c in out["claims"]}
    a_list, a_scalar = (outcomes[s]["ResourceClaim test/solution-a-full"] for s in ("list", "scalar"))
    assert a_list["status"] == "fits"
    assert a_list["common"] == [
        {"constraint": "matchAttribute resource.kubernetes.io/pcieRoot", "values": "{pci0000:15}"},
        {"constraint": "matchAttribute resource.kubernetes.io/pcieRoot", "values": "{pci0000:6a}"},
        {"constraint": "matchAttribute dra.net/numaNode", "values": "{0}"},
    ]
    assert a_scalar["status"] == "no-fit"
    assert a_scalar["reason"].endswith("without list semantics a list value cannot match (fails closed)")
    b_list = outcomes["list"]["ResourceClaim test/solution-b-full"]
    assert b_list["reason"] == ("constraint #0 (matchAttribute dra.net/numaNode): device gpu.amd.com//gpu-0 "
                                "(request gpu) has no attribute dra.net/numaNode")


def test_malformed_claim_is_a_usage_error(files: dict[str, str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    claim = tmp_path / "bad.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                     "spec:\n  devices:\n    requests: {name: gpu}\n")
    files["claim"] = str(claim)
    assert explain(files) == 2
    assert capsys.readouterr().err == (
        f"draguard: error: {claim}:6:15: ResourceClaim c: spec.devices.requests must be a list, not a mapping\n")


@pytest.mark.parametrize("count", [-1, 0])
def test_count_must_be_a_positive_integer(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          count: int) -> None:
    claim = tmp_path / "count.yaml"
    claim.write_text(CLAIM.replace("exactly: {deviceClassName: dra.net}",
                                   f"exactly: {{deviceClassName: dra.net, count: {count}}}"))
    files["claim"] = str(claim)
    assert explain(files) == 1
    assert capsys.readouterr().out == (
        "ResourceClaim ml/numa\n  cannot allocate on any node: claim ml/numa, request nic: count must be a positive "
        f"integer, not {count}\n")


def test_a_count_of_one_is_allocated(files: dict[str, str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    claim = tmp_path / "count.yaml"
    claim.write_text(CLAIM.replace("exactly: {deviceClassName: dra.net}",
                                   "exactly: {deviceClassName: dra.net, count: 1}"))
    files["claim"] = str(claim)
    assert explain(files, "--node", "n1") == 0
    assert capsys.readouterr().out.splitlines()[1] == "  node n1: fits"


def test_a_claim_without_requests_fits_with_a_note(files: dict[str, str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    claim = tmp_path / "empty.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {}\n")
    files["claim"] = str(claim)
    assert explain(files, "--node", "n1") == 0
    assert capsys.readouterr().out == (
        "ResourceClaim c\n  note: the claim requests no devices: there is nothing to allocate\n  node n1: fits\n"
        "  1 of 1 node(s) can allocate it\n")


def test_stdin_serves_claim_slices_and_classes_at_once(files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import io

    everything = "---\n".join(Path(files[k]).read_text() for k in ("claim", "slices", "classes"))
    monkeypatch.setattr("sys.stdin", io.StringIO(everything))
    assert cli.main(["explain", "-", "--slices", "-", "--classes", "-", "--node", "n1"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["ResourceClaim ml/numa", "  node n1: fits"]


def test_an_unknown_node_is_explained_with_a_note(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert explain(files, "--node", "n9") == 1
    captured = capsys.readouterr()
    assert captured.err == ("draguard: note: no slice or Node object names node 'n9' (known: n1, n2); it sees only "
                            "slices for all nodes\n")
    assert captured.out.splitlines()[1] == "  node n9: cannot allocate: request gpu: no device matches"


def test_names_from_the_input_reach_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A device or node named with an escape sequence or a line break cannot repaint the terminal or fake a line."""
    evil = "n1\x1b[2J\nFAKE"
    (tmp_path / "s.yaml").write_text(json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
        "spec": {"driver": "gpu.example.com", "nodeName": evil, "pool": {"name": "p", "generation": 1,
                                                                         "resourceSliceCount": 1},
                 "devices": [{"name": "gpu\x1b[31m"}]}}))
    (tmp_path / "c.yaml").write_text(json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}) + "\n---\n"
        + json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                      "spec": {}}))
    assert cli.main(["explain", str(tmp_path / "c.yaml"), "--slices", str(tmp_path / "s.yaml")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "FAKE\n" not in out
    assert "node n1\\x1b[2J\\nFAKE: fits" in out and "gpu.example.com/p/gpu\\x1b[31m" in out
