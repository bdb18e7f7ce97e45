"""webhook.manifests.read: one reader, three backends, the same objects and positions from each."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from webhook.fieldpath import FieldPath
from webhook.manifests import Problem, load_text, parse, read
from webhook.manifests.jsontext import JsonDoc
from webhook.manifests.roundtrip import Manifest

SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "d", "devices": [{"name": "gpu-0", "attributes": {"x": {"string": "0000:00:05.0"}}}]}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"}}
LISTED = json.dumps({"apiVersion": "v1", "kind": "List", "items": [SLICE, CLASS]}, indent=2)
NAME = FieldPath.root("spec", "devices").index(0).child("name")


def test_json_is_read_by_the_json_backend_with_the_same_objects_as_yaml() -> None:
    docs = parse(LISTED, "l.json", [])
    assert all(isinstance(d, JsonDoc) for d in docs)
    assert [d.obj for d in docs] == [m.obj for m in load_text(LISTED, "l.json").manifests] == [SLICE, CLASS]
    assert [str(d.base) for d in docs] == ["items[0]", "items[1]"]


def test_json_places_are_those_of_the_yaml_reading() -> None:
    docs = parse(LISTED, "l.json", [])
    (reference, _class) = load_text(LISTED, "l.json").manifests
    assert str(docs[0].position(NAME)) == str(reference.position(NAME)) == "l.json:15:21"
    assert docs[0].scalar_start(NAME) == reference.scalar_start(NAME)
    assert docs[0].scalar_start(FieldPath.root("spec")) is None


@pytest.mark.parametrize(("text", "why"), [
    ('{"kind": "A", "kind": "B"}', "a duplicate key: YAML refuses it"),
    ('{"kind": "A", "n": NaN}', "NaN: no JSON value, an input problem (kubectl's decoder refuses it)"),
    ('{"kind": "A", "n": -Infinity}', "nor is -Infinity"),
    ('[{"kind": "A"}]', "a list at the top: the YAML reader words the problem"),
    ('{"kind": "List", "items": [1]}', "an item that is not an object"),
    ('{"kind": "A"} {"kind": "B"}', "two JSON values: not one JSON text"),
])
def test_json_that_yaml_might_read_otherwise_goes_the_yaml_way(text: str, why: str) -> None:
    docs = parse(text, "x.json", [])
    assert not any(isinstance(d, JsonDoc) for d in docs), why


def test_an_escaped_surrogate_pair_is_one_character_and_read_as_json() -> None:
    """`json.dumps` writes a character past U+FFFF so; a lone surrogate is U+FFFD, as Go's decoder reads it."""
    (doc,) = parse('{"kind": "A", "s": "\\ud83d\\ude00 \\uD83D\\uDE01 \\ud800"}', "x.json", [])
    assert isinstance(doc, JsonDoc)
    assert doc.obj["s"] == "\U0001f600 \U0001f601 \ufffd"


def test_json_refusals_keep_the_reference_problems() -> None:
    problems: list[Problem] = []
    assert parse('{"kind": "A", "kind": "B"}', "d.json", problems) == []
    assert [str(p) for p in problems] == [str(p) for p in load_text('{"kind": "A", "kind": "B"}', "d.json").problems]
    assert len(problems) == 1


def test_yaml_that_libyaml_declines_is_read_by_ruamel() -> None:
    text = "base: &b {driver: d}\nkind: ResourceSlice\nspec:\n  <<: *b\n"
    (doc,) = parse(text, "m.yaml", [])
    assert isinstance(doc, Manifest)
    assert doc.obj["spec"] == {"driver": "d"}


def test_read_filters_kinds_and_ignores_sources(tmp_path: Path) -> None:
    (tmp_path / "l.json").write_text(LISTED, encoding="utf-8")
    (tmp_path / "skip.yaml").write_text("kind: ResourceSlice\n", encoding="utf-8")
    (tmp_path / "bad.yaml").write_text("kind: [\n", encoding="utf-8")
    objects, problems = read([str(tmp_path)], kinds=frozenset({"ResourceSlice"}), ignore=["*/skip.yaml"])
    assert [o.obj["metadata"]["name"] for o in objects] == ["s"]
    assert [str(p) for p in problems] == [f"{tmp_path}/bad.yaml:2:1: invalid YAML: expected the node content, but "
                                          "found '<stream end>'"]


@pytest.mark.parametrize(("name", "text"), [
    ("deep.yaml", "a: " + "[" * 5000 + "]" * 5000 + "\n"),
    ("deep-python.yaml", "a: " + "[" * 700 + "]" * 700 + "\n"),  # within libyaml's 1,000, beyond the limit below
    ("deep.json", '{"a": ' + "[" * 5000 + "]" * 5000 + "}\n"),
])
def test_a_document_nested_beyond_the_readers_is_one_problem_for_its_file(name: str, text: str) -> None:
    problems: list[Problem] = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(600)  # Python's recursion as a fresh process has it, whatever earlier tests left
    try:
        assert parse(text, name, problems) == []
    finally:
        sys.setrecursionlimit(limit)
    # Where libyaml's scanner opens its 1,001st level (the block mapping, or the JSON text's `{`, is the first);
    # within that, Python's recursion in the reader, which knows no position.
    where = {"deep.yaml": ":1:1003", "deep.json": ":1:1006", "deep-python.yaml": ""}[name]
    assert [str(p) for p in problems] == [f"{name}{where}: invalid YAML: nested too deeply for draguard's reader"]


def test_a_file_nested_too_deeply_leaves_the_other_files_read(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(SLICE), encoding="utf-8")
    objects, problems = read([str(tmp_path / "deep.yaml"), str(tmp_path / "s.json")])
    assert [o.obj for o in objects] == [SLICE]
    assert [p.message for p in problems] == ["invalid YAML: nested too deeply for draguard's reader"]


def test_a_list_item_that_is_null_is_named_so() -> None:
    problems: list[Problem] = []
    parse("apiVersion: v1\nkind: List\nitems: [null]\n", "l.yaml", problems)
    assert [str(p) for p in problems] == ["l.yaml:1:1: items[0] is a null value, not an object"]


@pytest.mark.parametrize("digits", [sys.get_int_max_str_digits(), sys.get_int_max_str_digits() + 1])
def test_an_unquoted_number_too_long_for_go_is_a_string_in_yaml(digits: int) -> None:
    """go-yaml (kubectl) tries ParseInt, ParseUint, then ParseFloat, which overflows: the text stays a string."""
    problems: list[Problem] = []
    (doc,) = parse(f"kind: ResourceSlice\nspec:\n  x: {'9' * digits}\n", "n.yaml", problems)
    assert problems == [] and doc.obj["spec"]["x"] == "9" * digits


@pytest.mark.parametrize(("name", "template"), [
    ("n.json", '{"kind": "ResourceSlice", "spec": {"x": {}}}'),
    ("stream.json", '{"kind": "ResourceSlice"}\n{"kind": "ResourceSlice", "spec": {"x": {}}}'),
])
def test_a_number_too_long_for_python_is_one_problem_for_its_file(name: str, template: str) -> None:
    """Python refuses to convert more than sys.get_int_max_str_digits() digits (4,300): at the limit the number is
    read (and no Kubernetes field holds it), past it the file is an input problem in draguard's words."""
    limit = sys.get_int_max_str_digits()
    problems: list[Problem] = []
    read_at_limit = parse(template.replace("{}", "9" * limit), name, problems)
    assert problems == [] and read_at_limit[-1].obj["spec"]["x"] == int("9" * limit)
    assert parse(template.replace("{}", "9" * (limit + 1)), name, problems) == []
    assert [p.message for p in problems] == ["invalid JSON: a number with "
                                             f"more than {limit} digits (no Kubernetes field holds one: the API server "
                                             "refuses it too)"]


BAD_ESCAPE = "found invalid Unicode character escape code"  # go-yaml's words, as libyaml's


@pytest.mark.parametrize(("escape", "column"), [("\\ud83d\\ude00", 12), ("\\ud83d", 12), ("x\\udfff", 13),
                                                ("\\U0000d800", 12)])
def test_an_escaped_surrogate_in_yaml_is_refused_as_go_yaml_refuses_it(escape: str, column: int) -> None:
    # kubectl's go-yaml (as libyaml) refuses it; ruamel kept lone surrogates, which no UTF-8 output can hold.
    problems: list[Problem] = []
    text = f'kind: DeviceClass\nmetadata:\n  name: "{escape}"\n'
    assert parse(text, "s.yaml", problems) == []
    assert [str(p) for p in problems] == [f"s.yaml:3:{column}: invalid YAML: {BAD_ESCAPE}"]


def test_a_surrogate_pair_escape_crashes_no_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from webhook import cli

    path = tmp_path / "c.yaml"
    path.write_text('apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec:\n  selectors:\n'
                    '  - cel: {expression: "device.driver == \\"\\ud83d\\ude00\\""}\n', encoding="utf-8")
    assert cli.main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"draguard: {path}:6:45: invalid YAML: {BAD_ESCAPE}\n"
