"""`lint --fix` writes exactly the fixed expression: a line break or a tab the rewrite copies from the selector (a
list literal written over two lines, a CEL string literal holding one) is spelled so that the file reads back as
that character, and the file stays valid in its format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webhook.fixprops import check_fix
from tests.webhook.fixprops import lint as lint_run

A = 'device.attributes["gpu.example.com"]'
HEAD = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n  - cel:\n"


def _fixed_yaml(tmp_path: Path, scalar: str) -> str:
    path = tmp_path / "class.yaml"
    path.write_text(HEAD + "      expression: " + scalar, encoding="utf-8")
    return check_fix(path)[len(HEAD) + len("      expression: "):]


def test_a_json_file_stays_json_and_its_string_literal_keeps_its_line_break(tmp_path: Path) -> None:
    """A tab written as it is is no JSON, and a line break written as a space changed the string compared."""
    expression = f'{A}.model == """a\nb""" && {A}.index in [0,\t1]'
    path = tmp_path / "class.json"
    path.write_text(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "g"},
                                "spec": {"selectors": [{"cel": {"expression": expression}}]}}) + "\n",
                    encoding="utf-8")
    check_fix(path, is_json=True)
    assert json.loads(path.read_text(encoding="utf-8"))["spec"]["selectors"][0]["cel"]["expression"] == (
        f'{A}.model.includes("""a\nb""") && [0,\t1].exists(v, {A}.index.includes(v))')


def test_a_line_break_in_a_single_quoted_string_literal_stays_one(tmp_path: Path) -> None:
    scalar = f"'{A}.model == \"\"\"a\n\n        b\"\"\"'\n"
    assert _fixed_yaml(tmp_path, scalar) == f"'{A}.model.includes(\"\"\"a\n\n        b\"\"\")'\n"


@pytest.mark.parametrize(("scalar", "fixed"), [
    # The rewrite starts on a more-indented line: its next line takes the block's indentation, not that line's.
    (f"|\n        device.driver == 'x' &&\n          {A}.index in [1,\n        2]\n",
     f"|\n        device.driver == 'x' &&\n          [1,\n        2].exists(v, {A}.index.includes(v))\n"),
    (f">\n        device.driver == 'x' &&\n          {A}.index in [1,\n          2]\n",
     f">\n        device.driver == 'x' &&\n          [1,\n          2].exists(v, {A}.index.includes(v))\n"),
    # Folded between two lines that start at the block's indentation, a kept line break is an empty line.
    (f">-\n        {A}.model == '''a\n\n        b'''\n",
     f">-\n        {A}.model.includes('''a\n\n        b''')\n"),
])
def test_a_block_scalar_keeps_the_line_breaks_of_the_rewrite(scalar: str, fixed: str, tmp_path: Path) -> None:
    assert _fixed_yaml(tmp_path, scalar) == fixed


def test_a_json_file_with_an_escaped_character_past_u_ffff(tmp_path: Path) -> None:
    """`json.dumps` escapes an emoji as a surrogate pair: read as two lone surrogates, the report that quoted
    them could not be printed (an internal error), and the fix could not place the rewrite after them."""
    path = tmp_path / "class.json"
    expression = f'{A}.name == "\U0001f600" && {A}.index == 4'
    path.write_text(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "g"},
                                "spec": {"selectors": [{"cel": {"expression": expression}}]}}), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    lint = lint_run(str(path))
    assert lint.code == 1
    assert f"class.json:1:{text.index('== 4') + 1}: warn list-fragile-compare" in lint.out
    check_fix(path, is_json=True)
    assert json.loads(path.read_text(encoding="utf-8"))["spec"]["selectors"][0]["cel"]["expression"] == (
        f'{A}.name.includes("\U0001f600") && {A}.index.includes(4)')
