"""A `kind: List` whose `items` is not a list holds objects nobody checks: an input problem (exit 2), worded as the
problems with its items are, never a List skipped in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import cli
from webhook.manifests import read

CLAIM = ("{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c}, spec: {devices: {requests: "
         "[{name: r, exactly: {deviceClassName: d, selectors: [{cel: {expression: 'device.attributes[\"a.io\"].m == "
         "1'}}]}}]}}}")


@pytest.mark.parametrize(("text", "message"), [
    (f"apiVersion: v1\nkind: List\nitems: {{first: {CLAIM}}}\n", "items must be a list, not a mapping"),
    ("apiVersion: v1\nkind: List\nitems: oops\n", "items must be a list, not a string"),
    ("apiVersion: v1\nkind: ResourceClaimList\nitems: 5\n", "items must be a list, not a number"),
    ('{"apiVersion": "v1", "kind": "List", "items": {"a": {"kind": "DeviceClass"}}}\n',
     "items must be a list, not a mapping"),
], ids=["mapping", "string", "typed-list-number", "json-mapping"])
@pytest.mark.parametrize("command", ["lint", "validate"])
def test_items_that_are_not_a_list_are_an_input_problem(command: str, text: str, message: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "list.yaml"
    path.write_text(text, encoding="utf-8")
    code = cli.main([command, str(path)])
    out, err = capsys.readouterr()
    assert (code, err) == (2, f"draguard: {path}:1:1: {message}\n")
    assert out == "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n"


def test_every_reader_reports_items_that_are_not_a_list(tmp_path: Path) -> None:
    yaml_list, json_list = tmp_path / "a.yaml", tmp_path / "b.json"
    yaml_list.write_text("# dump\napiVersion: v1\nkind: List\nitems: {a: 1}\n", encoding="utf-8")
    json_list.write_text('{"apiVersion": "v1", "kind": "List", "items": "x"}', encoding="utf-8")
    objects, problems = read([str(yaml_list), str(json_list)])
    assert objects == []
    assert [str(p) for p in problems] == [f"{yaml_list}:2:1: items must be a list, not a mapping",
                                          f"{json_list}:1:1: items must be a list, not a string"]


@pytest.mark.parametrize("items", ["", "[]", "null"], ids=["empty", "empty-list", "null"])
def test_a_list_without_items_is_still_no_problem(items: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                  ) -> None:
    path = tmp_path / "list.yaml"
    path.write_text(f"apiVersion: v1\nkind: List\nitems: {items}\n", encoding="utf-8")
    assert cli.main(["lint", str(path), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_items_of_a_list_that_are_not_objects_keep_their_wording(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems: [null, 5]\n", encoding="utf-8")
    assert cli.main(["lint", str(path), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"draguard: {path}:1:1: items[0] is a null value, not an object\n"
                                       f"draguard: {path}:1:1: items[1] is a number, not an object\n")
