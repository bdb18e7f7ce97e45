"""Static facts about one selector expression, for `draguard lint` and the selector rules.

Everything here reads the lean parse tree the compile path parses too (`parse_lean`, cached: `draguard lint`
parses a selector once for both) and never evaluates: which device attributes an
expression reads, how it uses each one (compared with `==`, passed to a string method, used as a bool, ...),
which reads are the argument of a `has()` guard, which `include()`/`includes()` calls it makes, and a rough
iteration-cost estimate. The fact types are in `facts`, the node shapes in `shapes`, the one walk that collects
them in `walk`; `paths` derives the device paths an expression reads (the result memo's key).

    >>> facts = analyze('device.attributes["dra.net"].numaNode == 4')
    >>> [(u.ref.qualified, u.how, u.literal) for u in facts.uses]
    [('dra.net/numaNode', '==', 4)]

The facts are computed once per expression text (cached): DRA repositories repeat selectors a lot.
"""

from __future__ import annotations

import functools

from celext.analysis.facts import (
    DRIVER_DOMAIN,
    AttributeRef,
    Call,
    DomainRead,
    Facts,
    Select,
    Unwrap,
    Use,
)
from celext.analysis.spans import LazySpans
from celext.analysis.walk import Walker
from celext.syntax import parse
from celext.syntax.grammar import parse_lean
from celext.syntax.literals import string_value
from celext.syntax.tree import Span, Spans, has_comment, literal_value, span_of, unwrap

__all__ = [  # the syntax helpers (and the full-shape `parse`) are re-exported: callers read every static fact here
    "DRIVER_DOMAIN", "AttributeRef", "Call", "DomainRead", "Facts", "Select", "Span", "Spans", "Unwrap", "Use",
    "analyze", "has_comment", "literal_value", "parse", "span_of", "string_value", "unwrap",
]


@functools.lru_cache(maxsize=4096)
def analyze(expression: str) -> Facts:
    """The facts of one expression; raises `celext.CompileError` when it does not parse."""
    tree = parse_lean(expression).tree
    walker = Walker(expression, LazySpans(expression, tree))
    walker.walk(tree, boolean=True, depth_cost=1)
    return Facts(expression, tuple(walker.refs), tuple(walker.domains), tuple(walker.uses), tuple(walker.calls),
                 walker.cost, tuple(walker.unbounded), tuple(walker.selects))
