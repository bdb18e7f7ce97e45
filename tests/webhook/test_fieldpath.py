from webhook.fieldpath import FieldPath


def test_renders_like_apimachinery() -> None:
    path = FieldPath.root("spec", "devices").index(3).child("attributes").key("resource.kubernetes.io/numaNode")
    assert str(path) == "spec.devices[3].attributes[resource.kubernetes.io/numaNode]"
    assert str(path.child("ints").index(1)).endswith("[resource.kubernetes.io/numaNode].ints[1]")


def test_join_keeps_map_keys() -> None:
    inner = FieldPath.root("spec").child("attributes").key("a.b/c")
    assert str(FieldPath.root("items").index(2).join(inner)) == "items[2].spec.attributes[a.b/c]"


def test_empty_path_has_a_name() -> None:
    assert str(FieldPath()) == "<root>"
