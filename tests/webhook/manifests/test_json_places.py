"""webhook.manifests.jsonplaces: a JSON text's places found in the text, where the YAML reading puts them.

Every place is compared with libyaml's reading of the same text (the backend lint used for JSON before): the
position of every value of generated documents, of paths that go past the text (nearest ancestor), and the
offset of every string, over the layouts `json.dumps`, `kubectl` and `jq` write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from webhook.fieldpath import FieldPath
from webhook.manifests import libyaml, load_text, parse
from webhook.manifests.jsonplaces import JsonPlaces, counts_lines_as_yaml
from webhook.manifests.jsontext import JsonDoc
from webhook.manifests.objects import Locator

# What YAML can hold raw (its printable set; the line breaks only YAML counts are tested on their own).
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"),
                             exclude_characters="\ufeff\ufffe\uffff\u2028\u2029"), max_size=8)
SCALARS = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) \
    | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=25)
OBJECTS = st.dictionaries(TEXT, VALUES, min_size=1, max_size=5)
LAYOUTS = st.sampled_from([
    {"indent": None, "separators": (", ", ": ")},  # json.dumps
    {"indent": None, "separators": (",", ":")},  # jq -c
    {"indent": 4, "separators": (",", ": ")},  # kubectl get -o json
    {"indent": "\t", "separators": (",", ": ")},
    {"indent": 0, "separators": (" , ", " : ")},
])
PLACES = settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def paths(value: Any, here: FieldPath) -> Iterator[FieldPath]:
    """Every value's path below `here`, and one past each container's end (its nearest ancestor is placed)."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, here.key(key))
        yield here.child("not-a-field-of-it")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, here.index(i))
        yield here.index(len(value))
    else:
        yield here.child("below-a-scalar")


def assert_placed_as_yaml(text: str) -> None:
    docs: list[Locator] = list(parse(text, "f.json", []))
    reference: Sequence[Locator] | None = libyaml.load(text, "f.json")
    if reference is None:  # a NEL, LS or PS: the reference reader places it (YAML 1.2 lines)
        reference = load_text(text, "f.json").manifests
    assert all(isinstance(doc, JsonDoc) for doc in docs)
    for doc, ref in zip(docs, reference, strict=True):
        for path in paths(doc.obj, FieldPath()):
            assert doc.position(path) == ref.position(path), path
            assert doc.scalar_start(path) == ref.scalar_start(path), path


@PLACES
@given(OBJECTS, LAYOUTS, st.booleans())
def test_every_value_is_placed_where_yaml_places_it(obj: dict[str, Any], layout: dict[str, Any], crlf: bool) -> None:
    text = json.dumps(obj, ensure_ascii=False, **layout)
    assume("%YAML" not in text)  # (the libyaml backend leaves any text with a YAML directive to ruamel)
    assert [doc.obj for doc in parse(text, "f.json", [])] == [obj]
    assert_placed_as_yaml(text.replace("\n", "\r\n") if crlf else text)


@PLACES
@given(st.lists(OBJECTS, min_size=1, max_size=4), LAYOUTS)
def test_the_items_of_a_list_are_placed_where_yaml_places_them(items: list[dict[str, Any]],
                                                                layout: dict[str, Any]) -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, ensure_ascii=False, **layout)
    assume("%YAML" not in text)
    assert [doc.obj for doc in parse(text, "f.json", [])] == items
    assert_placed_as_yaml(text)


def test_a_text_with_line_breaks_only_yaml_1_1_counts_is_placed_as_json_scanning_places_it() -> None:
    """U+2028 may stand raw in a JSON string; YAML 1.1 (libyaml) counts it as a line break, YAML 1.2 (the reference
    reader) and JSON scanning do not; the value is JSON's, as kubectl reads it."""
    for odd in ("\u2028", "\u2029", "\x85"):
        text = json.dumps({"kind": "A", "a": f"x{odd}y", "b": "z"}, ensure_ascii=False, indent=2)
        assert counts_lines_as_yaml(text)
        assert_placed_as_yaml(text)
        assert str(parse(text, "f.json", [])[0].position(FieldPath.root("b"))) == "f.json:4:8"
        assert parse(text, "f.json", [])[0].obj["a"] == f"x{odd}y"
    assert counts_lines_as_yaml('{\r\n"a": 1}') and not counts_lines_as_yaml('{\r"a": 1}')


def test_places_are_found_without_reading_what_the_path_does_not_pass() -> None:
    """Only the containers on the way are scanned, each once."""
    text = json.dumps({"kind": "List", "items": [{"a": {"deep": [1, 2]}}, {"b": "x"}]}, indent=2)
    places = JsonPlaces(text)
    assert places.offset(FieldPath.root("items").index(1).child("b")) == (text.index('"x"'), True)
    assert places.offset(FieldPath.root("items").index(1).child("c")) == (text.index('{\n      "b"'), False)
    assert len(places._members) == 3  # the top, `items`, `items[1]`: not `items[0]` nor what it holds
    assert places.scalar_start(FieldPath.root("items").index(1).child("b")) == text.index('"x"')
    assert places.scalar_start(FieldPath.root("items")) is None


def test_a_big_list_is_placed_in_one_pass_over_its_items() -> None:
    items = [{"name": f"s{i}", "spec": {"devices": [{"name": "d"}] * 3}} for i in range(2000)]
    text = json.dumps({"kind": "List", "items": items}, indent=2)
    places = JsonPlaces(text)
    for i in (1999, 0, 1000):
        at, exact = places.offset(FieldPath.root("items").index(i).child("name"))
        assert exact and text[at:].startswith(f'"s{i}"')
    assert len(places._members[places.offset(FieldPath.root("items"))[0]]) == 2000


def test_json_that_yaml_cannot_read_is_read_and_placed() -> None:
    """A raw control character is valid JSON (kubectl reads it) and no YAML: such a text is read by the JSON backend
    alone and placed by scanning (before, lint read JSON as YAML and called this file invalid)."""
    text = '{"kind": "A", "note": "a\x7fb", "spec": {"x": 1}}'
    assert libyaml.load(text, "f.json") is None
    (doc,) = parse(text, "f.json", [])
    assert doc.obj["note"] == "a\x7fb"
    assert str(doc.position(FieldPath.root("spec", "x"))) == f"f.json:1:{text.index('1}') + 1}"


def test_a_member_too_deep_to_step_over_is_placed_at_its_container(monkeypatch: pytest.MonkeyPatch) -> None:
    """json.loads read the text from a shallower stack than a finding's lookup may run on: a value the decoder
    cannot step over from there leaves its container's members unplaced, not a crash."""
    from webhook.manifests import jsonplaces

    text = json.dumps({"a": {"deep": [1]}, "b": "x"})

    def too_deep(_text: str, _start: int) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(jsonplaces._DECODER, "raw_decode", too_deep)
    places = JsonPlaces(text)
    assert places.offset(FieldPath.root("b")) == (0, False)  # the top: its members could not be read
    assert places.offset(FieldPath.root("a", "deep")) == (0, False)
