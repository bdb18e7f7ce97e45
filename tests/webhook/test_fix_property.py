"""`lint --fix` on generated files: selectors (fragile and not, from the rules' examples and the corpus) written
in every YAML scalar style people and tools write, in every file shape draguard reads; the invariant is
`tests.webhook.fixprops.check_fix`'s. DRAGUARD_FUZZ_EXAMPLES=N runs N examples (default: a few seconds' worth)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from tests.conftest import CORPUS
from tests.webhook.fixprops import check_fix

SCALE = int(os.environ.get("DRAGUARD_FUZZ_EXAMPLES", "0"))
SETTINGS = settings(max_examples=SCALE or 40, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))

A = 'device.attributes["gpu.example.com"]'
N = 'device.attributes["resource.kubernetes.io"].numaNode'
OWN = [
    f"{N} == 4",
    f"{N} != 0 && {A}.rdma",
    f"{A}.index in [0, 1]",
    f"!{A}.rdma",
    f'{A}.model.include("A100")',
    f"{A}.model == 'it\\'s' || {N} == 1",
    f'{A}.name == "café ☕ 😀" && {N} == 4',
    f'{A}.name == "\\u00e9" && {A}.model != "x\\ty"',
    f"[0, 1].exists(n, {N} == n)",
    f"dyn({N}) == 4",
    "device.attributes[device.driver].numaNode == 0",
    f"{A}.?index.orValue(-1) == 4",
    f"{N} == 4 ? {A}.rdma : {A}.index == 2",
    f"{A}.index in [1,\n  2] && {A}.model == 'a  b'",
    f'{A}.model == """x""" && {A}.rdma',
    f'{A}.model == r"a\\d" && {A}.rdma == true',
    f'{A}.model.startsWith("A1")',
    f"{N}.includes(4)",
    f"{A}.rdma && {A}.ok && {A}.index == 0 && {N} == 4 && {A}.model.include('v')",
    f'{A}.model == "#: not a comment" && {N} != 2',
    "device.driver == \"gpu.example.com\"",
    f"{N}\t==\t4 &&\t{A}.rdma",
    f'{A}.model == "{"x" * 3000}" || {N} == 4',
    f"({N} == 4) == true",
    f"{A}.rdma == ({N} == 4)",
    f"!({N} != 4) && {A}.model.include({A}.name)",
    f"has({A}.index) ? {A}.index == 4 : false",
    f"{A}.model.include('a') == ({A}.index in [0])",
    f"{A}.l.include({N} == 4) && {A}.m.include({A}.n.include('x')).include('y')",
    f"{A}.rdma ? {N} == 1 : {A}.ok",
    f'{A}.model == """a\nb""" && {N} == 4',  # a line break inside a CEL string literal
    f"{A}.index in [0,\n1] && {A}.model == '''a\n  b'''",
    f"{N} == 4 // pinned, for now\n&& {A}.rdma",
]


def _corpus() -> list[str]:
    if not CORPUS.is_dir():
        return []
    index = YAML(typ="safe", pure=True).load((CORPUS / "cel-expressions.yaml").read_text(encoding="utf-8"))
    return [entry["expression"] for entry in index["expressions"]]


EXPRESSIONS = OWN + _corpus()

# -- scalar styles: each writes a value after `expression: ` at a key indented `indent` spaces ------------------
# A style may spell the value only approximately (folding drops spaces); the check reads what the file says.

Style = Callable[[st.DrawFn, str, int], str | None]


def plain(draw: st.DrawFn, value: str, indent: int) -> str | None:
    if "\n" in value or value != value.strip() or ": " in value or " #" in value or value[0] in "!&*[]{}|>'\"%@`#,?:-":
        return None
    return _fold(draw, value, indent + 2, draw(st.booleans()))


def single(draw: st.DrawFn, value: str, indent: int) -> str:
    text = value.replace("'", "''").replace("\n", "\n\n" + " " * (indent + 2))
    return "'" + _fold(draw, text, indent + 2, draw(st.booleans())) + "'"


def double(draw: st.DrawFn, value: str, indent: int) -> str:
    out = []
    for char in value:
        how = draw(st.integers(0, 9))
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t" if how < 5 else "\t")
        elif ord(char) > 0x7F and how < 6:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        elif char == "/" and how == 0:
            out.append("\\/")
        elif char.isalnum() and how == 0:
            out.append(f"\\x{ord(char):02x}")
        elif char == " " and how == 1:
            out.append("\\\n" + " " * (indent + 2) + "\\ ")  # an escaped line break, then an escaped space
        else:
            out.append(char)
    return '"' + _fold(draw, "".join(out), indent + 2, draw(st.booleans())) + '"'


def _fold(draw: st.DrawFn, text: str, indent: int, fold: bool) -> str:
    """Some single spaces between words become line breaks (a flow scalar reads them as spaces)."""
    if not fold:
        return text
    words = text.split(" ")
    out = words[0]
    for word in words[1:]:
        joint = "\n" + " " * indent if out and word and not out.endswith("\\") and draw(st.booleans()) else " "
        out += joint + word
    return out


def block(draw: st.DrawFn, value: str, indent: int) -> str | None:
    header = draw(st.sampled_from(["|", "|-", "|+", ">", ">-", "|2", ">+", "|2-", ">2"]))
    extra = draw(st.sampled_from([2, 2, 4]))
    lines = value.split("\n")
    if header.startswith(">") and draw(st.booleans()):
        lines = [part for line in lines for part in _fold(draw, line, 0, True).split("\n")]
    if "2" in header:  # an indentation indicator: the first line may be more indented than the block
        extra = 2
        lines[0] = draw(st.sampled_from(["", "  ", " "])) + lines[0]
    pad = " " * (indent + extra)
    comment = draw(st.sampled_from(["", "  # é comment"]))
    body = "".join(("\n" + pad + line) if line else "\n" for line in lines)
    return header + comment + body


STYLES: dict[str, Style] = {"plain": plain, "single": single, "double": double, "block": block}


@st.composite
def selector(draw: st.DrawFn, indent: int, flow: bool) -> str:
    value = draw(st.sampled_from(EXPRESSIONS))
    if flow:
        name = draw(st.sampled_from(["single", "double"]))
        return STYLES[name](draw, value, indent) or ""
    name = draw(st.sampled_from(sorted(STYLES)))
    spelled = STYLES[name](draw, value, indent)
    if spelled is None:
        spelled = double(draw, value, indent)
    comment = "" if name == "block" else draw(st.sampled_from(["", "  # note: é", " #x"]))
    properties = draw(st.sampled_from(["", "", "", "&sel ", "!!str ", "!!str &sel "]))
    return properties + spelled + comment


@st.composite
def yaml_object(draw: st.DrawFn) -> str:
    """A DeviceClass or ResourceClaim with one to three selectors."""
    kind = draw(st.sampled_from(["DeviceClass", "ResourceClaim"]))
    head = ["apiVersion: resource.k8s.io/v1", f"kind: {kind}", "metadata:", "  name: gpu  # café"]
    if kind == "DeviceClass":
        head += ["spec:", "  selectors:"]
        at = 2
    else:
        head += ["spec:", "  devices:", "    requests:", "    - name: r", "      exactly:",
                 "        deviceClassName: gpu.example.com", "        selectors:"]
        at = 8
    anchored = False
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            head.append(" " * at + "- cel: {expression: " + draw(selector(at + 2, True)) + "}")
        else:
            anchor = "" if anchored or draw(st.integers(0, 3)) else " &c"  # a `cel:` mapping two selectors share
            anchored |= bool(anchor)
            head += [" " * at + "- cel:" + anchor, " " * (at + 4) + "expression: " + draw(selector(at + 4, False))]
    if anchored:
        head.append(" " * at + "- cel: *c")
    return "\n".join(head) + "\n"


@st.composite
def yaml_file(draw: st.DrawFn) -> str:
    docs = [draw(yaml_object())]
    if draw(st.booleans()):
        docs.append("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  expression: a == 4\n")
    if "&sel" in docs[0] and draw(st.booleans()):  # the anchored selector used elsewhere too
        docs[0] += draw(st.sampled_from(["other: *sel\n", "spec2:\n  selectors:\n  - cel:\n      expression: *sel\n"]))
    if draw(st.booleans()):
        docs.append(draw(yaml_object()))
    if draw(st.integers(0, 3)) == 0:
        items = "".join("- " + doc.replace("\n", "\n  ").rstrip(" ") for doc in docs)
        docs = ["apiVersion: v1\nkind: List\nitems:\n" + items]
    text = draw(st.sampled_from(["---\n", "...\n---\n", "--- # next\n"])).join(docs)
    ending = draw(st.sampled_from(["", "", "no final line break", "\n\n"]))
    text = text.rstrip("\n") if ending == "no final line break" else text + ending
    return draw(st.sampled_from(["", "# é header\n", "---\n"])) + text


def _written(text: str, tmp: Path, name: str, crlf: str, bom: bool) -> Path:
    path = tmp / name
    path.write_bytes((("\ufeff" if bom else "") + text.replace("\n", crlf)).encode())
    return path


@pytest.mark.filterwarnings("ignore::ruamel.yaml.error.ReusedAnchorWarning")  # `&sel` on several selectors
@SETTINGS
@given(text=yaml_file(), crlf=st.sampled_from(["\n", "\n", "\r\n", "\r"]), bom=st.booleans())
def test_fix_rewrites_only_the_selectors(text: str, crlf: str, bom: bool) -> None:
    try:
        list(YAML(typ="safe", pure=True).load_all(text))
    except YAMLError:  # a spelling the generator got wrong: not what is tested
        event("not YAML")
        return
    with tempfile.TemporaryDirectory() as tmp:
        check_fix(_written(text, Path(tmp), "f.yaml", crlf, bom))


@SETTINGS
@given(values=st.lists(st.sampled_from(EXPRESSIONS), min_size=1, max_size=4), ascii_only=st.booleans(),
       indent=st.sampled_from([None, 2, "\t"]), shape=st.sampled_from(["object", "List", "stream"]),
       end=st.sampled_from(["", "\n"]), crlf=st.booleans())
def test_fix_of_json_files(values: list[str], ascii_only: bool, indent: Any, shape: str, end: str,  # noqa: PLR0917
                           crlf: bool) -> None:
    objects = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": f"g{i}"},
                "spec": {"selectors": [{"cel": {"expression": value}}]}} for i, value in enumerate(values)]
    if shape == "List":
        objects = [{"apiVersion": "v1", "kind": "List", "items": objects}]
    elif shape == "object":
        objects = [{**objects[0], "spec": {"selectors": [o["spec"]["selectors"][0] for o in objects]}}]
    text = "\n".join(json.dumps(o, ensure_ascii=ascii_only, indent=indent) for o in objects) + end
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.json"
        path.write_bytes(text.replace("\n", "\r\n" if crlf else "\n").encode())
        check_fix(path, is_json=True)
