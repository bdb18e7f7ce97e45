"""The facts `celext.analysis.analyze` finds in one selector expression: attribute reads, domain reads, uses
that behave differently once an attribute is a list, calls, field selects, the iteration cost. Each fact carries
a `Span` (character offsets into the expression text), so a caller can point at the exact token and rewrite it.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from celext.syntax.tree import Span

Kind = Literal["attributes", "capacity"]
How = Literal["==", "!=", "<", "<=", ">", ">=", "in", "method", "bool", "arithmetic", "argument", "size"]
# The domain of `device.attributes[device.driver]`: the driver's own, known per device only (never a real domain:
# domains are DNS subdomains).
DRIVER_DOMAIN = "<driver>"


class AttributeRef(NamedTuple):
    """One `device.attributes[<domain>].<id>` (or `[<domain>][<id>]`) read with literal keys, or through the
    driver's own domain, `device.attributes[device.driver].<id>` (`by_driver`; `domain` is then DRIVER_DOMAIN and
    `qualified_on(driver)` names the attribute a given device publishes).

    `optional` marks an optional read (`.?<id>`, `[?<id>]`, or `[?<domain>]`): its value is an optional,
    optional.none() where the attribute is absent instead of a "no such key" error. `dereferenced` marks one
    whose `.value()` is taken, which fails again where it is absent ("optional.none() dereference").

    `alias` marks an occurrence of a `cel.bind` variable bound to a read (`cel.bind(n, <read>, n == 4)`): `span`
    is the occurrence, where the value is used, and the name and domain spans are the read's where it is bound,
    which is recorded there as a read of its own (a variable bound to a domain map makes plain reads: `a.id`).
    """

    kind: Kind
    domain: str
    name: str
    span: Span  # the whole read, `device.attributes["d"].id`
    name_span: Span  # the id token
    domain_span: Span  # the domain literal, quotes included
    in_guard: bool = False  # the read is itself the argument of has(), or the receiver of `.hasValue()`
    optional: bool = False
    dereferenced: bool = False
    by_driver: bool = False
    alias: bool = False

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.name}"

    def qualified_on(self, driver: str) -> str:
        """The attribute this read looks up on a device of `driver`."""
        return f"{driver}/{self.name}" if self.by_driver else self.qualified


class DomainRead(NamedTuple):
    """`device.attributes[<domain>]` with a literal domain, or `[device.driver]` (whether or not an id follows)."""

    kind: Kind
    domain: str
    span: Span  # the domain literal, quotes included (or `device.driver`)
    by_driver: bool = False


class Unwrap(NamedTuple):
    """An optional read turned back into the attribute value: `<read>.value()` or `<read>.orValue(<fallback>)`,
    or (`ternary`, in comparisons) a conditional whose branch is the read: `(has(<read>) ? <read> : <fallback>)`.

    `fallback_literal` is the fallback's value when it is an int, string or bool literal."""

    method: Literal["value", "orValue", "ternary"]
    span: Span  # the whole call, `device.attributes["d"].?id.orValue(-1)`
    fallback: Span | None = None
    fallback_literal: int | str | bool | None = None


class Use(NamedTuple):
    """A use of an attribute value that behaves differently once the attribute is a list.

    `how` is the operator (`==`, `<`, `in`, ...), `"method"` for a method call on the value, `"bool"`
    for the value used directly as a condition, `"arithmetic"` for an operand of `+ - * / %` (or unary
    `-`) and `"argument"` for an argument of a function or method (`isSemver(x)`, `s.startsWith(x)`);
    `"size"` for `size(x)`/`x.size()` (a string's characters, a list's elements: the caller judges by the type).
    `method` names the method, function or arithmetic operator. `span` covers the whole comparison /
    call / value; `other` the other operand (for `in`: the container when the attribute is on the left).
    `literal` is the other operand's value when it is an int, string or bool literal, `literals` the
    items of a list literal on the right of `in`, or of the list literal a comprehension variable on the
    other side ranges over (`[0, 1].exists(n, x == n)`). `unwrap` is set when the value comes from an
    optional read (`x.?id.orValue(-1) == 4`); `operand` is then the `.orValue(...)`/`.value()` call.
    """

    ref: AttributeRef
    how: How
    span: Span
    operator: Span | None = None
    other: Span | None = None
    attribute_left: bool = True
    method: str = ""
    literal: int | str | bool | None = None
    literals: tuple[int | str | bool, ...] | None = None
    unwrap: Unwrap | None = None

    @property
    def operand(self) -> Span:
        """The attribute-valued subexpression: the read, or the call unwrapping an optional read."""
        return self.unwrap.span if self.unwrap is not None else self.ref.span



class Call(NamedTuple):
    """A member call `<receiver>.<name>(<args>)` or a global call `<name>(<args>)`."""

    name: str
    span: Span
    name_span: Span
    receiver: Span | None
    ref: AttributeRef | None  # the receiver when it is an attribute read
    args: tuple[Span, ...]
    literal_args: tuple[int | str | bool | None, ...]  # each argument's literal value, None when not a literal
    # Each argument's possible literal values: its own, or those of the list literal it ranges over when it
    # is a comprehension variable (`[0, 1].exists(n, x.includes(n))`); () when unknown.
    arg_values: tuple[tuple[int | str | bool, ...], ...] = ()


class Select(NamedTuple):
    """`<attribute read>.<field>`: a field of an attribute's value, which has none (a runtime error)."""

    ref: AttributeRef
    name: str
    span: Span  # the field name


class Facts(NamedTuple):
    expression: str
    refs: tuple[AttributeRef, ...]
    domains: tuple[DomainRead, ...]
    uses: tuple[Use, ...]
    calls: tuple[Call, ...]
    cost: int  # product of the sizes the nested comprehensions iterate over (1 when none)
    unbounded: tuple[Span, ...]  # comprehensions whose range size is unknown to the estimate
    selects: tuple[Select, ...]  # field reads on attribute values (`....numaNode.int`)

    @property
    def draft_includes(self) -> tuple[Call, ...]:
        """`x.include(y)` calls: KEP-5491's draft spelling, which celext takes and Kubernetes does not declare."""
        return tuple(call for call in self.calls if call.name == "include" and call.receiver is not None)

    def variable_free(self, base: str = "v") -> str:
        """An identifier the expression does not use (for a comprehension variable in a rewrite)."""
        name, n = base, 0
        while mentions_identifier(self.expression, name):
            n += 1
            name = f"{base}{n}"
        return name


def mentions_identifier(expression: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", expression) is not None
