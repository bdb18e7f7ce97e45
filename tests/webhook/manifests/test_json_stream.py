"""A stream of JSON documents (`jq '.items[]'`, `jq -c`), as `kubectl apply -f` reads it: every document is an
object placed where it is written, and a document that is not a JSON object is one problem at its place."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from webhook import cli
from webhook.fieldpath import FieldPath
from webhook.manifests import parse, read

HERE = Path(__file__).resolve().parents[3]


def claim(name: str, product: str) -> dict[str, object]:
    expression = f'device.attributes["gpu.nvidia.com"].productName == "{product}"'
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                "deviceClassName": "gpu", "selectors": [{"cel": {"expression": expression}}]}}]}}}


def slice_with(name: str, numa: int) -> dict[str, object]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "d.io", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "attributes": {"resource.kubernetes.io/numaNode": {"int": numa}}}]}}


PRETTY = "\n".join(json.dumps(o, indent=2) for o in (claim("a", "A100"), slice_with("s", -1))) + "\n"
COMPACT = (json.dumps(claim("b", "H100")) + "\n" + json.dumps(slice_with("t", -2)) + "  "
           + json.dumps(claim("c", "B200")) + "\n\n  " + json.dumps(claim("d", "H200")) + "\n")


def blanked(text: str, start: int, end: int) -> str:
    """`text` with everything but `text[start:end]` blanked (line breaks kept): that one document, at its place."""
    return re.sub(r"[^\n]", " ", text[:start]) + text[start:end] + re.sub(r"[^\n]", " ", text[end:])


def alone(text: str) -> list[str]:
    """Each document of a JSON stream on its own, at the same lines, columns and offsets."""
    decoder, out, start = json.JSONDecoder(), [], 0
    while (start := len(text) - len(text[start:].lstrip())) < len(text):
        _value, end = decoder.raw_decode(text, start)
        out.append(blanked(text, start, end))
        start = end
    return out


def findings(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[tuple[object, ...]]]:
    code = cli.main([*args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    return code, [(f["rule"], f["path"], f["line"], f["column"]) for f in report["findings"]]


@pytest.mark.parametrize("text", [PRETTY, COMPACT], ids=["jq-items", "jq-compact"])
def test_a_json_stream_is_read_with_each_finding_where_it_is_written(text: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "stream.json"
    stream.write_text(text, encoding="utf-8")
    expected: list[tuple[object, ...]] = []
    for number, single in enumerate(alone(text)):
        one = tmp_path / f"alone{number}.json"
        one.write_text(single, encoding="utf-8")
        _code, found = findings(["lint", str(one)], capsys)
        expected += found
    code, found = findings(["lint", str(stream)], capsys)
    assert code == 1
    assert len(found) == len(expected) == len(alone(text))  # a selector per claim, a negative numaNode per slice
    assert found == expected


def test_a_json_stream_on_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(COMPACT.encode())))
    code = cli.main(["validate", "-"])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    line, column = 2, COMPACT.splitlines()[1].index('-2}') + 1
    assert f"<stdin>:{line}:{column}: deny numa-node-range" in out
    assert "4 objects checked;" in out


def test_lint_fix_rewrites_every_document_of_a_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "claims.json"
    stream.write_text(COMPACT, encoding="utf-8")
    assert cli.main(["lint", "--fix", str(stream)]) == 1  # the slice's negative numaNode stays
    err = capsys.readouterr().err
    assert err.count("draguard: fixed ") == 3, err
    fixed = stream.read_text(encoding="utf-8")
    assert fixed == COMPACT.replace('productName == \\"', 'productName.includes(\\"').replace('0\\""', '0\\")"')


def test_a_streams_objects_are_placed_where_the_stream_writes_them() -> None:
    problems: list[object] = []
    docs = parse(COMPACT, "s.json", problems)  # type: ignore[arg-type]
    assert problems == []
    assert [d.obj["metadata"]["name"] for d in docs] == ["b", "t", "c", "d"]
    assert [d.document for d in docs] == [0, 1, 2, 3]
    expression = FieldPath.root("spec", "devices", "requests").index(0).child("exactly").child(
        "selectors").index(0).child("cel").child("expression")
    for doc, single in zip(docs, alone(COMPACT), strict=True):
        (reference,) = parse(single, "s.json", [])
        assert doc.position(expression) == reference.position(expression)
        assert doc.scalar_start(expression) == reference.scalar_start(expression)


@pytest.mark.parametrize(("tail", "message"), [
    ('{"kind": "A",, "b": 1}\n', "4:14: invalid JSON: Expecting property name enclosed in double quotes"),
    ("kind: DeviceClass\n", "4:1: invalid JSON: Expecting value"),
    ("garbage", "4:1: invalid JSON: Expecting value"),
    ('[{"kind": "A"}]\n', "4:1: document 3 is a list, not an object"),
    ('  "text"\n', "4:3: document 3 is a string, not an object"),
], ids=["syntax-error", "yaml-after-json", "garbage", "list", "string"])
def test_a_stream_with_a_document_that_is_not_a_json_object_is_one_problem(
        tail: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(claim("a", "A100")) + "\n" + json.dumps(slice_with("s", 0), indent=None)
                    + "\n\n" + tail, encoding="utf-8")
    code = cli.main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert (code, err) == (2, f"draguard: {path}:{message}\n")
    assert out == "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n"


def test_a_document_of_a_stream_that_yaml_refuses_is_placed_in_the_stream(tmp_path: Path) -> None:
    """Each document is read as a text of its own: its problem is placed in the stream, the others are read."""
    path = tmp_path / "s.json"
    path.write_text('{"kind": "A"}\n  {"kind": "B",\n "kind": "C"}\n', encoding="utf-8")
    objects, problems = read([str(path)])
    assert [o.obj for o in objects] == [{"kind": "A"}]
    (problem,) = problems
    assert (problem.line, problem.column) == (3, 2)
    assert "duplicate key" in problem.message


@pytest.mark.parametrize("text", [
    '{"kind": "A",, "b": 1}\n{"kind": "B"}\n',
    '{"kind": "A"\n',
], ids=["first-document", "unclosed"])
def test_a_broken_first_document_keeps_the_yaml_readers_problem(text: str, tmp_path: Path) -> None:
    from webhook.manifests import load_text

    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8")
    _objects, problems = read([str(path)])
    assert [str(p) for p in problems] == [str(p) for p in load_text(text, str(path)).problems]
    assert len(problems) == 1 and problems[0].message.startswith("invalid YAML: ")
