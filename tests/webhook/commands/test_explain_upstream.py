"""`draguard explain` against the upstream structured allocator (k8s.io/dynamic-resource-allocation
structured/internal/experimental, v0.37.0-alpha.2): one CLI run per reviewed finding, with the answer the
allocator gives (traced from its source: allocateOne, allocateDevice, validateDeviceRequest, the constraint
trackers, consumable_capacity.go, GatherPools)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webhook import cli

NUMA = "resource.kubernetes.io/numaNode"
GPU = "gpu.example.com"
HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for "
        "optional fields")
CLASSES = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}
           for name, driver in (("gpu", GPU), ("nic", "dra.net"), ("cpu", "dra.cpu"))]


def rslice(driver: str, devices: list[dict[str, Any]], pool: str = "n1") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-{pool}"},
            "spec": {"driver": driver, "nodeName": "n1", "pool": {"name": pool, "resourceSliceCount": 1},
                     "devices": devices}}


def dev(name: str, **attributes: Any) -> dict[str, Any]:
    return {"name": name, "attributes": attributes}


def req(name: str, cls: str = "gpu", *selectors: str, **exactly: Any) -> dict[str, Any]:
    body = {"deviceClassName": cls, **exactly}
    if selectors:
        body["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"name": name, "exactly": body}


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], requests: list[dict[str, Any]],
        slices: list[dict[str, Any]], constraints: list[dict[str, Any]] | None = None, *,
        status: dict[str, Any] | None = None) -> tuple[int, str]:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "d"},
             "spec": {"devices": {"requests": requests, "constraints": constraints or []}},
             **({"status": status} if status else {})}
    paths = {}
    for name, objects in (("claim", [claim]), ("slices", slices), ("classes", CLASSES)):
        path = tmp_path / f"{name}.json"
        path.write_text("\n".join(json.dumps(o) for o in objects))
        paths[name] = str(path)
    code = cli.main(["explain", paths["claim"], "--slices", paths["slices"], "--classes", paths["classes"]])
    return code, capsys.readouterr().out


def test_f3_a_device_taken_by_an_earlier_request_is_skipped_before_its_selectors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, capsys, [req("any"), req("big", "gpu", f'device.attributes["{GPU}"].memory >= 40')],
                    [rslice(GPU, [dev("gpu-0"), dev("gpu-1", memory={"int": 80})])])
    assert code == 0
    assert out.splitlines()[1:4] == ["  node n1: fits", f"    any  {GPU}/n1/gpu-0", f"    big  {GPU}/n1/gpu-1"]


def test_f1_match_attribute_keeps_the_set_narrowed_by_a_device_taken_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, capsys, [req("gpu"), req("nic", "nic"), req("cpu", "cpu")],
                    [rslice(GPU, [dev("gpu-0", **{NUMA: {"ints": [0, 1]}})]),
                     rslice("dra.net", [dev("nic-0", **{NUMA: {"int": 0}}), dev("nic-1", **{NUMA: {"int": 1}})]),
                     rslice("dra.cpu", [dev("cpu-1", **{NUMA: {"int": 1}})])],
                    [{"matchAttribute": NUMA}])
    assert code == 1
    lines = out.splitlines()
    assert lines[1] == (
        f"  node n1: cannot allocate: constraint #0 (matchAttribute {NUMA}): {NUMA} 1 of device dra.cpu/n1/cpu-1 "
        f"(request cpu) has nothing in common with {{0}}, the values shared by {GPU}/n1/gpu-0 [0, 1], "
        "dra.net/n1/nic-0 0")
    assert lines[-2] == (
        f"    constraint #0 (matchAttribute {NUMA}): 1 device(s) were refused by the set narrowed by devices the "
        "search had already taken back; the allocator widens it again only when no device of the constraint is "
        "left, so combinations that do share a value can be missed, as in the scheduler")


def test_f2_distinct_attribute_compares_with_the_last_device_of_each_request_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpus = [dev(f"gpu-{i}", **{NUMA: {"int": v}}) for i, v in enumerate((0, 1, 0))]
    code, out = run(tmp_path, capsys, [req("gpus", count=3)], [rslice(GPU, gpus)], [{"distinctAttribute": NUMA}])
    assert code == 0
    assert out.splitlines()[1:5] == ["  node n1: fits", *(f"    gpus  {GPU}/n1/gpu-{i}  numaNode {v}"
                                                          for i, v in enumerate((0, 1, 0)))]


GI40 = {"requests": {"memory": "40Gi"}}


def test_f6_all_over_more_than_32_devices_is_refused_on_that_node(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, capsys, [req("all", allocationMode="All")],
                    [rslice(GPU, [dev(f"gpu-{i}") for i in range(33)])])
    assert code == 1
    assert out.splitlines()[1] == ("  node n1: allocation aborted: claim d/c: number of requested devices 33 exceeds "
                                   "the claim limit of 32")


def test_f7_a_later_all_subrequest_is_validated_before_the_search(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sub = {"name": "allbig", "deviceClassName": "gpu", "allocationMode": "All",
           "selectors": [{"cel": {"expression": f'device.attributes["{GPU}"].memory >= 40'}}]}
    code, out = run(tmp_path, capsys, [{"name": "gpu", "firstAvailable": [{"name": "one", "deviceClassName": "gpu"},
                                                                          sub]}],
                    [rslice(GPU, [dev("gpu-0"), dev("gpu-1", memory={"int": 80})])])
    assert code == 1
    assert out.splitlines()[1] == (f"  node n1: allocation aborted: claim d/c: selector #0 on device {GPU}/n1/gpu-0: "
                                   f"CEL runtime error: no such key: memory{HINT}")


def test_f8_an_all_request_selector_error_aborts_before_an_earlier_request_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, capsys, [req("nic", "nic"),
                                       req("big", "gpu", f'device.attributes["{GPU}"].memory >= 40',
                                           allocationMode="All")],
                    [rslice(GPU, [dev("gpu-0"), dev("gpu-1", memory={"int": 80})])])
    assert code == 1
    assert out.splitlines()[1].startswith(f"  node n1: allocation aborted: claim d/c: selector #0 on device "
                                          f"{GPU}/n1/gpu-0: CEL runtime error: no such key: memory")


def test_f5_capacity_names_are_not_qualified_with_the_driver(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    device = {"name": "gpu-0", "capacity": {"memory": {"value": "80Gi"}}}
    code, out = run(tmp_path, capsys, [req("g", capacity={"requests": {f"{GPU}/memory": "40Gi"}})],
                    [rslice(GPU, [device])])
    assert code == 1
    assert out.splitlines()[1:3] == [
        "  node n1: cannot allocate: request g: no matching device has room for the requested capacity",
        f"    {GPU}/n1/gpu-0: publishes no capacity {GPU}/memory (it publishes memory; the allocator compares "
        "capacity names exactly)"]


def test_f4_all_leaves_out_devices_without_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    devices = [{"name": "gpu-0", "capacity": {"memory": {"value": "80Gi"}}},
               {"name": "gpu-1", "capacity": {"memory": {"value": "16Gi"}}}]
    code, out = run(tmp_path, capsys, [req("all", allocationMode="All", capacity=GI40)], [rslice(GPU, devices)])
    assert code == 0
    assert out.splitlines()[1:3] == ["  node n1: fits", f"    all  {GPU}/n1/gpu-0"]


def test_f9_pools_with_binding_conditions_come_last(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waiting = {"name": "gpu-0", "bindingConditions": ["dra.example.com/attached"],
               "bindingFailureConditions": ["dra.example.com/failed"]}
    code, out = run(tmp_path, capsys, [req("gpu")], [rslice(GPU, [waiting], "a-pool"),
                                                     rslice(GPU, [dev("gpu-1")], "b-pool")])
    assert code == 0
    assert out.splitlines()[1:3] == ["  node n1: fits", f"    gpu  {GPU}/b-pool/gpu-1"]


def taint(effect: str, value: str = "") -> dict[str, Any]:
    return {"key": "example.com/broken", **({"value": value} if value else {}), "effect": effect}


@pytest.mark.parametrize(("taints", "tolerations", "fits"), [
    ([taint("NoSchedule")], [], False),
    ([taint("NoExecute", "yes")], [], False),
    ([taint("None")], [], True),  # only NoSchedule and NoExecute refuse a device
    ([taint("NoExecute", "yes")], [{"key": "example.com/broken", "operator": "Equal", "value": "yes"}], True),
    ([taint("NoExecute", "yes")], [{"key": "example.com/broken", "value": "no"}], False),
    ([taint("NoExecute", "yes")], [{"key": "example.com/broken", "operator": "Exists"}], True),
    ([taint("NoExecute", "yes")], [{"operator": "Exists"}], True),  # no key: every taint
    ([taint("NoExecute", "yes")], [{"operator": "Exists", "effect": "NoSchedule"}], False),
    ([taint("NoSchedule"), taint("NoExecute")], [{"operator": "Exists", "effect": "NoSchedule"}], False),
])
def test_f10_a_device_with_an_untolerated_taint_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], taints: list[dict[str, Any]],
        tolerations: list[dict[str, Any]], fits: bool) -> None:
    code, out = run(tmp_path, capsys, [req("gpu", tolerations=tolerations)],
                    [rslice(GPU, [{"name": "gpu-0", "taints": taints}])])
    assert code == (0 if fits else 1)
    if fits:
        assert out.splitlines()[1:3] == ["  node n1: fits", f"    gpu  {GPU}/n1/gpu-0"]
    else:
        untolerated = next(t for t in taints if t["effect"] not in {x.get("effect") for x in tolerations})
        shown = "example.com/broken" + (f"={untolerated['value']}" if "value" in untolerated else "") + \
            f":{untolerated['effect']}"
        assert out.splitlines()[1:3] == [
            "  node n1: cannot allocate: request gpu: matching devices have NoSchedule/NoExecute taints the request "
            "does not tolerate", f"    {GPU}/n1/gpu-0: taint {shown} not tolerated by gpu"]


def test_f10_a_tainted_device_is_skipped_for_the_next_and_fails_an_all_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    devices = [{"name": "gpu-0", "taints": [taint("NoSchedule")]}, dev("gpu-1")]
    code, out = run(tmp_path, capsys, [req("gpu")], [rslice(GPU, devices)])
    assert code == 0
    assert out.splitlines()[1:3] == ["  node n1: fits", f"    gpu  {GPU}/n1/gpu-1"]
    code, out = run(tmp_path, capsys, [req("gpu", allocationMode="All")], [rslice(GPU, devices)])
    assert code == 1  # allocateDevice refuses gpu-0, and an All request needs every device it found
    assert out.splitlines()[1:3] == [
        "  node n1: cannot allocate: request gpu: matching devices have NoSchedule/NoExecute taints the request "
        "does not tolerate", f"    {GPU}/n1/gpu-0: taint example.com/broken:NoSchedule not tolerated by gpu"]


def counted(name: str, memory: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}],
            **more}


def counter_slice(memory: str = "40Gi", node: str = "n1") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
            "spec": {"driver": GPU, "nodeName": node, "pool": {"name": "n1", "resourceSliceCount": 2},
                     "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": memory}}}]}}


def counted_slice(devices: list[dict[str, Any]]) -> dict[str, Any]:
    made = rslice(GPU, devices)
    made["spec"]["pool"]["resourceSliceCount"] = 2
    return made


def test_f11_shared_counters_limit_what_the_devices_of_a_pool_take_together(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = [counted("gpu-0-whole", "40Gi"), counted("gpu-0-half-a", "20Gi"), counted("gpu-0-half-b", "20Gi")]
    code, out = run(tmp_path, capsys, [req("gpu", count=2)], [counter_slice(), counted_slice(parts)])
    assert code == 0  # the whole GPU leaves nothing for a second device: both halves instead
    assert out.splitlines()[1:4] == ["  node n1: fits", f"    gpu  {GPU}/n1/gpu-0-half-a",
                                     f"    gpu  {GPU}/n1/gpu-0-half-b"]
    code, out = run(tmp_path, capsys, [req("gpu", count=3)], [counter_slice(), counted_slice(parts)])
    assert code == 1
    assert out.splitlines()[1] == (
        f"  node n1: cannot allocate: shared counters exhausted: device {GPU}/n1/gpu-0-half-a consumes 20Gi of counter "
        f"gpu-0/memory in pool {GPU}/n1, which has 40Gi (40Gi already consumed by the devices placed before it)")
    # limit-1 / limit / limit+1 for the two halves
    for total, fits in (("39Gi", False), ("40Gi", True), ("41Gi", True)):
        halves = [counted("gpu-0-half-a", "20Gi"), counted("gpu-0-half-b", "20Gi")]
        code, _ = run(tmp_path, capsys, [req("gpu", count=2)], [counter_slice(total), counted_slice(halves)])
        assert code == (0 if fits else 1), total


def test_f11_counters_come_from_a_counter_slice_for_another_node(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = [counted("gpu-0-half-a", "20Gi"), counted("gpu-0-half-b", "30Gi")]
    code, out = run(tmp_path, capsys, [req("gpu", count=2)], [counter_slice("40Gi", "n2"), counted_slice(parts)])
    assert code == 1
    assert "gpu-0/memory" in out.splitlines()[1]


def test_f11_a_refused_device_gives_its_counters_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # allocateDevice reserves counters before the taint and constraint checks; kubernetes#140431 gives them back
    parts = [counted("gpu-0-whole", "40Gi", taints=[taint("NoSchedule")]),
             counted("gpu-0-a", "20Gi", attributes={"model": {"string": "x"}}),
             counted("gpu-0-b", "20Gi", attributes={"model": {"string": "y"}}),
             counted("gpu-0-c", "20Gi", attributes={"model": {"string": "y"}})]
    code, out = run(tmp_path, capsys, [req("a"), req("b")], [counter_slice(), counted_slice(parts)],
                    [{"matchAttribute": f"{GPU}/model"}])
    assert code == 0
    assert out.splitlines()[1:4] == ["  node n1: fits", f"    a  {GPU}/n1/gpu-0-b", f"    b  {GPU}/n1/gpu-0-c"]


def test_f11_a_shareable_device_consumes_its_counters_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shared = counted("gpu-0", "30Gi", allowMultipleAllocations=True,
                     capacity={"memory": {"value": "30Gi", "requestPolicy": {"default": "10Gi"}}})
    code, out = run(tmp_path, capsys, [req("a"), req("b")], [counter_slice(), counted_slice([shared])])
    assert code == 0
    assert out.splitlines()[1:4] == ["  node n1: fits", f"    a  {GPU}/n1/gpu-0", f"    b  {GPU}/n1/gpu-0"]


@pytest.mark.parametrize(("consumes", "problem"), [
    ({"counterSet": "gpu-9", "counters": {"memory": {"value": "1Gi"}}}, "counter set gpu-9 not found"),
    ({"counterSet": "gpu-0", "counters": {"cores": {"value": "1"}}}, "counter cores not found in counter set gpu-0"),
])
def test_f11_a_pool_with_a_dangling_counter_reference_is_invalid(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], consumes: dict[str, Any], problem: str) -> None:
    code, out = run(tmp_path, capsys, [req("gpu")],
                    [counter_slice(), counted_slice([{"name": "gpu-0", "consumesCounters": [consumes]}]),
                     rslice(GPU, [dev("gpu-9")], "other")])
    assert code == 0  # the other pool still serves the claim
    assert out.splitlines()[1:3] == ["  node n1: fits", f"    gpu  {GPU}/other/gpu-9"]
    code, out = run(tmp_path, capsys, [req("gpu")],
                    [counter_slice(), counted_slice([{"name": "gpu-0", "consumesCounters": [consumes]}])])
    assert code == 1  # nothing fits, and a pool was invalid: Allocate returns that error
    assert out.splitlines()[1:4] == [
        "  node n1: cannot allocate: invalid resource pools were encountered",
        "    without them: request gpu: no device matches", f"    pool {GPU}/n1 is invalid ({problem}): skipped"]


def on_node(name: str) -> dict[str, Any]:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}


def test_f12_an_allocated_claim_fits_only_where_its_allocation_is_available(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n2 = rslice(GPU, [dev("gpu-0", **{NUMA: {"int": 1}})], "n2")
    n2["spec"]["nodeName"] = "n2"
    result = {"request": "gpu", "driver": GPU, "pool": "n2", "device": "gpu-0"}
    # the class does not exist and n1 has a free device: neither matters, the allocation is kept as it is
    code, out = run(tmp_path, capsys, [req("gpu", "missing")], [rslice(GPU, [dev("gpu-1")]), n2],
                    status={"allocation": {"devices": {"results": [result]}, "nodeSelector": on_node("n2")}})
    assert code == 0
    kept = ("the claim is already allocated (status.allocation): the scheduler keeps that allocation and does not "
            "search again")
    assert out.splitlines()[1:7] == [
        "  node n1: cannot allocate: resourceclaim not available on the node", f"    {kept}",
        "    the allocation's nodeSelector does not select this node",
        "  node n2: fits", f"    gpu  {GPU}/n2/gpu-0  numaNode 1", "    common numaNode: {1}"]
    code, out = run(tmp_path, capsys, [req("gpu")], [rslice(GPU, [dev("gpu-1")]), n2],
                    status={"allocation": {"devices": {"results": [result]}}})  # no nodeSelector: every node
    assert code == 0
    assert out.splitlines()[-1] == "  2 of 2 node(s) can allocate it"


def test_f13_a_node_named_only_by_a_device_is_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    per_device = rslice(GPU, [{"name": "gpu-0", "nodeName": "n2"}, {"name": "gpu-1", "allNodes": True}], "shared")
    del per_device["spec"]["nodeName"]
    per_device["spec"]["perDeviceNodeSelection"] = True
    code, out = run(tmp_path, capsys, [req("gpu", count=2)], [per_device, rslice(GPU, [dev("gpu-9")])])
    assert code == 0
    assert out.splitlines()[1:] == [
        "  node n1: fits", f"    gpu  {GPU}/n1/gpu-9", f"    gpu  {GPU}/shared/gpu-1",
        "  node n2: fits", f"    gpu  {GPU}/shared/gpu-0", f"    gpu  {GPU}/shared/gpu-1",
        "  2 of 2 node(s) can allocate it"]


def test_f14_a_claim_error_in_a_subrequest_names_the_subrequest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # validateDeviceRequest gets the subrequest itself: its messages say "request b", not "request r/b"
    first = {"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "gpu"},
                                             {"name": "b", "deviceClassName": "missing"}]}
    code, out = run(tmp_path, capsys, [first], [rslice(GPU, [dev("gpu-0")])])
    assert code == 1
    assert out.splitlines()[1] == ('  cannot allocate on any node: claim d/c, request b: could not retrieve device '
                                   'class missing: deviceclass.resource.k8s.io "missing" not found')
