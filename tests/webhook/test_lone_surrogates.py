"""A lone UTF-16 surrogate's escape in JSON (`"\\ud800"`, half of `json.dumps`' spelling of an emoji) is read as
Go's encoding/json reads it, U+FFFD, by every JSON reader (`draguard validate`/`lint` on a file or stdin, the
webhook's review, `draguard review`), and every output holds what was read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.webhook.conftest import Server, admission_review
from webhook.admission import review
from webhook.wire import go_json

DRAGUARD = Path(sys.executable).with_name("draguard")
LONE = "\\ud800"  # as written in the JSON text
# Go's decoder: a high surrogate's escape followed by a low one's is one character; any other surrogate escape is
# U+FFFD on its own, and the escape after it is read anew (k8s.io/apimachinery reads JSON with Go's unquote rules).
GO_READS = [
    ('"\\ud800"', "\ufffd"),
    ('"\\udc00x"', "\ufffdx"),  # a low surrogate alone
    ('"\\uD83D\\uDE00"', "\U0001f600"),  # a pair, upper case
    ('"\\ud800\\u0041"', "\ufffdA"),  # a high surrogate before no low one
    ('"\\ud800\\ud800\\udc00"', "\ufffd\U00010000"),  # the second high surrogate pairs with the low one
    ('"\\ude00\\ud83d"', "\ufffd\ufffd"),  # a pair the wrong way round
    ('"\\\\ud800"', "\\ud800"),  # an escaped backslash, then text
    ('"\\\\\\ud800"', "\\\ufffd"),  # an escaped backslash, then the escape
    ('"\\ud7ff\\ue000"', "\ud7ff\ue000"),  # the code points either side of the surrogates
]


@pytest.mark.parametrize(("text", "value"), GO_READS)
def test_go_json_reads_surrogate_escapes_as_go_does(text: str, value: str) -> None:
    assert json.loads(go_json(text)) == value
    assert go_json(text.encode()) == go_json(text).encode()
    assert len(go_json(text)) == len(text)  # every offset stays where it was


def test_text_without_a_surrogate_escape_is_returned_as_it_is() -> None:
    text = '{"a": "\\u00e9"}'
    assert go_json(text) is text  # no `\\uD` in it: not scanned
    hangul = '{"a": "\\ud55c"}'  # a `\\uD` escape, but of a Hangul syllable, not a surrogate
    assert go_json(hangul) == hangul
    body = b'{"a": "plain"}'
    assert go_json(body) is body


DEVICE_CLASS = ('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "x' + LONE
                + 'y"}, "spec": {}}\n')
INVALID = 'Invalid value: "x\ufffdy"'
NAME_ERROR = f"metadata.name: {INVALID}: a lowercase RFC 1123 subdomain"


def draguard(*argv: str, stdin: str | None = None, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DRAGUARD), *argv], input=stdin, cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=False)


@pytest.mark.parametrize("command", ["validate", "lint"])
@pytest.mark.parametrize("where", ["file", "stdin"])
def test_the_cli_reads_a_lone_surrogate_as_u_fffd(tmp_path: Path, command: str, where: str) -> None:
    (tmp_path / "c.json").write_text(DEVICE_CLASS, encoding="utf-8")
    source = "c.json" if where == "file" else "-"
    done = draguard(command, source, "--color", "never", stdin=DEVICE_CLASS if where == "stdin" else None,
                    cwd=tmp_path)
    name = "c.json" if where == "file" else "<stdin>"
    assert done.stderr == ""
    assert done.stdout.startswith(f"{name}:1:82: deny k8s-object-meta: {NAME_ERROR}")  # placed as written
    assert done.returncode == 1


@pytest.mark.parametrize("form", ["json", "sarif", "junit", "github", "text"])
def test_every_report_format_holds_the_replacement_character(tmp_path: Path, form: str) -> None:
    (tmp_path / "c.json").write_text(DEVICE_CLASS, encoding="utf-8")
    done = draguard("validate", "c.json", "--format", f"{form}=out", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert "x\ufffdy" in (tmp_path / "out").read_text(encoding="utf-8")


def test_a_json_stream_and_a_json_text_read_as_yaml_read_it_as_go_does(tmp_path: Path) -> None:
    stream = DEVICE_CLASS + DEVICE_CLASS.replace('"x', '"z')  # `jq -c`: one document a line
    (tmp_path / "s.json").write_text(stream, encoding="utf-8")
    # a trailing comment: no JSON text, so the YAML readers take it (NaN did, before it became kubectl's refusal)
    not_json = DEVICE_CLASS.rstrip("\n") + "  # a YAML comment\n"
    (tmp_path / "y.json").write_text(not_json, encoding="utf-8")
    done = draguard("validate", "s.json", "y.json", "--format", "json", cwd=tmp_path)
    named = [(f["file"], f["line"], f["message"][:len(INVALID)]) for f in json.loads(done.stdout)["findings"]
             if f["rule"] == "k8s-object-meta"]
    assert named == [("s.json", 1, INVALID), ("s.json", 2, INVALID.replace("x", "z")), ("y.json", 1, INVALID)]


def test_lint_fix_rewrites_a_selector_holding_one(tmp_path: Path) -> None:
    expression = f'device.attributes[\\"x{LONE}.com\\"].numaNode == 1'
    text = ('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"}, '
            f'"spec": {{"selectors": [{{"cel": {{"expression": "{expression}"}}}}]}}}}\n')
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    done = draguard("lint", "--fix", "c.json", cwd=tmp_path)
    assert done.stderr.startswith("draguard: fixed c.json:1:135: ")
    fixed = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert fixed["spec"]["selectors"][0]["cel"]["expression"] == (
        'device.attributes["x\ufffd.com"].numaNode.includes(1)')


def slice_named(name: str) -> dict[str, object]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                     "nodeName": "n", "devices": [{"name": "d"}]}}


@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])  # UPDATE: the old object is read lazily
def test_review_parse_reads_a_lone_surrogate_as_u_fffd(operation: str) -> None:
    old = slice_named("old\ud800") if operation == "UPDATE" else None
    body = json.dumps(admission_review(slice_named("new\ud800"), operation=operation, old=old)).encode()
    assert b"\\ud800" in body  # json.dumps' spelling of it
    request = review.parse(body)
    assert request.object is not None and request.object["metadata"]["name"] == "new\ufffd"
    if old is not None:
        assert request.old_object is not None and request.old_object["metadata"]["name"] == "old\ufffd"


@pytest.mark.slow
def test_the_webhook_answers_a_review_holding_one(webhook_server: Server) -> None:
    body = json.dumps(admission_review(slice_named("bad\ud800"), uid="uid-lone")).encode()
    reply = webhook_server.post("/validate/resourceslices", body)
    assert reply.status == 200
    reply.body.decode("utf-8")  # strict UTF-8: no surrogate escaped or raw in the answer
    response = reply.response
    assert response["uid"] == "uid-lone" and not response["allowed"]
    assert 'metadata.name: Invalid value: "bad\ufffd"' in response["status"]["message"]


def test_draguard_review_answers_one(tmp_path: Path) -> None:
    body = json.dumps(admission_review(slice_named("bad\ud800"), uid="uid-lone"))
    done = draguard("review", "-", stdin=body, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert 'Invalid value: \\"bad\\ufffd\\"' in done.stdout  # json.dumps' spelling of U+FFFD
