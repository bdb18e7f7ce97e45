"""Unquoted YAML 1.1 words and numbers, end to end: read as kubectl reads them (sigs.k8s.io/yaml over go-yaml v2),
named in the findings they cause, and quoted wherever draguard writes YAML."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.webhook.manifests.test_goyaml import ROWS
from tests.webhook.topology.trees import EPYC_9825_NPS4
from webhook import cli
from webhook.commands.policy import render
from webhook.fieldpath import FieldPath
from webhook.manifests import libyaml, load_text, parse
from webhook.manifests.goyaml import dump_all

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpus
spec:
  driver: dra.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: gpu-0
    attributes:
      ecc: {bool: yes}
      mode: {string: on}
      resource.kubernetes.io/numaNode: {int: 010}
      dra.example.com/numaNode: {int: 8}
  - name: gpu-1
    attributes:
      ecc: {bool: "yes"}
      resource.kubernetes.io/numaNode: {int: 010}
      dra.example.com/numaNode: {int: 10}
"""
TYPES_HINT = ("give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and "
              "booleans bare, quantities like `16Gi`")


def test_validate_reads_yes_on_and_010_as_kubectl_does(tmp_path: Path) -> None:
    """`bool: yes` is true (kubectl applies it); `string: on` is a boolean the API server refuses, and the help says
    why; `int: 010` is 8, which agrees with the alias 8 and not with 10."""
    (tmp_path / "slice.yaml").write_text(SLICE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "webhook", "validate", "slice.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, check=False, env={"PYTHONPATH": str(REPO), "NO_COLOR": "1"})
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (
        "slice.yaml:13:22: deny k8s-wire-type: spec.devices[0].attributes[mode].string: Invalid value: true: must be "
        "of type string\n"
        f"  help: {TYPES_HINT}; kubectl (YAML 1.1) reads the unquoted `on` as the boolean true: quote it (\"on\") for "
        "the string\n"
        "slice.yaml:18:19: deny k8s-wire-type: spec.devices[1].attributes[ecc].bool: Invalid value: \"yes\": must be "
        "of type boolean\n"
        f"  help: {TYPES_HINT}\n"
        "slice.yaml:20:39: deny numa-node-alias-mismatch: spec.devices[1].attributes[dra.example.com/numaNode].int: "
        "dra.example.com/numaNode is 10 but resource.kubernetes.io/numaNode says the device is on NUMA node 8\n"
        "  help: publish the same physical node in both; selectors on dra.example.com/numaNode and on the standard "
        "attribute would otherwise pick different devices\n"
        "1 object checked; 3 deny, 0 warnings, 0 audit\n")


@pytest.mark.parametrize(("written", "note"), [
    ("{string: off}", "kubectl (YAML 1.1) reads the unquoted `off` as the boolean false: quote it (\"off\") for the "
                      "string"),
    ("{string: 0755}", "kubectl (YAML 1.1) reads the unquoted `0755` as the octal number 493: write the number in "
                       "decimal, or quote it (\"0755\") for the string"),
    ("{bool: 1}", None),
])
def test_the_help_names_a_yaml_1_1_scalar_on_every_reader_path(written: str, note: str | None, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The fast path, and ruamel's (a merge key sends the file there): the same findings and help."""
    head = SLICE.split("  devices:\n", maxsplit=1)[0]
    body = f"{head}  devices:\n  - name: d\n    attributes:\n      a: {written}\n"
    merged = "base: &b {x: 1}\n" + body.replace("metadata:\n", "metadata:\n  <<: *b\n", 1)
    for text in (body, merged):
        (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
        code = cli.main(["validate", "--format", "json", str(tmp_path / "s.yaml")])
        out, err = capsys.readouterr()
        assert (code, err) == (1, ""), text
        wanted = f"{TYPES_HINT}; {note}" if note else TYPES_HINT
        assert f'"hint": "{wanted}"'.replace('("', '(\\"').replace('")', '\\")') in out, out
        (tmp_path / "q.yaml").write_text(text.replace(f"a: {written}", "a: {string: 'on'}"), encoding="utf-8")
        assert cli.main(["validate", "--fail-on", "deny", str(tmp_path / "q.yaml")]) == 0  # quoted: a string
        capsys.readouterr()


def test_a_fix_that_would_leave_a_plain_yaml_1_1_word_is_not_read_back_as_the_string() -> None:
    path = FieldPath.root("v")
    assert libyaml.value_at("v: on\n", 0, path) is None
    assert libyaml.value_at("v: 'on'\n", 0, path) == "on"
    assert libyaml.value_at("v: onward\n", 0, path) == "onward"


STRINGS = [text for text, value in ROWS if not isinstance(value, str)]


@pytest.mark.parametrize("write", [lambda objs: render(objs, "yaml"), dump_all], ids=["policy-vap", "audit-report"])
def test_writers_quote_every_string_kubectl_would_read_as_another_type(write: object) -> None:
    objs = [{"kind": "X", "values": STRINGS, "keyed": dict.fromkeys(STRINGS, "v")}]
    text = write(objs)  # type: ignore[operator]
    problems: list[object] = []
    (doc,) = parse(text, "w.yaml", problems)  # type: ignore[arg-type]
    assert problems == []
    assert doc.obj["values"] == STRINGS and list(doc.obj["keyed"]) == STRINGS
    (slow,) = load_text(text, "w.yaml").manifests
    assert slow.obj == doc.obj


def test_topology_yaml_quotes_a_device_name_kubectl_would_read_as_another_type(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sys_root = EPYC_9825_NPS4.build(tmp_path / "sys")
    for name in ("on", "0755", "y", "eth0"):
        (sys_root / "bus/pci/devices/0000:01:00.0/net" / name).mkdir(parents=True)
    code = cli.main(["topology", "--sysfs-root", str(sys_root), "--pci", "0000:01:00.0", "--form", "list",
                     "--format", "yaml"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == textwrap.dedent("""\
        form: list
        pciDevices:
        - pciBusID: "0000:01:00.0"
          names: ['0755', eth0, 'on', 'y']
          numaNode: 0
          attributes:
            resource.kubernetes.io/numaNode: {ints: [0, 1, 2, 3]}
          reason: null
        """) + out.split("reason: null\n", 1)[1]


def test_explain_names_an_unquoted_yaml_1_1_word_it_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """eval and explain refuse a misshapen field in one line; a namespace `n` is the boolean false to kubectl."""
    (tmp_path / "slice.yaml").write_text(SLICE, encoding="utf-8")
    (tmp_path / "claim.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: n}\nspec:\n"
        "  devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: gpu}\n", encoding="utf-8")
    code = cli.main(["explain", str(tmp_path / "claim.yaml"), "--slices", str(tmp_path / "slice.yaml")])
    assert (code, capsys.readouterr().err) == (2, (
        f"draguard: error: {tmp_path / 'claim.yaml'}:3:32: ResourceClaim c: metadata.namespace must be a string, not a "
        "boolean (kubectl (YAML 1.1) reads the unquoted `n` as the boolean false: quote it (\"n\") for the string)\n"))


# -- infinities and NaN have no JSON form: kubectl refuses the file ----------------------------------------------

@pytest.mark.parametrize(("written", "go"), [
    (".inf", "+Inf"), ("-.Inf", "-Inf"), ("+.INF", "+Inf"), (".nan", "NaN"), ("!!float .inf", "+Inf")])
@pytest.mark.parametrize("aliased", [False, True], ids=["plain", "with an alias"])
def test_an_infinity_or_nan_value_is_an_input_problem(written: str, go: str, aliased: bool, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """sigs.k8s.io/yaml converts with json.Marshal (`json: unsupported value: +Inf`): kubectl applies nothing of the
    file, so draguard checks nothing of it, even in opaque parameters no rule reads."""
    prefix = "anchor: &a x\n" if aliased else ""
    text = prefix + textwrap.dedent(f"""\
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {{name: gpu}}
        spec:
          config:
          - opaque:
              driver: gpu.example.com
              parameters: {{ok: ".inf", scale: {written}}}
        """)
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 2
    out, err = capsys.readouterr()
    shown = go if written.startswith("!!") else written
    line = 8 + aliased
    assert err == (f"draguard: {tmp_path / 'c.yaml'}:{line}:{text.splitlines()[line - 1].rindex(written) + 1}: "
                   f"invalid YAML: `{shown}` has no JSON form: kubectl's YAML-to-JSON step fails on it "
                   f"(json: unsupported value: {go}); quote it for a string\n")
    assert "0 objects checked" in out


def test_an_infinity_as_a_key_or_quoted_is_no_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  config:\n"
            "  - opaque:\n      driver: gpu.example.com\n      parameters: {.inf: '.inf', n: \".nan\"}\n")
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.yaml")]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("number", "why"), [
    ("NaN", "NaN is no JSON value"), ("Infinity", "Infinity is no JSON value"),
    ("-Infinity", "-Infinity is no JSON value"), ("1e999", "the number 1e999 does not fit a float64"),
])
@pytest.mark.parametrize("stream", [False, True], ids=["one document", "a jq -c stream"])
def test_a_json_text_kubectl_cannot_decode_is_an_input_problem(number: str, why: str, stream: bool, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Python's json reads NaN, Infinity and 1e999 (as inf); Go's decoder, kubectl's for a text starting with `{`,
    refuses each, so kubectl applies nothing of the file. 1.5e3 is a number as any."""
    good = '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}}\n'
    bad = ('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "b"}, "spec": '
           '{"config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"ok": 1.5e3, "v": '
           + number + '}}}]}}\n')
    (tmp_path / "c.json").write_text((good if stream else "") + bad, encoding="utf-8")
    assert cli.main(["validate", str(tmp_path / "c.json")]) == 2
    _out, err = capsys.readouterr()
    assert err == f"draguard: {tmp_path / 'c.json'}: invalid JSON: {why} (Go's decoder, kubectl's, refuses it)\n"
