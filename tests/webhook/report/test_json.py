"""The JSON reporter and the format registry."""

from __future__ import annotations

import json

import pytest

from webhook.errors import DraguardError
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.report import Summary, render


def test_document_shape() -> None:
    finding = Finding(FieldPath.root("spec"), "m", hint="h", rule="r", action=Action.WARN,
                      position=Position("a.yaml", 1, 2))
    document = json.loads(render("json", [finding], Summary(objects=1, skipped={"Pod": 1}, problems=["p"])))
    assert document == {
        "findings": [{"rule": "r", "action": "warn", "path": "spec", "message": "m", "hint": "h",
                      "file": "a.yaml", "line": 1, "column": 2}],
        "summary": {"objects": 1, "skipped": {"Pod": 1}, "suppressed": 0, "problems": ["p"],
                    "deny": 0, "warn": 1, "audit": 0},
    }


def test_json_ignores_colour() -> None:
    assert render("json", [], Summary(), color=True) == render("json", [], Summary())


def test_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(DraguardError, match="unknown format 'xml'; use one of "):
        render("xml", [], Summary())


def test_a_file_name_that_is_not_utf8_is_valid_json() -> None:
    """Python reads such a name's bytes as lone surrogates: written as their JSON escapes (Python's json reads the
    name back exactly), never as bytes that make the document invalid UTF-8."""
    name = "bytes \udcff.yaml"
    finding = Finding(FieldPath.root("spec"), "m", rule="r", action=Action.WARN, position=Position(name, 1, 2))
    text = render("json", [finding], Summary(problems=[f"{name}: bad"]))
    document = json.loads(text.encode("utf-8"))
    assert (document["findings"][0]["file"], document["summary"]["problems"]) == (name, [f"{name}: bad"])
    assert '"bytes \\udcff.yaml"' in text
