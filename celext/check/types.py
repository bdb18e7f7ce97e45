"""CEL types as cel-go's checker models them, with its assignability and type-parameter substitution.

A `Type` has a kind, a name and parameters: `list(int)` is `Type("list", "list", (INT,))`, the
Kubernetes quantity is the struct `kubernetes.Quantity`, an optional is the opaque `optional_type(T)`,
`A` in a declaration is a type parameter. `Mapping` records what each type parameter (and each fresh
`_varN`) stands for while one expression is checked; assignability extends it, as in cel-go
(checker/types.go): `dyn` and errors are assignable both ways, `null` to structs, opaque and well-known
types, and containers compare their parameters.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Mapping", "Type", "parse_type"]

_SCALAR_KINDS = frozenset({"bool", "bytes", "double", "int", "string", "uint", "duration", "timestamp", "any"})
_NULLABLE_KINDS = frozenset({"opaque", "struct", "any", "duration", "timestamp"})


@dataclass(frozen=True, slots=True)
class Type:
    """kind: one of dyn, error, null, bool, int, uint, double, string, bytes, duration, timestamp, any, list,
    map, type, struct, opaque, param. name: the declared name (`kubernetes.Quantity`, `optional_type`, `A`)."""

    kind: str
    name: str
    params: tuple[Type, ...] = ()
    # Derived once: no type parameter inside (substitution leaves it as is), and the hash (types are dict keys).
    ground: bool = field(init=False, compare=False, repr=False)
    hash_: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ground", self.kind != "param" and all(p.ground for p in self.params))
        object.__setattr__(self, "hash_", hash((self.kind, self.name, self.params)))

    def __hash__(self) -> int:
        return self.hash_

    def __str__(self) -> str:
        return fmt(self)


def fmt(t: Type) -> str:
    """cel-go's FormatCELType: `list(int)`, `map(string, dyn)`, `kubernetes.Quantity`, `null`, `type(int)`."""
    if t.kind == "null":
        return "null"
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(fmt(p) for p in t.params)})"


DYN = Type("dyn", "dyn")
ERROR = Type("error", "!error!")
NULL = Type("null", "null_type")
BOOL = Type("bool", "bool")
INT = Type("int", "int")
UINT = Type("uint", "uint")
DOUBLE = Type("double", "double")
STRING = Type("string", "string")
BYTES = Type("bytes", "bytes")
DURATION = Type("duration", "google.protobuf.Duration")
TIMESTAMP = Type("timestamp", "google.protobuf.Timestamp")
QUANTITY = Type("struct", "kubernetes.Quantity")
SEMVER = Type("struct", "kubernetes.Semver")
IP = Type("opaque", "net.IP")  # apiserver pkg/cel/ip.go cel.OpaqueType
CIDR = Type("opaque", "net.CIDR")
URL = Type("struct", "kubernetes.URL")  # apiserver pkg/cel/url.go cel.ObjectType
DEVICE = Type("struct", "kubernetes.DRADevice")
TYPE = Type("type", "type")


def list_of(elem: Type) -> Type:
    return Type("list", "list", (elem,))


def map_of(key: Type, value: Type) -> Type:
    return Type("map", "map", (key, value))


def optional_of(value: Type) -> Type:
    return Type("opaque", "optional_type", (value,))


def type_of(t: Type) -> Type:
    return Type("type", "type", (t,))


def param(name: str) -> Type:
    return Type("param", name)


_NAMED = {"dyn": DYN, "null": NULL, "bool": BOOL, "int": INT, "uint": UINT, "double": DOUBLE, "string": STRING,
          "bytes": BYTES, "duration": DURATION, "timestamp": TIMESTAMP, "type": TYPE,
          "kubernetes.Quantity": QUANTITY, "kubernetes.Semver": SEMVER, "net.IP": IP, "net.CIDR": CIDR,
          "kubernetes.URL": URL}
_CONTAINERS: dict[str, Callable[..., Type]] = {"list": list_of, "map": map_of, "optional": optional_of,
                                               "type": type_of}


@functools.cache  # (the overload table spells ~300 signatures with a few dozen distinct types, at import)
def parse_type(text: str) -> Type:
    """A type from its short spelling: `int`, `list(A)`, `map(K, V)`, `optional(V)`, `kubernetes.Quantity`;
    a single capital letter is a type parameter."""
    text = text.strip()
    if "(" in text:
        head, inner = text.split("(", 1)
        parts, depth, start = [], 0, 0
        body = inner[:-1]
        for i, ch in enumerate(body):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(body[start:i])
                start = i + 1
        parts.append(body[start:])
        return _CONTAINERS[head.strip()](*(parse_type(p) for p in parts))
    if len(text) == 1 and text.isupper():
        return param(text)
    return _NAMED[text]


def is_dyn_or_error(t: Type) -> bool:
    return t.kind in ("dyn", "error")


def unwrap_optional(t: Type) -> tuple[Type, bool]:
    if t.kind == "opaque" and t.name == "optional_type":
        return t.params[0], True
    return t, False


class Mapping:
    """Type-parameter substitutions (cel-go's `mapping`). A tentative assignment logs what it binds and
    rolls back on failure (cel-go copies the mapping; an undo log keeps long expressions linear)."""

    __slots__ = ("log", "subs")

    def __init__(self, subs: dict[Type, Type] | None = None) -> None:
        self.subs: dict[Type, Type] = subs or {}
        self.log: list[tuple[Type, Type | None]] | None = None

    def bind(self, key: Type, value: Type) -> None:
        if self.log is not None:
            self.log.append((key, self.subs.get(key)))
        self.subs[key] = value

    def _trial(self, ok: bool, outer: list[tuple[Type, Type | None]] | None) -> bool:
        log, self.log = self.log, outer
        if not ok and log:
            for key, old in reversed(log):
                if old is None:
                    self.subs.pop(key, None)
                else:
                    self.subs[key] = old
        elif ok and outer is not None and log:
            outer.extend(log)
        return ok

    def assignable(self, t1: Type, t2: Type) -> bool:
        """Is a value of t2 assignable where t1 is expected? Keeps the substitutions only on success."""
        outer, self.log = self.log, []
        return self._trial(_assignable(self, t1, t2), outer)

    def assignable_list(self, l1: list[Type], l2: list[Type]) -> bool:
        outer, self.log = self.log, []
        ok = len(l1) == len(l2) and all(_assignable(self, a, b) for a, b in zip(l1, l2, strict=True))
        return self._trial(ok, outer)

    def substitute(self, t: Type, params_to_dyn: bool = False) -> Type:
        if t.ground:
            return t
        seen = 0
        while t in self.subs and seen < 64:  # chains are short; the bound guards against a cycle
            t, seen = self.subs[t], seen + 1
        if t.kind == "param":
            return DYN if params_to_dyn else t
        if t.params:
            params = tuple(self.substitute(p, params_to_dyn) for p in t.params)
            if all(map(operator.is_, params, t.params)):  # nothing bound inside: the type itself, not a copy
                return t
            return Type(t.kind, t.name, params)
        return t


def _less_specific(t1: Type, t2: Type) -> bool:
    if t1 is t2:  # (every branch below says so: a list of one binding's values nests its type that deep)
        return True
    if t1.kind in ("dyn", "param"):
        return True
    if t2.kind in ("dyn", "param") or t1.kind != t2.kind:
        return False
    if t1.kind in ("opaque", "list", "map"):
        return t1.name == t2.name and len(t1.params) == len(t2.params) and all(
            _less_specific(a, b) for a, b in zip(t1.params, t2.params, strict=True))
    if t1.kind == "type":
        return True
    return t1 == t2


def most_general(t1: Type, t2: Type) -> Type:
    return t1 if _less_specific(t1, t2) else t2


def _not_referenced_in(m: Mapping, t: Type, within: Type) -> bool:
    if t == within:
        return False
    if within.kind == "param":
        sub = m.subs.get(within)
        return True if sub is None else _not_referenced_in(m, t, sub)
    return all(_not_referenced_in(m, t, p) for p in within.params)


def _valid_substitution(m: Mapping, t1: Type, t2: Type) -> tuple[bool, bool]:
    if t1 == t2:
        return True, True
    sub = m.subs.get(t2)
    if sub is not None:
        if t1 == sub:
            return True, True
        if _assignable(m, t1, sub):
            general = most_general(t1, sub)
            if _not_referenced_in(m, t2, general):
                m.bind(t2, general)
            return True, True
        return False, True
    if _not_referenced_in(m, t2, t1):
        m.bind(t2, t1)
        return True, False
    return False, False


def _assignable(m: Mapping, t1: Type, t2: Type) -> bool:
    if t1 is t2 and t1.ground:  # (every branch below says so, binding nothing: see _less_specific)
        return True
    if t2.kind == "param":
        valid, has_sub = _valid_substitution(m, t1, t2)
        if valid:
            return True
        if has_sub:
            return False
    if t1.kind == "param":
        return _valid_substitution(m, t2, t1)[0]
    if is_dyn_or_error(t1) or is_dyn_or_error(t2):
        return True
    if t1.kind == "null":
        return t2.kind in _NULLABLE_KINDS or t2.kind == "null"
    if t2.kind == "null":
        return t1.kind in _NULLABLE_KINDS
    if t1.kind in _SCALAR_KINDS or t1.kind == "struct":
        return t1 == t2
    if t1.kind == "type":
        return t2.kind == "type"
    if t1.kind in ("opaque", "list", "map"):
        return t1.kind == t2.kind and t1.name == t2.name and len(t1.params) == len(t2.params) and all(
            _assignable(m, a, b) for a, b in zip(t1.params, t2.params, strict=True))
    return False
