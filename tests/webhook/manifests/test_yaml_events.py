"""webhook.manifests.libyaml: values and places read from libyaml's events, held equal to its composer's.

The event reader keeps each container's member marks in an array instead of a node tree; every value, every
place (with paths past the text: nearest ancestor) and every string's offset must be what the composer's
reading gives, over the layouts `yaml.safe_dump` writes (block, flow, every scalar style it picks).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.webhook.manifests.test_json_places import SCALARS, TEXT, paths
from webhook.fieldpath import FieldPath
from webhook.manifests import libyaml, load_text, parse
from webhook.manifests.problems import Problem

KEYS = TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
                      max_leaves=25)
OBJECTS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=5)
EVENTS = settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def assert_read_as_composed(text: str) -> list[libyaml.EventDoc]:
    read = libyaml.load(text, "f.yaml")
    composed = libyaml.compose_load(text, "f.yaml")
    assert read is not None and composed is not None
    aliased = any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=yaml.CSafeLoader))
    assert all(isinstance(doc, libyaml.Doc if aliased else libyaml.EventDoc) for doc in read)  # (the composer's)
    assert [(d.obj, d.document, d.base) for d in read] == [(d.obj, d.document, d.base) for d in composed]
    for doc, ref in zip(read, composed, strict=True):
        for path in paths(doc.obj, FieldPath()):
            assert doc.position(path) == ref.position(path), path
            assert doc.scalar_start(path) == ref.scalar_start(path), path
    return read  # type: ignore[return-value]


@EVENTS
@given(st.lists(OBJECTS, min_size=1, max_size=3), st.sampled_from([None, True, False]), st.booleans())
def test_every_value_is_placed_where_the_composer_places_it(documents: list[dict[str, Any]], flow: bool | None,
                                                            listed: bool) -> None:
    if listed:
        documents = [{"apiVersion": "v1", "kind": "List", "items": documents}]
    text = yaml.safe_dump_all(documents, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    assume("%YAML" not in text)
    if libyaml.load(text, "f.yaml") is None:  # PyYAML wrote `N` bare beside 'false': one JSON key to kubectl
        assert any("duplicate key" in p.message for p in load_text(text, "f.yaml").problems), text
        return
    assert_read_as_composed(text)


def test_keys_kubectl_reads_as_one_send_the_text_to_the_reference_reader() -> None:
    text = yaml.safe_dump({"N": None, "false": None})  # PyYAML (YAML 1.1 without y/n) leaves `N` bare
    assert libyaml.load(text, "f.yaml") is None
    (problem,) = load_text(text, "f.yaml").problems
    assert "duplicate key" in problem.message


def test_documents_are_numbered_as_written_empty_ones_included() -> None:
    text = "kind: A\n---\n---\nkind: B\nspec: {x: [1, 'two', \"three\"]}\n...\n---\nkind: C\n"
    read = assert_read_as_composed(text)
    assert [(d.obj["kind"], d.document) for d in read] == [("A", 0), ("B", 2), ("C", 3)]
    assert str(read[1].position(FieldPath.root("spec", "x").index(2))) == "f.yaml:5:22"


@pytest.mark.parametrize(("text", "why"), [
    ("a: !!str 5\n", "an explicit tag"),
    ("<<: {a: 1}\nb: 2\n", "a merge key"),
    ("a: 1\na: 2\n", "a duplicate key"),
    ("? [a]\n: 1\n", "a complex key"),
    ("- a\n", "a list document"),
    ("kind: List\nitems: [1]\n", "an item that is not an object"),
    ("a: [\n", "a syntax error"),
    ("a: *b\n", "an alias without its anchor"),
])
def test_what_the_event_reader_does_not_take_goes_the_ruamel_way(text: str, why: str) -> None:
    assert libyaml.load(text, "f.yaml") is None, why


def test_keys_are_the_json_keys_kubernetes_makes_and_placed_by_them() -> None:
    """A plain key is resolved as go-yaml resolves it, then made the JSON key sigs.k8s.io/yaml makes (`off:` is
    "false", `0E0:` is "0", `010:` is "8"); both readers place its value by that key."""
    text = "1: a\ntrue: b\noff: c\n'q': d\n0E0: e\n1e7: f\n010: g\n"
    (read,) = assert_read_as_composed(text)
    assert list(read.obj) == ["1", "true", "false", "q", "0", "1e+07", "8"]
    assert [str(read.position(FieldPath().key(key))) for key in read.obj] == [
        "f.yaml:1:4", "f.yaml:2:7", "f.yaml:3:6", "f.yaml:4:6", "f.yaml:5:6", "f.yaml:6:6", "f.yaml:7:6"]
    (manifest,) = load_text(text, "f.yaml").manifests
    assert manifest.obj == read.obj
    assert [str(manifest.position(FieldPath().key(key))) for key in read.obj] == [
        "f.yaml:1:4", "f.yaml:2:7", "f.yaml:3:6", "f.yaml:4:6", "f.yaml:5:6", "f.yaml:6:6", "f.yaml:7:6"]


@pytest.mark.parametrize(("text", "problem"), [
    ("~: c\n", "f.yaml:1:1: invalid YAML: the key `~` has no JSON form (kubectl refuses a null key, or an integer "
                "key beyond int64): quote it"),
    ("a:\n  18446744073709551615: c\n", "f.yaml:2:3: invalid YAML: the key `18446744073709551615` has no JSON form "
                                        "(kubectl refuses a null key, or an integer key beyond int64): quote it"),
    ("on: 1\n'true': 2\n", 'f.yaml:2:1: invalid YAML: found duplicate key "true"'),
    ("a: {yes: 1, y: 2}\n", 'f.yaml:1:13: invalid YAML: found duplicate key "true" (kubectl reads the unquoted `y` '
                            "as true)"),
    ("01: 1\n1: 2\n", 'f.yaml:2:1: invalid YAML: found duplicate key "1"'),
])
def test_a_key_kubernetes_refuses_or_reads_twice_is_one_problem(text: str, problem: str) -> None:
    """YAMLToJSON has no JSON key for a null or uint64 key; two keys making one JSON key would leave one of the two
    values to Go's map order: the event reader leaves both to ruamel, which words the problem."""
    assert libyaml.load(text, "f.yaml") is None
    problems: list[Problem] = []
    assert parse(text, "f.yaml", problems) == []
    assert [str(p) for p in problems] == [problem]


def test_nesting_deeper_than_half_the_recursion_limit_is_read_by_the_composer() -> None:
    """The values are walked recursively later: the event reader leaves more containers open at once than half of
    Python's recursion limit to the composer, whose own recursion decides (a RecursionError is one problem for the
    file)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(800)  # (as a fresh process has it, whatever earlier tests left; within libyaml's 1,000)
    try:
        deepest = 400
        for containers in (deepest - 1, deepest, deepest + 1):
            lists = containers - 1  # inside the top mapping
            text = "a: " + "[" * lists + "]" * lists + "\n"
            try:
                read = libyaml.load(text, "f.yaml")
            except RecursionError:
                read = None
                assert containers > deepest
            if containers <= deepest:
                assert read is not None and isinstance(read[0], libyaml.EventDoc)
            else:
                assert read is None or isinstance(read[0], libyaml.Doc)
    finally:
        sys.setrecursionlimit(limit)


def test_every_corpus_file_is_read_and_placed_as_composed(corpus: Path) -> None:
    """Real manifests (comments, block scalars, anchors, several documents): the same objects and places."""
    read = 0
    for path in sorted([*corpus.rglob("*.yaml"), *corpus.rglob("*.yml")]):
        text = path.read_text(encoding="utf-8")
        if libyaml.load(text, "f.yaml") is not None:
            assert_read_as_composed(text)
            read += 1
    assert read >= 150


def test_a_selector_with_and_and_times_is_read_from_events() -> None:
    """`&&` and `*` in a CEL expression are no anchor or alias: only an alias sends a text to the composer."""
    text = "kind: DeviceClass\nspec:\n  selectors:\n  - cel: {expression: 'device.a * 2 > 1 && true'}\n"
    assert isinstance(assert_read_as_composed(text)[0], libyaml.EventDoc)
    aliased = "kind: A\nbase: &b {x: 1}\nspec: *b\n"
    (doc,) = assert_read_as_composed(aliased)
    assert isinstance(doc, libyaml.Doc) and doc.obj["spec"] == {"x": 1}
