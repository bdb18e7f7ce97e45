"""The Kubernetes semver library (apiserver `library.SemverLib`, version 1 as in Kubernetes >= 1.33).

    semver(<string>) -> Semver                 strict semver 2.0.0; a bad string is a runtime error
    semver(<string>, <bool>) -> Semver         true: normalise first (`v1.2` -> 1.2.0)
    isSemver(<string>[, <bool>]) -> bool
    <Semver>.major() / .minor() / .patch() -> int
    <Semver>.isGreaterThan(<Semver>) / .isLessThan(<Semver>) -> bool
    <Semver>.compareTo(<Semver>) -> int        -1, 0, 1; build metadata is ignored

Parts are blang/semver v4's uint64s (k8s.io/apiserver/pkg/cel/library/semverlib.go): `semver()` of a part
beyond 2^64-1 fails with strconv.ParseUint's error (`celext.semver`), comparisons use the whole uint64, and
`.major()` etc. convert it to int64 as Go does, wrapping a part beyond 2^63-1 (2^63 reads as -2^63).
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.gostrconv import INT64, UINT64_MAX
from celext.lib.ints import cel_int
from celext.lib.library import Library, overload
from celext.semver import Semver, is_semver, normalize_and_parse, parse_semver
from celext.values import CELEvalError

_S = celvalues.StringType
_B = celvalues.BoolType


def _semver(text: Any, normalize: Any = False) -> Any:
    try:
        return normalize_and_parse(str(text)) if normalize else parse_semver(str(text))
    except ValueError as err:
        return CELEvalError(str(err))


def _int64(part: int) -> celvalues.IntType:
    """semverlib.go `types.Int(v.Major)`: Go converts the uint64 part to int64 modulo 2^64, so 2^63 reads as
    -2^63 and 2^64-1 as -1 (no error)."""
    return cel_int(part - (UINT64_MAX + 1) if part > INT64[1] else part)


def library() -> Library:
    return Library("kubernetes.Semver", (
        overload("semver", "string_to_semver", (_S,), _semver, member=False),
        overload("semver", "string_bool_to_semver", (_S, _B), _semver, member=False),
        overload("isSemver", "is_semver_string", (_S,), lambda s: _B(is_semver(str(s))), member=False),
        overload("isSemver", "is_semver_string_bool", (_S, _B),
                 lambda s, n: _B(is_semver(str(s), normalize=bool(n))), member=False),
        overload("major", "semver_major", (Semver,), lambda v: _int64(v.major)),
        overload("minor", "semver_minor", (Semver,), lambda v: _int64(v.minor)),
        overload("patch", "semver_patch", (Semver,), lambda v: _int64(v.patch)),
        overload("isGreaterThan", "semver_is_greater_than", (Semver, Semver), lambda a, b: _B(a.compare(b) == 1)),
        overload("isLessThan", "semver_is_less_than", (Semver, Semver), lambda a, b: _B(a.compare(b) == -1)),
        overload("compareTo", "semver_compare_to", (Semver, Semver), lambda a, b: cel_int(a.compare(b))),
    ))
