from pathlib import Path

from webhook.fieldpath import FieldPath
from webhook.manifests import load_paths, load_text

SLICE = """\
# a comment
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: dra.net
  devices:
  - name: eth0
    attributes:
      dra.net/pciAddress: {string: 0000:00:05.0}
      on: {bool: on}
"""


def test_pci_addresses_stay_strings_and_on_is_true_as_kubectl_reads_them() -> None:
    (manifest,) = load_text(SLICE, "s.yaml").manifests
    attrs = manifest.obj["spec"]["devices"][0]["attributes"]
    assert attrs["dra.net/pciAddress"] == {"string": "0000:00:05.0"}  # no base-60 numbers in go-yaml
    assert attrs["true"] == {"bool": True}


def test_positions_point_at_values_and_keys() -> None:
    (manifest,) = load_text(SLICE, "s.yaml").manifests
    path = FieldPath.root("spec", "devices").index(0).child("attributes").key("dra.net/pciAddress")
    assert str(manifest.position(path.child("string"))) == "s.yaml:11:36"
    assert str(manifest.position(path, value=False)) == "s.yaml:11:7"
    # a missing field points at its nearest parent
    assert str(manifest.position(FieldPath.root("spec", "nodeName"))) == "s.yaml:7:3"


def test_list_items_are_objects_with_their_own_base() -> None:
    text = (
        "kind: List\nitems:\n- kind: DeviceClass\n  metadata: {name: a}\n"
        "- kind: DeviceClass\n  metadata:\n    name: b\n"
    )
    loaded = load_text(text, "l.yaml")
    assert [m.obj["metadata"]["name"] for m in loaded.manifests] == ["a", "b"]
    assert str(loaded.manifests[1].base) == "items[1]"
    assert str(loaded.manifests[1].position(FieldPath.root("metadata", "name"))) == "l.yaml:7:11"


def test_bad_input_is_one_problem_per_source(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("kind: [unclosed\n")
    (tmp_path / "scalar.yaml").write_text("just a string\n---\nkind: DeviceClass\n")
    loaded = load_paths([str(tmp_path), str(tmp_path / "missing.yaml")])
    assert [m.obj["kind"] for m in loaded.manifests] == ["DeviceClass"]
    lines = [str(p) for p in loaded.problems]
    assert lines[0].startswith(f"{tmp_path / 'broken.yaml'}:2:1: invalid YAML:")
    assert lines[1] == f"{tmp_path / 'scalar.yaml'}: document 1 is a string, not an object"
    assert lines[2] == f"{tmp_path / 'missing.yaml'}: no such file or directory"


def test_duplicate_keys_are_a_problem() -> None:
    loaded = load_text("kind: A\nkind: B\n", "d.yaml")
    assert not loaded.manifests
    assert "invalid YAML" in str(loaded.problems[0])


def test_a_key_merged_in_with_yaml_merge_points_at_its_mapping() -> None:
    text = "base: &pool {name: p, resourceSliceCount: 1}\nspec:\n  pool:\n    <<: *pool\n    generation: 1\n"
    (manifest,) = load_text(text, "m.yaml").manifests
    pool = FieldPath.root("spec", "pool")
    assert manifest.obj["spec"]["pool"]["name"] == "p"
    assert str(manifest.position(pool.child("generation"))) == "m.yaml:5:17"
    assert str(manifest.position(pool.child("name"))) == "m.yaml:4:5"
