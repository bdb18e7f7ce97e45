"""CEL's lexer (cel-go's token rules), one compiled regular expression scanned left to right.

Tokens come out as plain tuples `(kind, text, start, line, column)`; the parser turns the ones a tree keeps
into `Token`s (celext.syntax.nodes). `kind` is a literal terminal name (`INT_LIT`, `STRING_LIT`, ...), `IDENT`,
or the text of an operator or punctuation mark (`"&&"`, `"("`, `"in"`).

Where cel-python's Lark grammar and cel-go disagree, cel-go wins: `42.charAt(2)` is an int and a member call
(a float needs digits after its point), `inx` is one identifier (not `in x`), and a raw string ends at its
first closing quote (`r"a\\"` is the two characters `a\\`). A `-` directly before a number where an operand is
expected is part of the literal (`-1` is one INT_LIT), which is the token shape the Lark grammar produced; a uint
literal has no sign in cel-go's grammar (`-1u` is the negation of `1u`, which no overload takes), and hexadecimal
is `0x` only (`0X10` is the int `0` and the name `X10`, a syntax error).
"""

from __future__ import annotations

import functools
import re
from itertools import accumulate, repeat
from operator import add, sub

Lexeme = tuple[str, str, int, int, int]  # kind, text, start offset, line, column (1-based)

# cel-go's ESC_SEQ: only these escapes are part of a string token; at any other `\` the token does not lex.
ESCAPE = r"\\(?:[abfnrtv\"'\\?`]|[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2})"
_STRING_BODY = {  # the body after the opening quote, up to and including the closing one
    '"""': rf'(?:{ESCAPE}|[^\\])*?"""', "'''": rf"(?:{ESCAPE}|[^\\])*?'''",
    '"': rf'(?:{ESCAPE}|[^\\"\n\r])*"', "'": rf"(?:{ESCAPE}|[^\\'\n\r])*'",
}
_RAW_BODY = {'"""': r'[\s\S]*?"""', "'''": r"[\s\S]*?'''", '"': r'[^"\n\r]*"', "'": r"[^'\n\r]*'"}


def _strings() -> str:
    parts = []
    for quote in ('"""', "'''", '"', "'"):
        q = re.escape(quote)
        parts.append(f"[rR]{q}{_RAW_BODY[quote]}")
        parts.append(f"{q}{_STRING_BODY[quote]}")
    return "|".join(parts)


_EXPONENT = r"[eE][+-]?\d+"


@functools.cache
def _master() -> re.Pattern[str]:
    """Every token kind as a named group: the scan of a text `tokenize` could not lex (compiled on first use:
    most runs never meet one, and compiling it costs as much as `_TEXTS`)."""
    return re.compile("|".join([
        r"(?P<WS>[\t\n\f\r ]+|//[^\n]*)",
        rf"(?P<BYTES_LIT>[bB](?:{_strings()}))",
        rf"(?P<STRING>{_strings()})",
        rf"(?P<FLOAT_LIT>-?(?:\d+\.\d+(?:{_EXPONENT})?|\d+{_EXPONENT}|\.\d+(?:{_EXPONENT})?))",
        r"(?P<UINT_LIT>-?(?:0x[0-9a-fA-F]+|\d+)[uU])",
        r"(?P<INT_LIT>-?(?:0x[0-9a-fA-F]+|\d+))",
        r"(?P<IDENT>[_a-zA-Z][_a-zA-Z0-9]*)",
        r"(?P<OP>\|\||&&|==|!=|<=|>=|[-<>+*/%!?:.,()\[\]{}])",
    ]))


_KEYWORDS = {"true": "BOOL_LIT", "false": "BOOL_LIT", "null": "NULL_LIT", "in": "in"}
# After one of these an operator follows, so a `-` there is subtraction, never a literal's sign.
OPERAND_END = frozenset({"INT_LIT", "UINT_LIT", "FLOAT_LIT", "STRING_LIT", "MLSTRING_LIT", "BYTES_LIT", "BOOL_LIT",
                          "NULL_LIT", "IDENT", ")", "]", "}"})


# The same tokens as (blanks and comments before it, token) pairs: `findall` hands back the texts alone (no match
# objects), one pair per token, and the kind is told from the text (`_kind`). The pairs tile the whole input (the
# last one holds the trailing blanks and an empty token) exactly when every character lexed; otherwise `scan`
# walks the text again to find the bad spot. The blanks are possessive: nothing to backtrack into.
_TEXTS = re.compile(r"((?>[\t\n\f\r ]+|//[^\n]*)*+)(" + "|".join([
    r"\|\||&&|==|!=|<=|>=|[<>+*%!?:,()\[\]{}]",  # (operators no other token starts with, first)
    rf"-?(?:0x[0-9a-fA-F]+[uU]?|\d+\.\d+(?:{_EXPONENT})?|\d+(?:{_EXPONENT}|[uU])?|\.\d+(?:{_EXPONENT})?)",
    rf"(?=[bBrR'\"])[bB]?(?:{_strings()})",  # (one character test before the string branches)
    r"[_a-zA-Z][_a-zA-Z0-9]*",
    r"[-./]",
    r"\Z",
]) + ")")
_FIXED = {**{op: op for op in ("||", "&&", "==", "!=", "<=", ">=", *"-<>+*/%!?:.,()[]{}")}, **_KEYWORDS}
_DIGITS = frozenset("0123456789")
_QUOTES = frozenset("'\"")


def _kind(value: str) -> str:
    """The kind of a token text `_TEXTS` matched that is not an operator or keyword (`_FIXED`)."""
    first = value[0]
    if value[-1] in _QUOTES:  # a string or bytes literal (an identifier never ends with a quote)
        if first in "bB":
            return "BYTES_LIT"
        return "MLSTRING_LIT" if value.lstrip("rR")[:3] in ('"""', "'''") else "STRING_LIT"
    if first in _DIGITS or first in "-.":
        if value[-1] in "uU":
            return "UINT_LIT"
        body = value.lstrip("-")
        if body[:2] == "0x":
            return "INT_LIT"
        return "FLOAT_LIT" if "." in body or "e" in body or "E" in body else "INT_LIT"
    return "IDENT"


def tokenize(text: str) -> list[Lexeme]:
    """The tokens of `text`, comments and blanks left out. At a character no token starts with (an unterminated
    string included) the list ends with an `$ERROR` token, which no grammar rule accepts."""
    pairs = _TEXTS.findall(text)
    if "\n" not in text:  # one line: every position is a sum of lengths, all of it computed in C
        found = _one_line(text, pairs)
        if found is not None:
            return found
    return _tokens(text, pairs)


def _one_line(text: str, pairs: list[tuple[str, str]]) -> list[Lexeme] | None:
    """`_tokens` for a text without newlines, with no loop in Python; None when the text has a character no token
    starts with or a signed number that may follow an operand (`_tokens` sorts those out)."""
    blanks, values = zip(*pairs, strict=True)
    if values.index("") != len(values) - 1:  # an empty token before the end: a character no token starts with
        return None
    value_sizes = list(map(len, values))
    ends = list(accumulate(map(add, map(len, blanks), value_sizes)))
    if ends[-1] != len(text):  # the pairs skipped a character no token starts with
        return None
    kinds = dict(_FIXED)
    for value in set(values).difference(kinds):
        if not value:  # (the end)
            continue
        if value[0] == "-":  # a signed number: after an operand, a subtraction and the number
            return None
        kinds[value] = _kind(value)
    starts = list(map(sub, ends, value_sizes))
    count = len(values) - 1  # (the last pair is the end: no token)
    return list(zip(map(kinds.__getitem__, values[:count]), values[:count], starts[:count], repeat(1, count),
                    map(add, starts[:count], repeat(1)), strict=True))


def _tokens(text: str, pairs: list[tuple[str, str]]) -> list[Lexeme]:
    """`tokenize` one pair at a time, counting lines and columns."""
    out: list[Lexeme] = []
    append = out.append
    kinds = dict(_FIXED)  # and every other text seen so far: repeated names and numbers are looked up once
    known = kinds.get
    line, line_start, position = 1, 0, 0
    previous = ""
    for blanks, value in pairs:
        if blanks:
            if "\n" in blanks:
                line += blanks.count("\n")
                line_start = position + blanks.rindex("\n") + 1
            position += len(blanks)
        if not value:  # the end (or, before it, a character no token starts with: told below)
            break
        kind = known(value)
        if kind is None:
            kind = kinds[value] = _kind(value)
        if value[0] == "-" and kind != "-" and (previous in OPERAND_END or kind == "UINT_LIT"):
            # subtraction (or, before a uint, which has no sign in cel-go's grammar, negation), then the number
            column = position - line_start + 1
            append(("-", "-", position, line, column))
            append((kind, value[1:], position + 1, line, column + 1))
            previous = kind
            position += len(value)
            continue
        append((kind, value, position, line, position - line_start + 1))
        previous = kind
        if kind in ("MLSTRING_LIT", "BYTES_LIT") and "\n" in value:
            line += value.count("\n")
            line_start = position + value.rindex("\n") + 1
        position += len(value)
    if position != len(text):  # the pairs skipped a character no token starts with: the scan reports it
        return scan(text)
    return out


def scan(text: str) -> list[Lexeme]:
    """`tokenize` one match at a time, for a text with a character no token starts with."""
    out: list[Lexeme] = []
    append = out.append
    line, line_start, position, size = 1, 0, 0, len(text)
    previous = ""
    restart = True
    while restart:  # finditer is fast; it is restarted only after a `-` that turned out to be subtraction
        restart = False
        for found in _master().finditer(text, position):
            start = found.start()
            if start != position:  # a character no token starts with
                break
            kind = found.lastgroup or ""
            value = found.group()
            if kind == "WS":
                position = found.end()
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                continue
            if kind == "OP":
                kind = value
            elif kind == "STRING":
                kind = "MLSTRING_LIT" if value.lstrip("rR")[:3] in ('"""', "'''") else "STRING_LIT"
            elif kind == "IDENT":
                kind = _KEYWORDS.get(value, "IDENT")
            elif value[0] == "-" and (previous in OPERAND_END or kind == "UINT_LIT"):
                append(("-", "-", start, line, start - line_start + 1))  # subtraction or negation, then the number
                previous, position, restart = "-", start + 1, True
                break
            append((kind, value, start, line, start - line_start + 1))
            previous = kind
            position = found.end()
            if kind in ("MLSTRING_LIT", "BYTES_LIT") and "\n" in value:
                line += value.count("\n")
                line_start = start + value.rindex("\n") + 1
    if position < size:  # the parser reports it when it gets there (an earlier syntax error comes first)
        bad = bad_escape(text, position)
        if bad is not None:
            append(("$ESCAPE", bad, position, line, position - line_start + 1))
        else:
            append(("$ERROR", text[position], position, line, position - line_start + 1))
    return out


_ESCAPE = re.compile(ESCAPE)
_ESCAPE_DIGITS = {"x": 2, "X": 2, "u": 4, "U": 8, "0": 2, "1": 2, "2": 2, "3": 2}


def bad_escape(text: str, start: int) -> str | None:
    """At a quote no string token could be lexed from: the text cel-go's lexer (ANTLR) shows when the string
    stops at an escape outside ESC_SEQ (`\\q`, `\\xFh`, `\\4`): from the quote through the offending character.
    None when the string fails for another reason (a newline, the end of the text). A triple quote never gets
    here: its first two quotes lex as an empty string, as ANTLR backs up to them."""
    quote = text[start]
    if quote not in "'\"":
        return None
    at, size = start + 1, len(text)
    while at < size:
        char = text[at]
        if char in ("\n", "\r", quote):
            return None
        if char != "\\":
            at += 1
            continue
        found = _ESCAPE.match(text, at)
        if found is not None:
            at = found.end()
            continue
        kind = text[at + 1:at + 2]
        offending = at + 1  # an unknown escape letter (or the end of the text)
        if kind in _ESCAPE_DIGITS:
            digits = "01234567" if kind.isdigit() else "0123456789abcdefABCDEF"
            offending = at + 2
            while offending < at + 2 + _ESCAPE_DIGITS[kind] and text[offending:offending + 1] in tuple(digits):
                offending += 1
        return text[start:offending + 1]
    return None
