"""Two inputs users hand the CLI that used to pass unchecked or crash:

- a typed list as the API server sends it (`kubectl get --raw /apis/resource.k8s.io/v1/resourceslices`, client-go
  dumps): its items carry no `kind` or `apiVersion`, the list's kind names them. They are checked as the objects
  they are, not skipped as kindless (which exited 0 with nothing checked);
- a closed standard input (`draguard validate - <&-`, Python's `sys.stdin` is None): one input problem, exit 2,
  for every command that reads `-`, not an internal error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from webhook import cli

SLICE_SPEC = {"driver": "dra.net", "pool": {"name": "p", "resourceSliceCount": 1, "generation": 0},
              "nodeName": "n1"}


def _raw_list(kind: str, items: list[dict[str, object]]) -> str:
    return json.dumps({"kind": kind, "apiVersion": "resource.k8s.io/v1", "metadata": {"resourceVersion": "7"},
                       "items": items})


def _item(name: str, numa: dict[str, object]) -> dict[str, object]:
    device = {"name": "d0", "attributes": {"dra.net/numaNode": numa}}
    return {"metadata": {"name": name}, "spec": {**SLICE_SPEC, "devices": [device]}}


def test_items_of_a_raw_typed_list_are_checked_as_its_kind(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "raw.json"
    path.write_text(_raw_list("ResourceSliceList", [_item("s1", {"int": 4}), _item("s2", {"ints": []})]),
                    encoding="utf-8")
    code = cli.main(["validate", str(path), "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert "2 objects checked; 1 deny" in out
    assert "k8s-attribute-union: spec.devices[0].attributes[dra.net/numaNode].ints: Invalid value: []" in out


def test_an_item_keeps_its_own_kind_and_apiversion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only what an item lacks comes from the list: an item that names another kind is that kind."""
    item = {**_item("s1", {"int": 4}), "kind": "ConfigMap", "apiVersion": "v1"}
    path = tmp_path / "mixed.json"
    path.write_text(_raw_list("ResourceSliceList", [item]), encoding="utf-8")
    code = cli.main(["validate", str(path), "--color", "never"])
    captured = capsys.readouterr()
    assert code == 0
    assert "0 objects checked" in captured.out


def test_items_of_an_untyped_list_without_kind_are_still_skipped(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`kind: List` names no kind for its items: a kindless item is no DRA object (as before)."""
    path = tmp_path / "list.json"
    path.write_text(_raw_list("List", [_item("s1", {"ints": []})]), encoding="utf-8")
    code = cli.main(["validate", str(path), "--color", "never"])
    assert code == 0
    assert "0 objects checked" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["validate", "-"], ["lint", "-"], ["review", "-"],
                                  ["explain", "-", "--slices", os.devnull], ["eval", "true", "--slices", "-"]])
def test_a_closed_stdin_is_one_input_problem(argv: list[str]) -> None:
    code = "import sys; from webhook.cli import main; sys.exit(main(sys.argv[1:]))"
    shell = 'python=$1 code=$2; shift 2; exec "$python" -c "$code" "$@" <&-'
    done = subprocess.run(["sh", "-c", shell, "sh", sys.executable, code, *argv],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "<stdin>: cannot read: standard input is closed" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
