"""The `lint --fix` invariant, checked on a file: what `test_fix_property` generates, and regression tests reuse.

After `draguard lint --fix` a file reads (with an independent YAML reader: ruamel's pure-Python one, or `json`) as
the same objects except the rewritten selectors; each rewritten selector is exactly the expression the rules'
edits give (and compiles); every character outside the rewritten scalars is as it was; `--diff` showed exactly
that change; a second `--fix` changes nothing; and a fixable selector left as it was is named on stderr.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ruamel.yaml import YAML

import celext
from webhook import cli
from webhook.fieldpath import FieldPath
from webhook.findings import Edit
from webhook.fix import apply_to_value
from webhook.manifests import value_at
from webhook.manifests.objects import expand
from webhook.policy import Policy
from webhook.run import run_rules, source_path
from webhook.wire import kind_of

BOM = "\ufeff"


class Outcome(NamedTuple):
    """One CLI run."""

    code: int
    out: str
    err: str


def lint(*argv: str) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["lint", "--quiet", "--jobs", "1", *argv])
    return Outcome(code, out.getvalue(), err.getvalue())


def decode(raw: bytes) -> str:
    """The file's characters exactly (line breaks and byte order mark kept)."""
    return raw.decode("utf-8")


def _pieces(body: str, is_json: bool) -> list[tuple[int, str]]:
    """The texts a reader reads one by one, with where each starts: the documents of a JSON stream (`jq -c`), else
    the whole text."""
    if not is_json:
        return [(0, body)]
    decoder, pieces, at = json.JSONDecoder(), [], 0
    while body[at:].strip():
        start = len(body) - len(body[at:].lstrip())
        _value, at = decoder.raw_decode(body, start)
        pieces.append((start, body[start:at]))
    return pieces


def _documents(text: str, is_json: bool) -> list[Any]:
    body = text.removeprefix(BOM)
    if is_json:
        return [json.loads(piece) for _start, piece in _pieces(body, is_json)]
    return list(YAML(typ="safe", pure=True).load_all(body))


def _scalar_ranges(text: str, is_json: bool) -> list[tuple[int, int]]:
    """[start, end) of every `expression` value scalar in `text` (its characters), by ruamel's composer."""
    ranges: list[tuple[int, int]] = []
    body = text.removeprefix(BOM)

    def walk(node: Any, shift: int) -> None:
        if node.id == "mapping":
            for key, value in node.value:
                if key.value == "expression" and value.id == "scalar":
                    ranges.append((value.start_mark.index + shift, value.end_mark.index + shift))
                walk(value, shift)
        elif node.id == "sequence":
            for item in node.value:
                walk(item, shift)

    for start, piece in _pieces(body, is_json):
        for node in YAML(typ="safe", pure=True).compose_all(piece):
            if node is not None:
                walk(node, start + len(text) - len(body))
    return ranges


def _targets(documents: list[Any]) -> Iterator[tuple[int, FieldPath, str, list[Edit]]]:
    """Each selector with safe edits: its document, path from the document root, value and the edits."""
    policy = Policy.default()
    for number, root in enumerate(documents):
        if not isinstance(root, dict):
            continue
        for base, obj in expand(root, FieldPath()):
            if not isinstance(obj, dict) or kind_of(obj) not in ("DeviceClass", "ResourceClaim",
                                                                  "ResourceClaimTemplate"):
                continue
            groups: dict[str, tuple[FieldPath, list[Edit]]] = {}
            for finding in run_rules(obj, policy).findings:
                if finding.fix is not None and finding.fix.safe:
                    written = source_path(obj, finding.path)
                    groups.setdefault(str(written), (written, []))[1].append(finding.fix)
            for written, edits in groups.values():
                value = value_at(obj, written)
                if isinstance(value, str):
                    yield number, base.join(written), value, edits


def waiting(edits: list[Edit]) -> list[Edit]:
    """The edits one run applies: an edit overlapping an earlier one waits (webhook.fix)."""
    chosen: list[Edit] = []
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if not chosen or edit.start >= chosen[-1].end:
            chosen.append(edit)
    return chosen


def _set(root: Any, path: FieldPath, value: str) -> None:
    steps = [segment for segment, _key in path.steps()]
    node = root
    for segment in steps[:-1]:
        node = node[segment]
    node[steps[-1]] = value


def _get(root: Any, path: FieldPath) -> Any:
    node = root
    for segment, _key in path.steps():
        node = node[segment]
    return node


def apply_unified_diff(old: str, diff: str) -> str:
    """`old` with a unified diff's hunks applied, as `patch` reads them (`\\ No newline at end of file` included)."""
    lines = old.splitlines(keepends=True)
    entries: list[list[str]] = []  # [tag, line] of each hunk line, `@` for a hunk header
    for line in diff.splitlines(keepends=True):
        if line.startswith("\\"):
            entries[-1][1] = entries[-1][1].removesuffix("\n")
        elif line[:1] in (" ", "-", "+", "@") and not line.startswith(("--- ", "+++ ")):
            entries.append([line[:1], line[1:]])
    out: list[str] = []
    at = 0
    for tag, line in entries:
        if tag == "@":
            hunk = re.match(r"@ -(\d+)(?:,(\d+))? ", line)
            assert hunk is not None, line
            start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
            out += lines[at:start]
            at = start
        elif tag == "+":
            out.append(line)
        else:
            assert lines[at] == line, (lines[at], line)
            out += [line] if tag == " " else []
            at += 1
    return "".join(out + lines[at:])


def _universal(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def check_fix(path: Path, *, is_json: bool = False) -> str:
    """Run --diff, --fix and --fix again on `path` and assert the invariant; the fixed text."""
    raw = path.read_bytes()
    old = decode(raw)
    before = _documents(old, is_json)
    targets = list(_targets(before))

    diff = lint("--diff", str(path))
    assert path.read_bytes() == raw, "--diff wrote the file"
    fixed = lint("--fix", str(path))
    new_raw = path.read_bytes()
    new = decode(new_raw)
    assert "Traceback" not in fixed.err + diff.err

    expected = _documents(old, is_json)
    for number, where, value, edits in targets:
        got = _get(_documents(new, is_json)[number], where)
        meant = apply_to_value(value, waiting(edits))
        wrapped = {meant, _parenthesised(value, waiting(edits))}
        if got == value and meant != value:
            assert "not fixed: " in fixed.err, f"{where}: a fixable selector was left as it was, silently"
        else:
            assert got in wrapped, f"{where}: {value!r} was rewritten to {got!r}, meant {meant!r}"
            assert _compiles(got) or not _compiles(value), f"{where}: {got!r} does not compile"
        _set(expected[number], where, got)
    assert _documents(new, is_json) == expected, "objects other than the rewritten selectors changed"
    _only_scalars_changed(old, new, is_json)
    assert new.startswith(BOM) == old.startswith(BOM)
    assert _breaks(new) == _breaks(old) or new == old, "line break style changed"

    shown = apply_unified_diff(_universal(old.removeprefix(BOM)), diff.out)
    assert shown == _universal(new.removeprefix(BOM)), "--diff shows something else than --fix writes"

    again = lint("--fix", str(path))
    assert path.read_bytes() == new_raw, f"a second --fix changed the file: {again.err}"
    return new


def _parenthesised(value: str, edits: list[Edit]) -> str:
    """The fix of a plain scalar whose rewrite would begin with an indicator (webhook.fix wraps it)."""
    if edits and edits[0].start == 0:
        first = edits[0]
        edits = [Edit(first.start, first.end, f"({first.replacement})"), *edits[1:]]
    return apply_to_value(value, edits)


def _compiles(expression: str) -> bool:
    try:
        celext.compile(expression)
    except celext.CompileError:
        return False
    return True


def _breaks(text: str) -> set[str]:
    return set(re.findall(r"\r\n|\r|\n", text))


def _only_scalars_changed(old: str, new: str, is_json: bool) -> None:
    """The text between the `expression` scalars is the same, piece by piece (each file's scalars placed by its own
    reading)."""
    assert _outside(old, is_json) == _outside(new, is_json), "characters outside the selector scalars changed"


def _outside(text: str, is_json: bool) -> list[str]:
    pieces, at = [], 0
    for lo, hi in sorted(set(_scalar_ranges(text, is_json))):
        pieces.append(text[at:lo])
        at = hi
    return [*pieces, text[at:]]
