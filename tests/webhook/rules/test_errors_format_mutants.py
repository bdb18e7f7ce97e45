"""The texts every Kubernetes parity finding is built from, as upstream writes them: Go's `%q` (`go_quote`),
`json.Marshal` (`go_json`), and field.Forbidden / TooLong / TooMany at and around their edges (a limit of 0 or 1,
a negative limit or count). Named `test_errors_*` so mutation testing runs it first on
`webhook.rules.k8s.errors`."""

from __future__ import annotations

import datetime

import pytest

from webhook.fieldpath import FieldPath
from webhook.rules.k8s.errors import forbidden, go_json, go_quote, too_long, too_many

PATH = FieldPath.root("spec")


@pytest.mark.parametrize(("text", "quoted"), [
    ("X", '"X"'), ("é", '"é"'), ("a\nb", '"a\\nb"'), ("\x7f", '"\\x7f"'), ("\x1f", '"\\x1f"'), ("\x85", '"\\u0085"'),
    ("\u2028", '"\\u2028"'), ("\u2029", '"\\u2029"'), ("\ufeff", '"\\ufeff"'),
    ("\ud800", '"\\ud800"'), ("\udfff", '"\\udfff"'), ("\ud7ff", '"\\ud7ff"'), ("\ud7fb", '"\ud7fb"'),
    ("\U0001f600", '"\U0001f600"'), ("\U000e0001", '"\\U000e0001"'),
    ("\xa0", '"\\u00a0"'), (" ", '" "'), ('"', '"\\""'),
])
def test_go_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


@pytest.mark.parametrize(("text", "quoted"), [("\xa0", '"\\u00a0"'), ("\ue000", '"\\ue000"')])
def test_go_quote_escapes_what_go_does_not_print(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_go_json() -> None:
    assert go_json("é<>&") == '"é\\u003c\\u003e\\u0026"'
    assert go_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'
    assert go_json({"b": 1, "a": 2}, sort_keys=False) == '{"b":1,"a":2}'
    assert go_json(datetime.date(2024, 1, 31)) == '"2024-01-31"'  # a YAML timestamp, as `lint` reads one
    circular: list[object] = []
    circular.append(circular)
    assert go_json(circular) == '"<value omitted>"'


def test_forbidden() -> None:
    assert forbidden(PATH, "").message == "Forbidden"
    assert forbidden(PATH, "x").message == "Forbidden: x"


@pytest.mark.parametrize(("limit", "message"), [
    (-1, "Too long: value is too long"), (0, "Too long: may not be more than 0 bytes"),
    (1, "Too long: may not be more than 1 byte"), (2, "Too long: may not be more than 2 bytes"),
])
def test_too_long(limit: int, message: str) -> None:
    assert too_long(PATH, limit).message == message


@pytest.mark.parametrize(("actual", "limit", "message"), [
    (0, 0, "Too many: 0: must have at most 0 items"), (1, 0, "Too many: 1: must have at most 0 items"),
    (2, 1, "Too many: 2: must have at most 1 item"), (-1, 3, "Too many: must have at most 3 items"),
    (3, -1, "Too many: 3: has too many items"), (0, 1, "Too many: 0: must have at most 1 item"),
])
def test_too_many(actual: int, limit: int, message: str) -> None:
    assert too_many(PATH, actual, limit).message == message
