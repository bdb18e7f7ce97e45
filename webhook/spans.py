"""Where each character of a YAML string value sits in the file, for every scalar style.

A CEL finding knows its span inside the expression (`celext.analysis.Span`); the user wants the line and
column of that token in the YAML file, and `--fix` wants to rewrite exactly those characters. YAML gets in
the way: quotes, escapes (`\\"`, `\\u00e9`), `''` in single quotes, line folding (a line break between two
lines of a plain or quoted scalar reads as one space), and the indentation of `|` and `>` block scalars.

`value_offsets(text, start, value)` walks the source from the scalar's first character (the quote, the
`|`/`>` indicator, or the first plain character, as ruamel reports it) and answers, for each character of
`value`, its offset in `text` (plus one entry for the end). It returns None when the source does not
spell `value` as expected, so a caller falls back to the scalar's start instead of pointing wrongly.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from msgspec import Struct

_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}


class _Char(Struct, frozen=True):
    char: str
    offset: int
    hard: bool = False  # from an escape: must match the value exactly, never folded or skipped


def style_of(text: str, start: int) -> str:
    """`"`, `'`, `|`, `>` or `` (plain) for the scalar starting at `start`."""
    first = text[start:start + 1]
    return first if first in ('"', "'", "|", ">") else ""


_PROPERTY = re.compile(r"[&!][^\s]*(?:[ \t]*(?:#[^\n]*)?\r?\n|[ \t]+)\s*(?:#[^\n]*\n\s*)*")


def after_properties(text: str, start: int) -> int:
    """Where the scalar itself starts when ruamel's `start` is at its node properties (`&anchor`, `!!str`):
    past each property and the blanks, line breaks and comments after it; `start` itself when there are none."""
    while (match := _PROPERTY.match(text, start)) is not None:
        start = match.end()
    return start


def value_offsets(text: str, start: int, value: str) -> list[int] | None:
    """Offsets in `text` of each character of `value` (len(value) + 1 entries), or None when unsure."""
    style = style_of(text, start)
    direct = _verbatim(text, start, value, style)
    if direct is not None:
        return list(range(direct, direct + len(value) + 1))
    if style == '"':
        chars: Iterator[_Char] = _double(text, start + 1)
    elif style == "'":
        chars = _single(text, start + 1)
    elif style in ("|", ">"):
        chars = _block(text, start)
    else:
        chars = _plain(text, start)
    return _align(chars, value)


def _verbatim(text: str, start: int, value: str, style: str) -> int | None:
    """Where `value` is spelled character for character (the common one-line case), else None."""
    if style in ('"', "'"):
        at = start + 1
        plain_run = "\n" not in value and style not in value and "\\" not in value
        return at if plain_run and text.startswith(value + style, at) else None
    if style in ("|", ">"):
        content = value.rstrip("\n")
        line_end = text.find("\n", start)
        if line_end < 0 or "\n" in content:
            return None
        at = line_end + 1
        while text.startswith(" ", at):
            at += 1
        return at if text.startswith(content + "\n", at) or text[at:] == content else None
    return start if "\n" not in value and text.startswith(value, start) else None


def _align(chars: Iterator[_Char], value: str) -> list[int] | None:
    out: list[int] = []
    last = 0
    for want in value:
        for got in chars:
            last = got.offset
            if got.char == want or (got.char == "\n" and want == " " and not got.hard):
                out.append(got.offset)
                break
            if got.hard or not got.char.isspace():
                return None  # the source spells something else: do not guess
        else:
            return None
    end = next(chars, None)
    out.append(end.offset if end is not None else last + 1)
    return out


def _newline_at(text: str, i: int) -> int:
    """Length of the line break at `i` (1 or 2 for CRLF), 0 when there is none."""
    if text.startswith("\r\n", i):
        return 2
    return 1 if i < len(text) and text[i] in "\n\r" else 0


def _skip_indent(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _double(text: str, i: int) -> Iterator[_Char]:
    while i < len(text):
        c = text[i]
        if c == '"':
            yield _Char('"', i, hard=True)  # the closing quote: marks the end
            return
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            brk = _newline_at(text, i + 1)
            if brk:  # an escaped line break joins the lines without a space
                i = _skip_indent(text, i + 1 + brk)
                continue
            if nxt in _HEX:
                escaped = _hex_escape(text, i)
                if escaped is None:
                    return
                yield _Char(escaped[0], i, hard=True)
                i += escaped[1]
                continue
            if nxt in _ESCAPES:
                yield _Char(_ESCAPES[nxt], i, hard=True)
                i += 2
                continue
            return
        char, i = _flow_char(text, i)
        yield char


_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")


def _hex_escape(text: str, i: int) -> tuple[str, int] | None:
    """The character the `\\x`, `\\u` or `\\U` escape at `i` spells, and the escape's length; a UTF-16 surrogate
    pair (`\\ud83d\\ude00`, how JSON escapes a character past U+FFFF) is one character, a surrogate outside a pair
    U+FFFD (as the readers read a JSON text, `webhook.wire.go_json`; YAML refuses it). None when malformed."""
    width = _HEX[text[i + 1]]
    digits = text[i + 2:i + 2 + width]
    if len(digits) != width or not _HEX_DIGITS.fullmatch(digits):
        return None
    code = int(digits, 16)
    low = text[i + 8:i + 12] if 0xD800 <= code < 0xDC00 and text.startswith("\\u", i + 6) else ""
    if _HEX_DIGITS.fullmatch(low) and 0xDC00 <= int(low, 16) < 0xE000:
        return chr(0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00), 12
    if 0xD800 <= code < 0xE000:
        return "\ufffd", 2 + width
    return (chr(code), 2 + width) if code <= 0x10FFFF else None


def spelled_width(text: str, offset: int, style: str) -> int:
    """How many source characters spell the value character at `offset` (an escape or `''` spans two or more)."""
    if style == '"' and text[offset] == "\\":
        escaped = _hex_escape(text, offset) if text[offset + 1:offset + 2] in _HEX else None
        return escaped[1] if escaped is not None else 2
    if style == "'" and text.startswith("''", offset):
        return 2
    return 1


def _single(text: str, i: int) -> Iterator[_Char]:
    while i < len(text):
        c = text[i]
        if c == "'":
            if text.startswith("''", i):
                yield _Char("'", i, hard=True)
                i += 2
                continue
            yield _Char("'", i, hard=True)
            return
        char, i = _flow_char(text, i)
        yield char


def _plain(text: str, i: int) -> Iterator[_Char]:
    while i < len(text):
        char, i = _flow_char(text, i)
        yield char


def _flow_char(text: str, i: int) -> tuple[_Char, int]:
    """One unescaped character of a plain or quoted scalar, and where the next starts: a line break reads
    as "\\n" (folded to a space by `_align`) and the next line's indentation is skipped."""
    brk = _newline_at(text, i)
    if brk:
        return _Char("\n", i), _skip_indent(text, i + brk)
    return _Char(text[i], i), i + 1


def block_indent(text: str, start: int) -> int | None:
    """The content indentation of the `|`/`>` scalar whose indicator is at `start`: that of its first line that
    is not blank (None: the text has none)."""
    i = text.find("\n", start)
    while i >= 0:
        end = text.find("\n", i + 1)
        line = text[i + 1:len(text) if end < 0 else end].rstrip("\r")
        if line.strip():
            return len(line) - len(line.lstrip(" "))
        i = end
    return None


def _block(text: str, start: int) -> Iterator[_Char]:
    """Content lines of a `|`/`>` scalar with their indentation removed; breaks kept as "\\n"."""
    i = text.find("\n", start)
    indent = block_indent(text, start)
    if i < 0 or indent is None:
        return
    i += 1
    while i < len(text):
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        line = text[i:end].rstrip("\r")
        if line.strip() and len(line) - len(line.lstrip(" ")) < indent:
            return  # dedented: the scalar is over
        skip = min(indent, len(line) - len(line.lstrip(" ")))
        for k, c in enumerate(line[skip:]):
            yield _Char(c, i + skip + k)
        yield _Char("\n", end)
        i = end + 1


class LineIndex:
    """Offsets -> 1-based line and column in one text, counted in the text when asked (`str.count` and `rfind`
    run at memory speed), from the nearest offset counted before. Nothing is indexed up front: a `kubectl get -o
    json` dump has a million lines and a lint run places a few findings in it (indexing every line start took
    half a second and 50 MB there)."""

    _CHECKPOINT = 1 << 16  # characters between two remembered places, at least

    def __init__(self, text: str) -> None:
        self.text = text
        # Places counted before, by offset (sorted): the lines before each, and where its line starts.
        self._offsets, self._lines, self._starts = [0], [0], [0]

    def line_column(self, offset: int) -> tuple[int, int]:
        at = bisect.bisect_right(self._offsets, offset) - 1
        counted = self._offsets[at]
        breaks = self.text.count("\n", counted, offset)
        line = self._lines[at] + breaks
        start = self.text.rfind("\n", counted, offset) + 1 if breaks else self._starts[at]
        if offset - counted >= self._CHECKPOINT:
            self._offsets.insert(at + 1, offset)
            self._lines.insert(at + 1, line)
            self._starts.insert(at + 1, start)
        return line + 1, offset - start + 1
