"""webhook.manifests.shapes.read_strict: what eval and explain read, and the one-line errors they stop on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webhook.errors import DraguardError
from webhook.manifests.shapes import read_strict

SLICES = frozenset({"ResourceSlice"})


def bad_slice(devices: object) -> dict[str, object]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "bad"},
            "spec": {"driver": "d", "devices": devices}}


def test_a_misshapen_json_object_is_placed_like_a_yaml_one(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(bad_slice({"a": 1}), indent=2))
    with pytest.raises(DraguardError) as err:
        read_strict([str(path)], SLICES)
    assert err.value.message == f"{path}:9:16: ResourceSlice bad: spec.devices must be a list, not a mapping"


@pytest.mark.parametrize(("devices", "wanted"), [
    ("x", "a string"), (True, "a boolean"), (3, "a number"), (None, None), ([], None),
])
def test_each_wrong_type_is_named(tmp_path: Path, devices: object, wanted: str | None) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(bad_slice(devices)))
    if wanted is None:
        assert read_strict([str(path)], SLICES) == [bad_slice(devices)]
        return
    with pytest.raises(DraguardError) as err:
        read_strict([str(path)], SLICES)
    assert err.value.message.endswith(f": ResourceSlice bad: spec.devices must be a list, not {wanted}")


def test_other_kinds_are_neither_returned_nor_checked(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("kind: DeviceClass\nmetadata: {name: c}\nspec: 5\n---\n" + json.dumps(bad_slice([])))
    assert read_strict([str(path)], SLICES) == [bad_slice([])]


@pytest.mark.parametrize(("problems", "message"), [
    (1, "{d}/0.yaml: document 1 is a string, not an object"),
    (2, "{d}/0.yaml: document 1 is a string, not an object (and 1 more problems)"),
    (3, "{d}/0.yaml: document 1 is a string, not an object (and 2 more problems)"),
])
def test_the_first_problem_stops_the_command_and_counts_the_rest(tmp_path: Path, problems: int,
                                                                 message: str) -> None:
    for i in range(problems):
        (tmp_path / f"{i}.yaml").write_text("just a string\n")
    with pytest.raises(DraguardError) as err:
        read_strict([str(tmp_path)], SLICES)
    assert err.value.message == message.format(d=tmp_path)


def test_stdin_text_is_given_to_each_call() -> None:
    """explain reads stdin once and hands the text to CLAIM, --slices and --classes alike."""
    text = json.dumps(bad_slice([]))
    assert read_strict(["-"], SLICES, stdin_text=text) == [bad_slice([])]
    assert read_strict(["-"], SLICES, stdin_text=text) == [bad_slice([])]
    assert read_strict(["-"], SLICES, stdin_text="") == []


@pytest.mark.parametrize(("spec", "problem"), [
    ({"driver": 5}, "spec.driver must be a string, not a number"),
    ({"nodeName": 7}, "spec.nodeName must be a string, not a number"),
    ({"pool": "p"}, "spec.pool must be a mapping, not a string"),
    ({"pool": {"name": ["p"]}}, "spec.pool.name must be a string, not a list"),
    ({"devices": [{"name": "a"}, 1]}, "spec.devices[1] must be a mapping, not a number"),
    ({"devices": [{"name": "a"}, {"attributes": {}}]}, "spec.devices[1].name is required (a string)"),
    ({"devices": [{"name": ""}]}, "spec.devices[0].name is required (a string)"),
    ({"devices": [{"name": 1}]}, "spec.devices[0].name must be a string, not a number"),
])
def test_the_fields_eval_and_explain_print_must_have_their_shape(tmp_path: Path, spec: dict[str, object],
                                                                 problem: str) -> None:
    obj = bad_slice([{"name": "a"}])
    obj["spec"] = {**obj["spec"], **spec}  # type: ignore[dict-item]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(DraguardError) as err:
        read_strict([str(path)], SLICES)
    assert err.value.message.endswith(f": ResourceSlice bad: {problem}")
    obj["spec"] = {"driver": "d", "nodeName": "n", "pool": {"name": "p"}, "devices": [{"name": "a"}]}
    path.write_text(json.dumps(obj))
    assert read_strict([str(path)], SLICES) == [obj]
