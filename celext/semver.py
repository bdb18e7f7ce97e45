"""Semantic versions as Kubernetes reads them: strict semver 2.0.0, plus the CEL library's normalising parse.

Mirrors `blang/semver` v4 `Parse` (what Kubernetes uses for `version` attributes and `semver(s)`) and the
apiserver CEL library's `normalizeAndParse` (for `semver(s, true)` / `isSemver(s, true)`): strip one leading
`v`, drop leading zeros of the dotted parts, fill a missing minor/patch with 0. Comparison follows semver
precedence, so build metadata never matters (`1.0.0+a == 1.0.0+b`), as with blang's `Compare`.
The numbers are blang's uint64s: one beyond 2^64-1 (or an empty one) fails with `strconv.ParseUint`'s own
error, which blang passes on unchanged; quoted texts in errors are Go's `%q`.
No CEL in here: the ResourceSlice rules use it directly.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from celext.gostrconv import go_quote, parse_uint

_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_UINT64_MAX = 2**64 - 1
_NUMBER = "(?:0|[1-9][0-9]*)"
_PRE_ITEM = f"(?:{_NUMBER}|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
# semver.org's suggested regular expression, which the API server validates `version` attributes with.
_SEMVER_TEXT = (f"{_NUMBER}\\.{_NUMBER}\\.{_NUMBER}(?:-{_PRE_ITEM}(?:\\.{_PRE_ITEM})*)?"
                "(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?")


@functools.total_ordering
@dataclass(frozen=True, slots=True, eq=False)
class Semver:
    """One parsed version. `prerelease` items are ints (numeric identifiers) or strings."""

    major: int
    minor: int
    patch: int
    prerelease: tuple[int | str, ...] = ()
    build: tuple[str, ...] = field(default=())
    # Semver precedence as one tuple, built once per parsed version: tuples compare in C, so a comparison is
    # one `<` / `>` of two keys (the compiled engine inlines exactly that).
    key: tuple[object, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", precedence(self.major, self.minor, self.patch, self.prerelease))

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 by semver precedence (build metadata ignored)."""
        return (self.key > other.key) - (self.key < other.key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.prerelease))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(str(p) for p in self.prerelease)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"


def precedence(major: int, minor: int, patch: int, prerelease: tuple[int | str, ...]) -> tuple[object, ...]:
    """The tuple whose order is semver precedence: a release sorts after its pre-releases (flag 1 vs 0);
    pre-release identifiers compare one by one, a numeric one (0, n, "") before an alphanumeric one
    (1, 0, text), numbers by value and text by ASCII order; a shorter list of equal identifiers sorts first,
    as tuples do."""
    identifiers = tuple((0, p, "") if p.__class__ is int else (1, 0, p) for p in prerelease)
    return (major, minor, patch, 0 if prerelease else 1, identifiers)


def _number(text: str, what: str) -> int:
    if not set(text) <= _DIGITS:
        raise ValueError(f"Invalid character(s) found in {what} number {go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise ValueError(f"{what.capitalize()} number must not contain leading zeroes {go_quote(text)}")
    return parse_uint(text)


def _prerelease(text: str) -> int | str:
    if not text:
        raise ValueError("Prerelease is empty")
    if set(text) <= _DIGITS:
        if len(text) > 1 and text[0] == "0":
            raise ValueError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(text)}")
        return parse_uint(text)
    if not set(text) <= _ALNUM:
        raise ValueError(f"Invalid character(s) found in prerelease {go_quote(text)}")
    return text


@functools.lru_cache(maxsize=4096)
def parse_semver(text: str) -> Semver:
    """Parse strict semver 2.0.0 (no `v`, no leading zeros, three numbers); ValueError says what is wrong."""
    if not text:
        raise ValueError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise ValueError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "major")
    minor = _number(parts[1], "minor")
    rest, build_text, pre_text = parts[2], None, None
    if "+" in rest:
        rest, build_text = rest.split("+", 1)
    if "-" in rest:
        rest, pre_text = rest.split("-", 1)
    patch = _number(rest, "patch")
    prerelease = tuple(_prerelease(p) for p in pre_text.split(".")) if pre_text is not None else ()
    build: tuple[str, ...] = ()
    if build_text is not None:
        build = tuple(build_text.split("."))
        for item in build:
            if not item:
                raise ValueError("Build meta data is empty")
            if not set(item) <= _ALNUM:
                raise ValueError(f"Invalid character(s) found in build meta data {go_quote(item)}")
    return Semver(major, minor, patch, prerelease, build)


def is_semver_text(text: str) -> bool:
    """The API server's check of a `version` attribute: parse_semver's grammar without its uint64 bound on the
    numbers (`99999999999999999999.0.0` is stored; converting the device for a selector then fails)."""
    return _semver_text().fullmatch(text) is not None


@functools.cache
def _semver_text() -> re.Pattern[str]:
    """Compiled on first use (half a millisecond every CLI start would pay otherwise)."""
    return re.compile(_SEMVER_TEXT)


def normalize_and_parse(text: str) -> Semver:
    """The Kubernetes CEL semver library's tolerant parse (`semver(s, true)`): `v1.2` -> 1.2.0, `01.02.03` -> 1.2.3."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            stripped = part.lstrip("0")
            if not stripped or stripped[0] not in _DIGITS:
                stripped = "0" + stripped
            parts[i] = stripped
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise ValueError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


def is_semver(text: str, *, normalize: bool = False) -> bool:
    """True when `text` parses (strictly, or with the normalising parse)."""
    try:
        if normalize:
            normalize_and_parse(text)
        else:
            parse_semver(text)
    except ValueError:
        return False
    return True
