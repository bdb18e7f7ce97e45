"""A byte that is not UTF-8 inside a JSON string (a value or a key) reads as U+FFFD, one per byte, as Go's
encoding/json reads it (kubectl's and the API server's reader, sigs.k8s.io/json: `unquoteBytes` takes such a byte
with `utf8.DecodeRune`, which gives U+FFFD and a width of 1), on every way a JSON text comes in: `validate`, `lint`,
`eval` and `explain` on a file or stdin, the webhook's review, the auth middleware's group check and the audit's
API answers. Outside every string the byte is refused (Go: `invalid character`), and in YAML too (go-yaml, which
sigs.k8s.io/yaml reads YAML with, refuses it in `yaml_parser_update_buffer`: "invalid leading UTF-8 octet")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.builders import slice_with
from tests.webhook.audit.test_client import _Client
from tests.webhook.auth.conftest import claims
from tests.webhook.auth.test_middleware import KEY, make_client, post
from tests.webhook.conftest import Server, admission_review, encode
from webhook.admission import review
from webhook.audit.client import Cluster
from webhook.errors import DraguardError
from webhook.wire import go_utf8

DRAGUARD = Path(sys.executable).with_name("draguard")

# (JSON bytes, the value Go's json.Unmarshal gives: checked with Go 1.2x's encoding/json)
GO_READS: list[tuple[bytes, Any]] = [
    (b'"a\xffb"', "a\ufffdb"),
    (b'"\xe2\x82"', "\ufffd\ufffd"),  # a sequence cut short: each byte on its own
    (b'"\xe2\x82A"', "\ufffd\ufffdA"),
    (b'"\xed\xa0\x80"', "\ufffd" * 3),  # a surrogate spelled in UTF-8: no UTF-8 in Go either
    (b'"\xc0\x80"', "\ufffd" * 2),  # an overlong NUL
    (b'"\xf4\x90\x80\x80"', "\ufffd" * 4),  # beyond U+10FFFF
    (b'"\xf8\x88\x80\x80\x80"', "\ufffd" * 5),  # a five-byte form
    (b'"\xc3\xe2\x82\xac"', "\ufffd\u20ac"),  # a lead byte without its continuation, then a whole character
    (b'"\xf0\x9f\x98\x80\xff"', "\U0001f600\ufffd"),
    (b'{"k\xff": 1}', {"k\ufffd": 1}),  # a key
    (b'"\\\\\xff"', "\\\ufffd"),  # after an escaped backslash
    (b'"\\"\xff"', '"\ufffd'),  # after an escaped quote
]


@pytest.mark.parametrize(("data", "value"), GO_READS)
def test_go_utf8_reads_each_bad_byte_in_a_string_as_go_does(data: bytes, value: Any) -> None:
    assert json.loads(go_utf8(data)) == value


@pytest.mark.parametrize(("data", "start"), [(b'{"a": 1}\xff', 8), (b'{"a":\xff1}', 5), (b'\xff{}', 0),
                                              (b'{"\xff": "\xe9", \xe9: 1}', 11)])
def test_go_utf8_refuses_a_bad_byte_outside_every_string_where_it_is(data: bytes, start: int) -> None:
    with pytest.raises(UnicodeDecodeError) as caught:
        go_utf8(data)
    assert (caught.value.start, caught.value.object) == (start, data)


# -- the CLI -------------------------------------------------------------------------------------------------------

CLASS = (b'{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "x%sy", '
         b'"labels": {"k%s": "v"}}, "spec": {}}\n')
BAD = CLASS % (b"\xff", b"\xe2\x82")
READ = CLASS % ("\ufffd".encode(), "\ufffd\ufffd".encode())  # the same text as Go reads it, in UTF-8


def draguard(*argv: str, stdin: bytes | None = None, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(DRAGUARD), *argv], input=stdin, cwd=cwd, capture_output=True, timeout=120,
                          check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.mark.parametrize("command", ["validate", "lint"])
@pytest.mark.parametrize("where", ["file", "stdin"])
def test_the_cli_reads_a_json_text_as_go_does(tmp_path: Path, command: str, where: str) -> None:
    (tmp_path / "bad.json").write_bytes(BAD)
    (tmp_path / "read.json").write_bytes(READ)
    if where == "file":
        bad, read = draguard(command, "bad.json", cwd=tmp_path), draguard(command, "read.json", cwd=tmp_path)
        read.stdout = read.stdout.replace("read.json", "bad.json")
    else:
        bad, read = draguard(command, "-", stdin=BAD, cwd=tmp_path), draguard(command, "-", stdin=READ, cwd=tmp_path)
    assert (bad.returncode, bad.stdout, bad.stderr) == (read.returncode, read.stdout, read.stderr)
    assert 'metadata.name: Invalid value: "x\ufffdy"' in bad.stdout  # placed where it is written
    assert 'metadata.labels: Invalid value: "k\ufffd\ufffd"' in bad.stdout
    assert bad.returncode == 1


def test_a_stream_of_json_documents_reads_a_bad_byte_in_a_later_document(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(READ.replace(b"x\xef\xbf\xbdy", b"ok") + BAD)
    done = draguard("validate", "s.json", "--format", "json", cwd=tmp_path)
    named = [(f["line"], f["message"]) for f in json.loads(done.stdout)["findings"] if f["rule"] == "k8s-object-meta"]
    assert [line for line, message in named if message.startswith('Invalid value: "x\ufffdy"')] == [2]


@pytest.mark.parametrize(("name", "data", "where"), [
    ("c.json", CLASS.replace(b'"kind"', b'\xff"kind"') % (b"", b""), "1:38"),  # JSON, outside a string
    ("c.json", b'{"a": "\xff"}\n\xe2\x82', "2:1"),  # JSON, cut short at the end, after the object
    ("c.yaml", b"kind: DeviceClass\nmetadata:\n  name: \"x\xffy\"\n", "3:11"),  # YAML: anywhere
    ("c.yaml", b"# caf\xe9\nkind: DeviceClass\n", "1:6"),  # even in a comment
    ("c.yaml", b"a: 1\n{\"b\": \"\xff\"}\n", "2:8"),  # YAML whose second line looks like JSON
    # texts that start as JSON but are read as YAML (go-yaml refuses the byte; kubectl's JSON decoder the text)
    ("c.yaml", b"{kind: \"x\xffy\"}\n", "1:10"),  # a flow mapping
    ("c.yaml", b"{\"a\": 1}\n---\nkind: \"\xff\"\n", "3:8"),  # JSON, then a YAML document
])
def test_a_bad_byte_outside_a_json_string_is_one_problem_at_its_place(tmp_path: Path, name: str, data: bytes,
                                                                     where: str) -> None:
    (tmp_path / name).write_bytes(data)
    for source, stdin in ((name, None), ("-", data)):
        done = draguard("validate", source, cwd=tmp_path, stdin=stdin)
        shown = name if stdin is None else "<stdin>"
        assert (done.returncode, done.stderr) == (2, f"draguard: {shown}:{where}: not UTF-8 text\n")
        assert done.stdout == "0 objects checked; 0 deny, 0 warnings, 0 audit; 1 input problem\n"


SLICE = (b'{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": '
         b'{"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, '
         b'"nodeName": "n", "devices": [{"name": "d", "attributes": {"model": {"string": "A\xff"}}}]}}\n')


def test_eval_reads_a_slice_as_go_does(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(SLICE)
    done = draguard("eval", 'device.attributes["gpu.example.com"].model == "A\\ufffd"', "--slices", "s.json",
                    "--format", "json", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert "gpu.example.com" in done.stdout


def test_explain_reads_stdin_as_go_does(tmp_path: Path) -> None:
    claim = (b'{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": '
             b'{"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "selectors": [{"cel": '
             b'{"expression": "device.attributes[\\"gpu.example.com\\"].model == \\"A\\\\ufffd\\""}}]}}]}}}\n')
    gpu = b'{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}}\n'
    (tmp_path / "claim.json").write_bytes(claim)
    (tmp_path / "gpu.json").write_bytes(gpu)
    done = draguard("explain", "claim.json", "--slices", "-", "--classes", "gpu.json", "--format", "json",
                    stdin=SLICE, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["claims"][0]["fits"] is True  # the selector's "A\ufffd" is the model read


@pytest.mark.parametrize("flag", ["--fix", "--diff"])
def test_lint_fix_leaves_a_file_holding_one_as_it_is(tmp_path: Path, flag: str) -> None:
    text = (b'{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c", "annotations": '
            b'{"a": "x\xffy"}}, "spec": {"selectors": [{"cel": {"expression": '
            b'"device.attributes[\\"gpu.example.com\\"].model == \\"A\\""}}]}}\n')
    (tmp_path / "c.json").write_bytes(text)
    done = draguard("lint", flag, "c.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "draguard: c.json: not fixed: the file holds bytes that are not UTF-8 (read as U+FFFD); fix it by hand")
    assert (tmp_path / "c.json").read_bytes() == text  # written back, each byte would be U+FFFD


# -- the webhook and the API clients -------------------------------------------------------------------------------

def slice_named(name: str) -> dict[str, object]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                     "nodeName": "n", "devices": [{"name": "d"}]}}


def raw_review(name: bytes, *, operation: str = "CREATE") -> bytes:
    """A review whose slice (and old slice) is named `name`, written as raw bytes."""
    old = slice_named("NAME") if operation == "UPDATE" else None
    body = encode(admission_review(slice_named("NAME"), uid="uid-bad", operation=operation, old=old))
    return body.replace(b'"NAME"', b'"' + name + b'"')


@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])  # UPDATE: the old object is read lazily
def test_review_parse_reads_a_bad_byte_as_go_does(operation: str) -> None:
    request = review.parse(raw_review(b"bad\xff\xe2\x82", operation=operation))
    assert request.object is not None and request.object["metadata"]["name"] == "bad\ufffd\ufffd\ufffd"
    if operation == "UPDATE":
        assert request.old_object is not None and request.old_object["metadata"]["name"] == "bad\ufffd\ufffd\ufffd"


@pytest.mark.slow
def test_the_webhook_reads_one_as_u_fffd_and_refuses_one_outside_a_string(webhook_server: Server) -> None:
    bad = webhook_server.post("/validate/resourceslices", raw_review(b"bad\xff"))
    read = webhook_server.post("/validate/resourceslices", raw_review("bad\ufffd".encode()))
    assert (bad.status, bad.response) == (read.status, read.response)
    assert bad.status == 200 and not bad.response["allowed"]
    assert 'metadata.name: Invalid value: "bad\ufffd"' in bad.response["status"]["message"]
    outside = raw_review(b"bad\xff").replace(b'"kind": "ResourceSlice"', b'"kind": "ResourceSlice"\xff')
    refused = webhook_server.post("/validate/resourceslices", outside)  # Go: invalid character
    assert (refused.status, refused.response["status"]["message"]) == (
        400, "request body is not valid JSON: not UTF-8")


@pytest.mark.parametrize(("group", "code"), [("*", 200), ("apps", 403)])
def test_the_group_check_reads_a_bad_byte_as_the_review_does(tmp_path: Path, group: str, code: int) -> None:
    body = encode(admission_review(slice_with(numa=1), uid="uid-mw")).replace(b'"resource.k8s.io"', b'"apps\xff"')
    status, answer = post(make_client(tmp_path), body, token=KEY.sign(claims(group=group)))
    assert status == code
    if code == 403:
        assert answer["message"] == "the token is attested for API group 'apps', not for 'apps\ufffd'"


def test_the_audit_reads_an_api_answer_as_go_clients_do() -> None:
    data = b'{"items": [{"metadata": {"name": "a\xffb"}}], "metadata": {}}'
    assert Cluster(_Client(200, data)).request("GET", "/apis/x") == {
        "items": [{"metadata": {"name": "a\ufffdb"}}], "metadata": {}}
    with pytest.raises(DraguardError, match="did not answer with JSON"):
        Cluster(_Client(200, data.replace(b"[", b"[\xff"))).request("GET", "/apis/x")
