"""`draguard lint --fix` / `--diff`: apply the rules' safe edits to YAML files, changing nothing else.

A rule's `Edit` is relative to the string value at its finding's path (a CEL expression). Here it is
mapped into the file through `webhook.spans` (quotes, escapes, folding and block indentation handled),
the replacement is spelled for the scalar's style (`\\"` in double quotes, `''` in single quotes,
re-indented lines in `|`/`>` blocks), and applied. Every other byte of the file stays as it was:
comments, quoting, indentation, key order.

A plain scalar cannot begin with a YAML indicator (`!` starts a tag, `[` a flow sequence): a rewrite
that would begin one (`!x.includes(4)` for `x != 4`, `[1, 2].exists(...)` for `x in [1, 2]`) is wrapped
in parentheses instead. That keeps its meaning because draguard's rewrites replace a whole
subexpression (a comparison), which parentheses never change.

Each rewritten scalar is checked by reading the new text back: if it does not yield exactly the
expected expression (a plain scalar that would need quotes, say), that scalar is left alone and
reported as not fixable.
"""

from __future__ import annotations

import codecs
import difflib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec import Struct, field

from webhook.fieldpath import FieldPath
from webhook.findings import Edit
from webhook.spans import block_indent, spelled_width, style_of, value_offsets


class Target(Struct, frozen=True):
    """A string scalar in a file: where it starts, its value, and the finding path that names it."""

    path: FieldPath
    document: int
    start: int  # offset of the scalar's first character (quote, indicator or first plain character)
    value: str


class Rewrite(Struct, frozen=True):
    """One applied edit, for `lint --fix` to list: where it starts in the original text, and the
    expression fragment before and after (whitespace runs shown as one space)."""

    line: int
    column: int
    before: str
    after: str


class Result(Struct, frozen=True):
    text: str
    applied: int  # edits applied
    skipped: list[tuple[Target, str]]  # scalars left alone, with the reason, in file order
    rewrites: list[Rewrite] = field(default_factory=list)  # the applied edits, in file order


def apply_edits(text: str, groups: Sequence[tuple[Target, Sequence[Edit]]],
                read_back: Callable[[str, Target], str | None]) -> Result:
    """Apply every target's edits, then read the new text back once and keep only the targets that read
    back as their fixed expression (a failing target is dropped and the rest applied again)."""
    skipped: list[tuple[Target, str]] = []
    pending = [(target, _plain_start(text, target, _non_overlapping(edits))) for target, edits in groups]
    for _attempt in range(3):
        new_text, unmapped = _apply_all(text, pending)
        skipped += [(t, "its YAML spelling could not be mapped") for t in unmapped]
        pending = [(t, e) for t, e in pending if t not in unmapped]
        # Exactly, not up to whitespace: a line break may sit inside a CEL string literal ('''a\nb''').
        wrong = [t for t, e in pending if read_back(new_text, t) != apply_to_value(t.value, e)]
        if not wrong:
            return Result(new_text, sum(len(e) for _t, e in pending), _in_file_order(skipped),
                          _rewrites(text, pending))
        skipped += [(t, "the rewritten YAML scalar would not read back as the fixed expression") for t in wrong]
        pending = [(t, e) for t, e in pending if t not in wrong]
    gave_up = [(t, "gave up after repeated read-back failures") for t, _e in pending]
    return Result(text, 0, _in_file_order(skipped + gave_up))


_OPERAND = re.compile(r"[\w.\[\]\"'/?-]+$")


def _rewrites(text: str, pending: Sequence[tuple[Target, Sequence[Edit]]]) -> list[Rewrite]:
    out: list[Rewrite] = []
    for target, edits in pending:
        offsets = value_offsets(text, target.start, target.value)
        for edit in edits:
            offset = offsets[edit.start] if offsets is not None else target.start
            line = text.count("\n", 0, offset) + 1
            column = offset - text.rfind("\n", 0, offset)
            before, after = target.value[edit.start:edit.end], edit.replacement
            if not before:  # an insertion (`.includes(true)`): show the operand it completes
                operand = _OPERAND.search(target.value, 0, edit.start)
                before = operand.group(0) if operand else ""
                after = before + after
            out.append(Rewrite(line, column, _normal(before), _normal(after)))
    return sorted(out, key=lambda r: (r.line, r.column))


def _in_file_order(skipped: list[tuple[Target, str]]) -> list[tuple[Target, str]]:
    return sorted(skipped, key=lambda item: item[0].start)


def _apply_all(text: str, pending: Sequence[tuple[Target, Sequence[Edit]]]) -> tuple[str, list[Target]]:
    """Targets applied last-in-file first, so the offsets of the others stay valid."""
    unmapped: list[Target] = []
    for target, edits in sorted(pending, key=lambda g: g[0].start, reverse=True):
        new_text = _apply_in_file(text, target, edits)
        if new_text is None:
            unmapped.append(target)
        else:
            text = new_text
    return text, unmapped


def apply_to_value(value: str, edits: Sequence[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        value = value[:edit.start] + edit.replacement + value[edit.end:]
    return value


def _non_overlapping(edits: Sequence[Edit]) -> list[Edit]:
    """Edits sorted by start; one that overlaps an earlier one waits for the next --fix run."""
    chosen: list[Edit] = []
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if chosen and edit.start < chosen[-1].end:
            continue
        chosen.append(edit)
    return chosen


# Characters that may not begin a plain YAML scalar (YAML 1.2 c-indicator, the ones CEL can start with).
_INDICATORS = frozenset("!&*[]{}|>'\"%@`#,?:-")


def _plain_start(text: str, target: Target, edits: list[Edit]) -> list[Edit]:
    """An edit that would begin a plain scalar with an indicator gets parentheses around its replacement."""
    if style_of(text, target.start) or not edits or edits[0].start != 0:
        return edits
    first = edits[0]
    if first.replacement[:1] not in _INDICATORS:
        return edits
    return [Edit(first.start, first.end, f"({first.replacement})", first.safe), *edits[1:]]


def _apply_in_file(text: str, target: Target, edits: Sequence[Edit]) -> str | None:
    offsets = value_offsets(text, target.start, target.value)
    if offsets is None:
        return None
    style = style_of(text, target.start)
    indent = " " * (block_indent(text, target.start) or 0) if style in ("|", ">") else ""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        start, end = offsets[edit.start], offsets[edit.end]
        if edit.end > edit.start and edit.end <= len(target.value):
            end = offsets[edit.end - 1] + spelled_width(text, offsets[edit.end - 1], style)
        line_start = text.rfind("\n", 0, start) + 1
        spelled = _spell(edit.replacement, style, indent or _indent_at(text, start) + "  ",
                         text[line_start + len(indent):start])
        if spelled is None:
            return None
        text = text[:start] + spelled + text[end:]
    return text


def _spell(replacement: str, style: str, indent: str, before: str) -> str | None:
    """`replacement` written for a scalar of this style so that it reads back as exactly itself (the read-back
    checks it); None when it cannot be written there. `indent` starts a new line of the scalar (a block's
    content indentation), `before` is the text of the scalar's line before the replacement."""
    if style == '"':
        return _escaped(replacement)
    if style == "|":
        return _literal_lines(replacement, indent)
    if style == ">":
        return _folded_lines(replacement, indent, before)
    # A flow scalar folds one line break into a space: each line break of the value is an empty line.
    spelled = re.sub(r"\n+", lambda breaks: "\n" * (len(breaks.group()) + 1) + indent,
                     replacement.replace("'", "''") if style == "'" else replacement)
    if not style and (": " in spelled or " #" in spelled or "\t#" in spelled):
        return None  # would end the plain scalar early
    return spelled


# The escapes JSON and YAML share, for what a double-quoted scalar may not hold as it is (YAML 1.1 readers such as
# libyaml also break lines at NEL, LS and PS; JSON allows no control character).
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
_TO_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]')


def _escaped(replacement: str) -> str:
    return _TO_ESCAPE.sub(lambda m: _SHORT_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), replacement)


def _literal_lines(replacement: str, indent: str) -> str:
    """A `|` block keeps its line breaks: each new line takes the block's indentation (empty lines need none)."""
    first, *rest = replacement.split("\n")
    return "\n".join([first, *(indent + line if line or i == len(rest) - 1 else "" for i, line in enumerate(rest))])


def _normal_line(line: str) -> bool:
    return line[:1] not in ("", " ", "\t")


def _folded_lines(replacement: str, indent: str, before: str) -> str:
    """A `>` block folds the line break between two lines that begin with a non-blank character into a space, and
    keeps the others (around empty and more-indented lines): a value's run of k line breaks is written as k + 1
    between two such lines (k empty lines), else as k."""
    parts = re.split(r"(\n+)", replacement)
    out, line = parts[0], before + parts[0]
    for breaks, after in zip(parts[1::2], parts[2::2], strict=True):
        count = len(breaks) + (_normal_line(line) and _normal_line(after))
        out += "\n" * count + indent + after
        line = after
    return out


def _indent_at(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    return line[: len(line) - len(line.lstrip(" "))]


def _normal(text: str) -> str:
    return " ".join(text.split())


def line_break(raw: bytes) -> str | None:
    """The one line break a file's bytes use (`\n` when they have none), None when they mix them. A lone CR is
    a line break of its own (old Mac files): universal newlines read it as `\n`, as they read CR LF."""
    crlf = raw.count(b"\r\n")
    counts = {"\r\n": crlf, "\r": raw.count(b"\r") - crlf, "\n": raw.count(b"\n") - crlf}
    used = [brk for brk, n in counts.items() if n]
    if len(used) > 1:
        return None
    return used[0] if used else "\n"


def refusal(raw: bytes) -> str | None:
    """Why a fix is not written over a file of these bytes (`--fix`), nor shown as a diff (`--diff`); None when it
    can be. Files are read with universal newlines, so a fixed text can be written with the one line break style
    the file has, never with a mix."""
    if line_break(raw) is None:
        return "the file mixes line break styles; fix it by hand or normalise its line breaks first"
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # in a JSON string, read as U+FFFD: written back, each byte would become one
            return "the file holds bytes that are not UTF-8 (read as U+FFFD); fix it by hand"
    return None


def write_file(path: str, text: str) -> str | None:
    """Write a fixed file with the line breaks it had (`text` has `\n` only) and its byte order mark, if it had
    one (the reader drops it); a reason instead when that cannot be done faithfully (`refusal`)."""
    target = Path(path)
    try:
        raw = target.read_bytes()
        refused = refusal(raw)
        if refused is not None:
            return refused
        target.write_text(text, encoding="utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else "utf-8",
                          newline=line_break(raw))
    except OSError as err:
        return f"cannot write: {err.strerror or err}"
    return None


def unified_diff(old: str, new: str, name: str) -> str:
    """A diff `patch` and `git apply` take: lines end at `\n` only (the texts' one line break: str.splitlines also
    breaks at U+2028, NEL, form feed...), and a last line without a line break is marked as diff marks it (difflib
    would run it into the next line of the diff)."""
    lines = difflib.unified_diff(_lines(old), _lines(new),
                                 fromfile=f"a/{name.lstrip('/')}", tofile=f"b/{name.lstrip('/')}")
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)


_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def _lines(text: str) -> list[str]:
    """`text`'s lines, each with its `\n` (the last may have none)."""
    return _LINE.findall(text)
