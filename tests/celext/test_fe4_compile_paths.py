"""The compile's short paths give what the long ones give: parse-tree nodes made without their constructor copy,
deep-copy and pickle as parse-tree nodes (tokens with their type and position); a cost sum saturated once equals
one saturated part by part; a binary operator's resolution remembered by its operand types' identities is the one
found by value."""

from __future__ import annotations

import copy
import pickle

import pytest

from celext.check import checker
from celext.check import types as t
from celext.cost import estimator
from celext.cost.sizes import U64, Range
from celext.syntax import parser
from celext.syntax.nodes import Token, Tree


def test_parse_nodes_copy_as_parse_nodes() -> None:
    tree = parser.parse_sized("device.attributes['d'].l.all(x, x > 0) && 1 + 2 > 0", lean=True).tree
    assert type(tree) is not Tree  # (made by the fast path)
    for made in (copy.deepcopy(tree), copy.copy(tree), pickle.loads(pickle.dumps(tree))):
        assert made == tree and isinstance(made, Tree)
        assert made.meta == tree.meta
    deep = copy.deepcopy(tree)
    assert deep.children[0] is not tree.children[0]
    token = next(c for n in tree.iter_subtrees() for c in n.children if isinstance(c, Token))
    for made in (copy.deepcopy(token), pickle.loads(pickle.dumps(token))):
        assert (type(made), made, made.type, made.line, made.column, made.start_pos, made.end_pos) == \
            (Token, token, token.type, token.line, token.column, token.start_pos, token.end_pos)


@pytest.mark.parametrize("high", [U64 - 3, U64 - 2, U64 - 1, U64, U64 + 5])
def test_sum_saturates_as_the_parts_do(high: int) -> None:
    own = Range(1, 1)
    for pair in ([(0, 0), (1, high)], [(1, high), (0, 1)], [(high, high), (1, 1)]):
        parts = [Range(min(low, U64), min(top, U64)) for low, top in pair]
        assert estimator._sum(own, parts) == own.add(parts[0]).add(parts[1])


def _resolved(text: str) -> tuple[dict[int, t.Type], dict[int, tuple[str, ...]]]:
    found = checker.check(parser.parse_sized(text, lean=True).claim())  # type: ignore[arg-type]
    assert not found.errors
    return dict(found.types), dict(found.overloads)


@pytest.mark.parametrize("text", [
    "[1] + [2] == [1, 2] && [3] + [4] == [3, 4]",
    "1 + 2 > 0 && 1u + 2u > 0u && 1.0 + 2.0 > 0.0 && 'a' + 'b' == 'ab'",
    "{'a': [1]}['a'] + [2] == [1, 2] && device.attributes['d'].x == 1",
])
def test_resolutions_by_identity_match_by_value(text: str) -> None:
    checker.RESOLVED.clear()
    cold = _resolved(text)
    warm = _resolved(text)  # (now by value, then by identity)
    assert any(key[1] == checker._BY_IDENTITY for key in checker.RESOLVED)
    by_identity = _resolved(text)
    assert cold == warm == by_identity


def test_an_equal_type_of_another_identity_is_found_by_value() -> None:
    checker.RESOLVED.clear()
    first = _resolved("1 + 2 > 0 && 'a' + 'b' == 'ab'")
    assert _resolved("1 + 2 > 0 && 'a' + 'b' == 'ab'") == first  # (found by value: now kept by identity too)
    identities = [key for key in checker.RESOLVED if key[1] == checker._BY_IDENTITY]
    assert identities
    for key in identities:
        entry = checker.RESOLVED[key]
        stranger = t.Type(entry[3].kind, entry[3].name, entry[3].params)  # equal, not the same object
        checker.RESOLVED[key] = (t.ERROR, ("bogus",), 0, stranger, entry[4])  # (wrong: must not be used)
    assert _resolved("1 + 2 > 0 && 'a' + 'b' == 'ab'") == first
