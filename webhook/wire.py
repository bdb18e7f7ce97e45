"""Wire objects (decoded JSON/YAML) and small typed accessors over them.

Objects from users are untrusted: any field may have any type. Accessors return a usable default
for a wrong type so rules can report the problem as a finding instead of raising.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from webhook.words import with_article

Obj = Mapping[str, Any]


def as_map(value: object) -> Obj | None:
    return value if isinstance(value, Mapping) else None


def json_kind(value: object) -> str:
    """The JSON type of a decoded value: array, object, string, number, boolean or null (else the Python name)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return "null" if value is None else type(value).__name__


def json_type(value: object) -> str:
    """A decoded value's JSON type as a message to a client names it (`got an array`, `got null`)."""
    kind = json_kind(value)
    return kind if kind == "null" else with_article(kind)


def get_map(obj: Obj | None, *keys: str) -> Obj:
    """`obj[k1][k2]...` as a mapping, or an empty mapping when absent or not a mapping."""
    current: object = obj
    for key in keys:
        current = current.get(key) if isinstance(current, Mapping) else None
    return current if isinstance(current, Mapping) else {}


def get_list(obj: Obj | None, *keys: str) -> Sequence[Any]:
    *head, last = keys
    value = get_map(obj, *head).get(last)
    return value if isinstance(value, list | tuple) else ()


def get_str(obj: Obj | None, *keys: str) -> str:
    *head, last = keys
    value = get_map(obj, *head).get(last)
    return value if isinstance(value, str) else ""


def kind_of(obj: Obj) -> str:
    kind = obj.get("kind")
    return kind if isinstance(kind, str) else ""


def name_of(obj: Obj) -> str:
    return get_str(obj, "metadata", "name")


class LazyObject(Mapping[str, Any]):
    """A JSON object read member by member: each member is decoded on its first read (a member that is an object
    becomes a `LazyObject` itself), and the rest never is.

    An UPDATE review carries the old object beside the new one; the slice rules read a few of its fields (kind,
    driver, pool name, node name) unless something needs more, so decoding all of it (as much as the new object)
    is mostly waste. The bytes must already be known to be well-formed JSON in UTF-8 (the review decoder checked
    them); values are then exactly what decoding the whole document gives.

    Made from its bytes (`LazyObject(raw)`), the object lists its members when first read (one pass over the
    bytes, `msgspec.Raw` values). Made from `members` (`LazyObject.of_members`), it holds them already listed one
    level down in the pass that decoded the document around it (`review.parse` reads an old object so): scalars
    decoded, objects as their members' `msgspec.Raw`, arrays as their items'. A slice's `spec` then needs no
    second pass over its devices to find `driver`.
    """

    __slots__ = ("_members", "_raw", "_values")

    def __init__(self, raw: bytes) -> None:
        self._raw: bytes | None = raw
        self._members: dict[str, Any] | None = None
        self._values: dict[str, Any] = {}

    @classmethod
    def of_members(cls, members: dict[str, Any]) -> LazyObject:
        """The object whose members are listed in `members` (values: decoded scalars, `msgspec.Raw`, or a dict or
        list of `msgspec.Raw` for an object or array listed one level down)."""
        obj = cls.__new__(cls)
        obj._raw, obj._members, obj._values = None, members, {}
        return obj

    def _index(self) -> dict[str, Any]:
        if self._members is None:
            self._members = _members_decoder().decode(self._raw)
        return self._members

    def __getitem__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            pass
        value = _member(self._index()[key])
        self._values[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._index())

    def __len__(self) -> int:
        return len(self._index())

    def decoded(self) -> list[str]:
        """The members read so far (in the order read)."""
        return list(self._values)

    def plain(self) -> Any:
        """All of it, decoded: plain dicts and lists."""
        if self._raw is not None:
            return decode_value(self._raw)
        return {key: plain(_member(value)) for key, value in self._index().items()}  # each as __getitem__ gives it


def _member(value: Any) -> Any:
    """A listed member as `LazyObject` hands it out: an object lazy, anything else decoded."""
    if value is None or isinstance(value, str | int | float):  # decoded when listed (bool is an int)
        return value
    if isinstance(value, dict):  # an object listed one level down
        return LazyObject.of_members(value)
    if isinstance(value, list):  # an array listed one level down
        return [decode_value(bytes(item)) for item in value]
    raw = bytes(value)  # a msgspec.Raw
    return LazyObject(raw) if raw[:1] == b"{" else decode_value(raw)


@functools.cache
def _members_decoder() -> Any:
    """msgspec's decoder of an object's members left undecoded, made once (msgspec imported on first use: the CLI's
    readers never decode with it, ~35 ms of start-up)."""
    import msgspec

    return msgspec.json.Decoder(dict[str, msgspec.Raw])


def plain(obj: Obj) -> Obj:
    """`obj` with no `LazyObject` left in it (for code that wants every field)."""
    return obj.plain() if isinstance(obj, LazyObject) else obj


def decode_value(raw: bytes) -> Any:
    """The JSON value of well-formed `raw`: msgspec's, or `json.loads`'s for what msgspec refuses (a float that
    overflows to inf), as the review decoder reads the whole document."""
    import msgspec

    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return json.loads(raw, parse_constant=no_constant)


# A backslash and what it escapes, a UTF-16 surrogate pair's two escapes as one; `lone` names a surrogate's escape
# outside a pair. Escaped backslashes are taken two characters at a time, so `\\ud800` is no escape of U+D800.
_ESCAPE = r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(?P<lone>u[dD][89a-fA-F][0-9a-fA-F]{2})|.)"
_ESCAPES = re.compile(_ESCAPE, re.DOTALL)
_ESCAPES_BYTES = re.compile(_ESCAPE.encode(), re.DOTALL)
_Json = TypeVar("_Json", str, bytes)


def go_json(text: _Json) -> _Json:
    """A JSON text with each escape of a lone UTF-16 surrogate (`"\\ud800"`, half of `json.dumps`' spelling of an
    emoji) turned into `\\ufffd`, as Go's encoding/json (the API server's and kubectl's reader) decodes it: Python's
    readers would keep a lone surrogate, which no UTF-8 output can hold, and msgspec refuses the text. The escape
    keeps its six characters, so every offset, line and column of the text stays where it was. A text with no
    `\\uD...` escape is returned as it is, after a search at memory speed."""
    if isinstance(text, bytes):
        if b"\\ud" not in text and b"\\uD" not in text:
            return text
        return _ESCAPES_BYTES.sub(lambda m: b"\\ufffd" if m["lone"] else m[0], text)
    if "\\ud" not in text and "\\uD" not in text:
        return text
    return _ESCAPES.sub(lambda m: "\\ufffd" if m["lone"] else m[0], text)


# A JSON string (an unterminated one runs to the end: the JSON reader refuses it) or, outside every string, a byte
# that is not UTF-8 as errors="surrogateescape" decodes it (one of U+DC80..U+DCFF per byte). Possessive, so a long
# string without its closing quote is scanned once.
_STRING_OR_BAD_BYTE = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\udc80-\udcff]', re.DOTALL)
_BAD_BYTE = re.compile("[\udc80-\udcff]")


class BadByte(ValueError):
    """A byte that is not UTF-8 outside a JSON text's strings: Go's decoder refuses it (`invalid character`)."""

    def __init__(self, text: str, offset: int) -> None:
        self.offset = offset
        self.line = text.count("\n", 0, offset) + 1
        self.column = offset - text.rfind("\n", 0, offset)
        super().__init__(f"byte {ord(text[offset]) - 0xDC00:#04x} is not UTF-8 (line {self.line} column "
                         f"{self.column})")


def go_strings(text: str) -> str:
    """A JSON text decoded with errors="surrogateescape" as Go's encoding/json (the API server's and kubectl's
    reader) reads it: each byte that is not UTF-8 inside a string (a key or a value) becomes U+FFFD, one per byte,
    as its unquote does (`utf8.DecodeRune` takes one byte of a sequence that is not UTF-8 and gives U+FFFD; a
    truncated sequence's later bytes are continuation bytes, each one U+FFFD of its own). Raises BadByte for the
    first such byte outside a string. Every offset of the text stays where it was."""
    for found in _STRING_OR_BAD_BYTE.finditer(text):
        if found[0][0] != '"':
            raise BadByte(text, found.start())
    return _BAD_BYTE.sub("\ufffd", text)


def first_bad_byte(text: str) -> BadByte | None:
    """The first byte that is not UTF-8 in a text decoded with errors="surrogateescape", None when there is none."""
    found = _BAD_BYTE.search(text)
    return None if found is None else BadByte(text, found.start())


def go_utf8(data: bytes) -> bytes:
    """JSON bytes a fast decoder refused as not UTF-8 (msgspec, `bytes.decode`) as Go's decoder reads them: each
    byte that is not UTF-8 inside a string as U+FFFD (`go_strings`). A byte outside every string raises
    UnicodeDecodeError, as the fast decoder did, at that byte."""
    text = data.decode("utf-8", "surrogateescape")
    try:
        return go_strings(text).encode()
    except BadByte as bad:
        start = len(text[:bad.offset].encode("utf-8", "surrogateescape"))
        raise UnicodeDecodeError("utf-8", data, start, start + 1, "not UTF-8, outside a JSON string") from None


def no_constant(name: str) -> Any:
    """`json.loads`'s parse_constant: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


def printable(text: str) -> str:
    """`text` for a terminal: each character Python does not print (control characters, the ESC of an escape
    sequence, a line break inside a name) escaped as Go's %q writes it; printable text, quotes included, as is."""
    if text.isprintable():
        return text
    from celext.gostrconv import go_quote

    return "".join(char if char.isprintable() else go_quote(char)[1:-1] for char in text)


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def reading_error(err: Exception) -> str:
    """A JSON or YAML reader's error in one line; Python's refusal of a number with too many digits (its guard
    against quadratic conversion, sys.get_int_max_str_digits()) in draguard's words: no Kubernetes field holds one."""
    text = one_line(err)
    if "integer string conversion" in text:
        return (f"a number with more than {sys.get_int_max_str_digits()} digits (no Kubernetes field holds one: "
                "the API server refuses it too)")
    return text
