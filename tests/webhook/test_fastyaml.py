"""webhook.fastyaml: the same objects and positions as the ruamel loader, or a clean refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.fieldpath import FieldPath
from webhook.manifests import libyaml as fastyaml
from webhook.manifests import load_text


def test_plain_scalars_are_read_as_kubectl_reads_them() -> None:
    text = (
        "kind: X\nv:\n  on: on\n  bdf: 0000:00:05.0\n  octal: 0o17\n  old_octal: 017\n  float: 1e3\n"
        "  null1: ~\n  null2:\n  yes1: yes\n  t: True\n  hex: 0x1F\n  q: '4'\n  no1: n\n"
        "  date: 2024-01-02\n"
    )
    (doc,) = fastyaml.load(text, "v.yaml") or []
    assert doc.obj["v"] == {
        "true": True, "bdf": "0000:00:05.0", "octal": 15, "old_octal": 15, "float": 1000.0,
        "null1": None, "null2": None, "yes1": True, "t": True, "hex": 31, "q": "4", "no1": False, "date": "2024-01-02",
    }
    (manifest,) = load_text(text, "v.yaml").manifests
    assert doc.obj == manifest.obj


def test_list_items_carry_their_base_and_positions_match_ruamel() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n- kind: DeviceClass\n  metadata: {name: a}\n"
        "- kind: DeviceClass\n  metadata:\n    name: b\n  spec:\n    selectors:\n    - cel:\n"
        "        expression: 'device.driver == \"x\"'\n"
    )
    docs = fastyaml.load(text, "l.yaml") or []
    manifests = load_text(text, "l.yaml").manifests
    assert [str(d.base) for d in docs] == ["items[0]", "items[1]"]
    path = FieldPath.root("spec", "selectors").index(0).child("cel").child("expression")
    assert docs[1].position(path) == manifests[1].position(path)
    assert docs[1].position(FieldPath.root("metadata", "name")) == manifests[1].position(
        FieldPath.root("metadata", "name"))


@pytest.mark.parametrize(
    "text",
    ["a: 1\na: 2\n", "a: !!str 5\n", "base: &b {x: 1}\nm:\n  <<: *b\n", "a: [\n", "%YAML 1.2\n---\na: 1\n",
     "- just\n- a list\n", "a: !custom x\n", "a: [1, !!str 5]\n", "!!str 1: x\n", "a: !!map {x: 1}\n",
     "b: &b {x: 1}\nm: {<<: *b}\n", "%TAG !e! tag:e.com,2000:\n---\na: !e!x y\n"],
)
def test_unusual_input_goes_the_ruamel_way(text: str) -> None:
    assert fastyaml.load(text, "u.yaml") is None


def test_value_at_reads_a_scalar_by_document_and_path() -> None:
    text = "kind: A\n---\nkind: B\nspec: {x: 'it''s'}\n"
    assert fastyaml.value_at(text, 1, FieldPath.root("spec", "x")) == "it's"
    assert fastyaml.value_at(text, 0, FieldPath.root("spec", "x")) is None


def test_corpus_objects_are_identical_to_ruamel(corpus: Path) -> None:
    compared = 0
    for file in sorted(corpus.rglob("*.yaml")):
        text = file.read_text(encoding="utf-8")
        docs = fastyaml.load(text, str(file))
        if docs is None:
            continue
        manifests = load_text(text, str(file)).manifests
        assert [d.obj for d in docs] == [m.obj for m in manifests], file
        assert [str(d.base) for d in docs] == [str(m.base) for m in manifests], file
        compared += 1
    assert compared > 100


@pytest.mark.parametrize(("text", "value"), [
    ("e: a && !has(x)\n", "a && !has(x)"),  # a `!` inside a plain scalar is no tag
    ("e: '!x'\n", "!x"),
    ("e: x != y\n", "x != y"),
])
def test_exclamation_marks_that_are_not_tags_stay_on_the_fast_path(text: str, value: str) -> None:
    (doc,) = fastyaml.load(text, "e.yaml") or []
    assert doc.obj == {"e": value} == load_text(text, "e.yaml").manifests[0].obj


def test_a_quoted_merge_key_is_an_ordinary_key() -> None:
    (doc,) = fastyaml.load('"<<": x\n', "m.yaml") or []
    assert doc.obj == {"<<": "x"} == load_text('"<<": x\n', "m.yaml").manifests[0].obj
