"""Hostile input as a user or a CI job meets it, through the installed `draguard` program: each problem is one line
on stderr naming the file (and its line and column when known), the other inputs are still checked, the exit code
is 2, and nothing is passed over in silence."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

DRAGUARD = Path(sys.executable).with_name("draguard")
EXAMPLES = REPO / "examples" / "manifests"
CONTROL = "\x07"  # BEL: a character YAML does not allow anywhere in a stream (only tab, LF and CR of C0)


def draguard(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DRAGUARD), *argv, *(["--color", "never"] if argv[0] in ("lint", "validate") else [])],
                          cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("claim.yaml", "slices.yaml", "classes.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


# A control character YAML refuses, at line 4 column 11 (counted in characters, after a multi-byte one).
CONTROLLED = f'apiVersion: v1\nkind: List\nitems:\n- name: "é{CONTROL}"\n'
PLACE = "4:11: invalid YAML: unacceptable character #x0007: special characters are not allowed"


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_a_control_character_is_placed_by_line_and_column_and_the_rest_checked(command: str, work: Path) -> None:
    (work / "bell.yaml").write_text(CONTROLLED, encoding="utf-8")
    done = draguard(command, "bell.yaml", "claim.yaml", cwd=work)
    assert done.returncode == 2
    assert done.stderr == f"draguard: bell.yaml:{PLACE}\n"
    assert "list-fragile-compare" in done.stdout  # claim.yaml still checked


def test_a_control_character_in_an_inventory_or_a_policy_is_placed_too(work: Path) -> None:
    (work / "bell.yaml").write_text(CONTROLLED, encoding="utf-8")
    done = draguard("eval", "true", "--slices", "bell.yaml", cwd=work)
    assert (done.returncode, done.stderr) == (2, f"draguard: error: bell.yaml:{PLACE}\n")
    done = draguard("validate", "claim.yaml", "--config", "bell.yaml", cwd=work)
    assert (done.returncode, done.stderr) == (2, f"draguard: error: policy {work / 'bell.yaml'}:{PLACE}\n")


def test_a_control_character_after_crlf_lines_and_a_bom_is_placed_in_the_text_as_read(work: Path) -> None:
    (work / "crlf.yaml").write_bytes(b"\xef\xbb\xbfa: 1\r\nb: 2\r\nc: \"x\x1b\"\r\n")
    done = draguard("validate", "crlf.yaml", cwd=work)
    assert done.returncode == 2
    assert done.stderr == ("draguard: crlf.yaml:3:6: invalid YAML: unacceptable character #x001b: "
                           "special characters are not allowed\n")


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_a_named_pipe_in_a_walked_folder_is_reported_not_waited_on_nor_skipped(command: str, work: Path) -> None:
    os.mkfifo(work / "pipe.yaml")  # nobody writes: reading it would wait forever
    done = draguard(command, ".", cwd=work)
    assert done.returncode == 2
    assert done.stderr == ("draguard: pipe.yaml: cannot read: a named pipe, not a regular file "
                           "(name it on the command line to read it)\n")
    assert "list-fragile-compare" in done.stdout  # the folder's manifests still checked


def test_a_named_pipe_named_on_the_command_line_is_read(work: Path) -> None:
    os.mkfifo(work / "pipe.yaml")
    command = [str(DRAGUARD), "validate", "pipe.yaml", "--color", "never"]
    with subprocess.Popen(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        (work / "pipe.yaml").write_text((work / "slices.yaml").read_text())  # opens as the writer draguard waits for
        out, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (1, "")
    assert out.endswith("3 objects checked; 0 deny, 1 warning, 0 audit\n")


# A selector whose string literal holds an OSC escape sequence (it would set the terminal's title), a BEL and a NUL.
HOSTILE_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: "device.attributes[\\"gpu.example.com\\"].model == \\"A\\x1b]0;pwn\\x07\\x00\\u202e\\""}
"""


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_no_control_character_of_an_input_reaches_a_text_report(fmt: str, work: Path) -> None:
    (work / "hostile.yaml").write_text(HOSTILE_CLAIM, encoding="utf-8")
    done = draguard("lint", "hostile.yaml", "--format", fmt, cwd=work)
    assert done.returncode == 1
    assert 'includes("A\\x1b]0;pwn\\a\\x00\\u202e")' in done.stdout  # spelled as Go's %q spells them
    assert not [c for c in done.stdout if not c.isprintable() and c != "\n"]


def test_github_annotations_keep_their_own_escapes(work: Path) -> None:
    (work / "hostile.yaml").write_text(HOSTILE_CLAIM, encoding="utf-8")
    done = draguard("lint", "hostile.yaml", "--format", "github", cwd=work)
    first = done.stdout.splitlines()[0]
    assert first.startswith("::warning file=hostile.yaml,line=11,")
    assert "list%0Ahelp: " in first  # the runner's own escape for the line break before the help


def test_a_file_name_with_an_escape_sequence_is_spelled_out_on_stderr(work: Path) -> None:
    name = "bad\x1b[31m.yaml"
    (work / name).write_text("a: [", encoding="utf-8")
    expected = "bad\\x1b[31m.yaml:1:5: invalid YAML: expected the node content, but found '<stream end>'"
    done = draguard("validate", name, "claim.yaml", cwd=work)
    assert (done.returncode, done.stderr) == (2, f"draguard: {expected}\n")
    done = draguard("eval", "true", "--slices", name, cwd=work)
    assert (done.returncode, done.stderr) == (2, f"draguard: error: {expected}\n")


def test_explain_spells_out_the_node_names_of_its_note(work: Path) -> None:
    slices = (work / "slices.yaml").read_text(encoding="utf-8").replace("nodeName: node-a", 'nodeName: "node-\\x1b[2J"')
    (work / "slices.yaml").write_text(slices, encoding="utf-8")
    done = draguard("explain", "claim.yaml", "--slices", "slices.yaml", "--node", "node-b", cwd=work)
    assert done.stderr == ("draguard: note: no slice or Node object names node 'node-b' (known: node-\\x1b[2J); it "
                           "sees only slices for all nodes\n")


def test_a_dangling_draguard_yaml_link_is_an_error_not_the_default_policy(work: Path) -> None:
    (work / ".draguard.yaml").symlink_to(work / "gone.yaml")
    done = draguard("lint", "claim.yaml", cwd=work)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"draguard: error: policy {work.resolve() / '.draguard.yaml'}: cannot read: a symbolic "
                           "link to a missing file\n")


def test_a_dangling_link_named_by_config_or_review_says_so(work: Path) -> None:
    (work / "gone.yaml").symlink_to(work / "nothing.yaml")
    done = draguard("validate", "claim.yaml", "--config", "gone.yaml", cwd=work)
    assert (done.returncode, done.stderr) == (
        2, f"draguard: error: policy {work / 'gone.yaml'}: cannot read: a symbolic link to a missing file\n")
    done = draguard("review", "gone.yaml", cwd=work)
    assert (done.returncode, done.stderr) == (
        2, "draguard: error: gone.yaml: cannot read: a symbolic link to a missing file\n")


def test_strict_lines_on_stderr_spell_the_inputs_control_characters(work: Path) -> None:
    """`--strict`'s reasons quote a file's kinds: an escape sequence in one is spelled (`\\x1b`), as every other
    `draguard: ...` line on stderr spells it (`webhook.commands.common.tell`), never sent to the terminal."""
    (work / "odd.yaml").write_text('apiVersion: v1\nkind: "\\e[31mRed"\n', encoding="utf-8")
    done = draguard("validate", "--strict", "odd.yaml", cwd=work)
    assert done.returncode == 1
    assert "\x1b" not in done.stderr
    assert "draguard: strict: odd.yaml: nothing checked (\\x1b[31mRed 1)\n" in done.stderr
