"""`draguard review` on a request field of the wrong type says so: "missing" only when the field is not there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from webhook import cli

CLAIM = REPO / "examples" / "admissionreview-resourceclaim.json"


def review(tmp_path: Path, capsys: pytest.CaptureFixture[str], **request: Any) -> tuple[int, str, str]:
    data = json.loads(CLAIM.read_text(encoding="utf-8"))
    data["request"].update(request)
    for key in [k for k, v in request.items() if v is ...]:
        del data["request"][key]
    path = tmp_path / "review.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code = cli.main(["review", str(path)])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(path), "FILE")


@pytest.mark.parametrize(("request_fields", "message"), [
    ({"object": [1]}, "request.object: expected a JSON object, got an array"),
    ({"object": "x", "operation": "UPDATE"}, "request.object: expected a JSON object, got a string"),
    ({"oldObject": [1], "operation": "UPDATE"}, "request.oldObject: expected a JSON object, got an array"),
    ({"uid": 5}, "request.uid: expected a string, got a number"),
    ({"uid": ["u"]}, "request.uid: expected a string, got an array"),
    # not there at all: missing
    ({"object": None}, "request.object is missing: a CREATE review carries the object"),
    ({"object": ...}, "request.object is missing: a CREATE review carries the object"),
    ({"uid": ...}, "request.uid is missing or empty"),
    ({"uid": ""}, "request.uid is missing or empty"),
], ids=["object-list", "object-string-update", "old-object-list", "uid-number", "uid-list", "object-null",
        "object-absent", "uid-absent", "uid-empty"])
def test_a_field_of_the_wrong_type_is_not_called_missing(request_fields: dict[str, Any], message: str,
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert review(tmp_path, capsys, **request_fields) == (2, "", f"draguard: error: FILE: HTTP 400: {message}\n")
