"""How Kubernetes reads an unquoted YAML scalar: the one set of rules every reader and writer of objects uses.

kubectl, helm and the API server turn YAML into JSON with sigs.k8s.io/yaml (`YAMLToJSON`), which parses with
go.yaml.in/yaml/v2: YAML 1.1 resolution, not the YAML 1.2 core schema. An unquoted (plain, untagged) scalar is

- null: empty, `~`, `null`, `Null`, `NULL`;
- a boolean: `y Y yes Yes YES true True TRUE on On ON` and `n N no No NO false False FALSE off Off OFF`;
- an integer by Go's `strconv.ParseInt(text, 0, 64)` once every `_` is removed: `0755` is octal 493, `0o17`,
  `0x1F`, `0b101` (and `-0b101`, `0b-101`), `1_000`; one beyond int64 but within uint64 without a sign
  (`18446744073709551615`) stays an integer;
- else a float, if the text without `_` has the YAML float form (`1e3`, `.5`, `09`: 9.0, `-9223372036854775809`)
  and is finite (`1e400` overflows Go's ParseFloat and stays a string); `.inf`, `-.inf`, `.nan` (as words);
- else a string: timestamps (`2024-01-02`) and base-60 numbers (`1:20`, `0000:00:05.0`) included.

A map key becomes the JSON key `YAMLToJSON` prints: a boolean `true`/`false`, an integer in decimal, a float as
Go prints it as float32 (`%g`, shortest), a string as it is; a null key or one beyond int64 is refused.

Tagged (`!!str on`) and quoted scalars are not resolved here. draguard's own policy file (`.draguard.yaml`, the
policy ConfigMap) is not a Kubernetes object and keeps its YAML 1.2 reading.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1

_HINTS = frozenset("-+.0123456789~yYnNtTfFoO")  # the first characters go-yaml looks further at
_NUMERIC = frozenset("-+0123456789")
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_MISSING = object()
_UINT64_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}
# strconv.ParseInt with base 0 (sign; 0x, 0o, 0b or a bare leading 0 for octal; else decimal)
_INT = re.compile(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|([1-9][0-9]*|0))")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# a text starting with `.`: Go's ParseFloat on the text as written (an `_` only between two digits)
_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
_SIGNED_BINARY = re.compile(r"0b[-+][01]+")  # go-yaml's own 0b branch hands the sign to ParseInt


def resolve_plain(text: str) -> Any:
    """The value of a plain scalar: None, bool, int, float or the text itself (see the module's rules)."""
    if not text:
        return None
    first = text[0]
    if first not in _HINTS:
        return text
    word = _WORDS.get(text, _MISSING)
    if word is not _MISSING:
        return word
    if first == ".":
        if _DOT_FLOAT.fullmatch(text):
            value = float(text)
            if not math.isinf(value):
                return value
        return text
    return _number(text) if first in _NUMERIC else text


def _number(text: str) -> Any:
    plain = text.replace("_", "") if "_" in text else text
    match = _INT.fullmatch(plain)
    if match is not None:
        sign, hexadecimal, octal, binary, old_octal, decimal = match.groups()
        digits, base = ((hexadecimal, 16) if hexadecimal else (binary, 2) if binary
                        else (octal or old_octal, 8) if octal or old_octal else (decimal, 10))
        if len(digits.lstrip("0")) <= _UINT64_DIGITS[base]:  # else beyond uint64 (and Python's int() limit)
            number = -int(digits, base) if sign == "-" else int(digits, base)
            if INT64_MIN <= number <= INT64_MAX or (not sign and number <= UINT64_MAX):  # ParseInt, then ParseUint
                return number
    if _FLOAT.fullmatch(plain):
        value = float(plain)
        if not math.isinf(value):  # ParseFloat's range error
            return value
    if _SIGNED_BINARY.fullmatch(plain):
        number = int(plain[2:], 2)
        if INT64_MIN <= number <= INT64_MAX:
            return number
    return text


def needs_quotes(text: str) -> bool:
    """Whether a string written unquoted would not read back as that string (a writer must quote it)."""
    return not isinstance(resolve_plain(text), str)


def represent_str(representer: Any, text: str) -> Any:
    """A string for a YAML writer (ruamel's or PyYAML's representer): single-quoted when kubectl would read it
    unquoted as something else (`on`, `y`, `010`, `09`, `1e3`, `0o17`), which a YAML 1.2 writer (ruamel) or
    PyYAML's YAML 1.1 rules (no `y`, `0o17`, `09` or `1e3`) leave bare."""
    if needs_quotes(text):
        return representer.represent_scalar("tag:yaml.org,2002:str", text, style="'")
    return representer.represent_str(text)


def dump_all(documents: list[Any]) -> str:
    """YAML documents through PyYAML, strings quoted as `represent_str` quotes them, keys in their order."""
    import yaml  # type: ignore[import-untyped]

    class Dumper(yaml.SafeDumper):  # type: ignore[misc]
        pass

    Dumper.add_representer(str, represent_str)
    text: str = yaml.dump_all(documents, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)
    return text


def json_key(text: str) -> str | None:
    """The JSON key `YAMLToJSON` makes of a plain key; None for one it refuses (null, beyond int64)."""
    value = resolve_plain(text)
    return text if value is text else key_of(value)


def key_of(value: Any) -> str | None:
    """The JSON key of a resolved key value; None where sigs.k8s.io/yaml has no conversion."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if INT64_MIN <= value <= INT64_MAX else None  # a uint64 key is refused
    if isinstance(value, float):
        return _float32_text(value)
    return None


def _float32_text(value: float) -> str:
    """Go's strconv.FormatFloat(value, 'g', -1, 32), with YAML's names for infinities and NaN."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    for precision in range(9):  # the shortest decimal that reads back as the same float32
        spelled = f"{single:.{precision}e}"
        if struct.unpack("f", struct.pack("f", float(spelled)))[0] == single:
            break
    mantissa, exponent_text = spelled.split("e")
    digits = mantissa.replace(".", "").lstrip("-")
    exponent = int(exponent_text)
    if exponent < -4 or exponent >= 6:
        sign = "-" if single < 0 else ""
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return f"{single:.{max(len(digits) - exponent - 1, 0)}f}"


_BOOLEAN_WORDS = frozenset(("true", "false"))
_TOKEN = re.compile(r"[-+.\w]+(?=[\s,\]}#]|\Z)")  # a one-word plain scalar, in block or flow context


def read_as(text: str, start: int, value: Any) -> str | None:
    """What kubectl makes of the unquoted scalar written at `start` (which reads as `value`) when a YAML 1.2 reader,
    and most people, read it otherwise: a YAML 1.1 boolean word (`on`, `yes`, `n`), a number with a leading 0, a
    base prefix or `_` (`010`, `0b1`, `1_000`); with how to write what was meant. None for anything else."""
    match = _TOKEN.match(text, start)
    if match is None:
        return None
    token = match.group(0)
    read = resolve_plain(token)
    if type(read) is not type(value) or read != value:  # not the whole scalar (a folded line, a tag)
        return None
    if isinstance(read, bool):
        if token.lower() in _BOOLEAN_WORDS:
            return None
        return (f"kubectl (YAML 1.1) reads the unquoted `{token}` as the boolean {'true' if read else 'false'}: "
                f"quote it (\"{token}\") for the string")
    digits = token.lstrip("+-")
    if isinstance(read, int | float) and ("_" in token or (len(digits) > 1 and digits[0] == "0" and digits[1] != ".")):
        octal = _INT.fullmatch(token)
        kind = "octal " if octal is not None and octal.group(5) is not None else ""
        return (f"kubectl (YAML 1.1) reads the unquoted `{token}` as the {kind}number {read!r}: write the number in "
                f"decimal, or quote it (\"{token}\") for the string")
    return None
