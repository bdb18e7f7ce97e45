"""`analyze()` walks the lean parse tree (`parse_lean`, the one the compile path parses): its facts are those a
walk of the full tree (`celext.parse`) finds, values, their Python types and every span included."""

from __future__ import annotations

from pathlib import Path

import pytest

from celext.analysis import Facts, Span, analyze, parse
from celext.analysis.spans import LazySpans
from celext.analysis.walk import Walker
from celext.syntax import grammar
from tests.celext.analysis.corpus import check_each

RUN = ",".join(str(n) for n in range(18))  # a literal run the lean parser holds as one `const` node
BOOLS = ",".join(["true"] * 17)
EXPRESSIONS = [
    'device.attributes["dra.net"].numaNode == 4',
    "!false && device.attributes['d'].x",
    'device.attributes["d"].?x.orValue(true) || null == device.attributes["d"].y',
    '(device.attributes["d"].x) == (4) // a comment',
    '[true, false].exists(b, b == device.attributes["d"].flag) ? true : false',
    f'device.attributes["d"].x in [{RUN}]',
    f'[{RUN}].exists(n, device.attributes["d"].x == n)',
    f'device.attributes["d"].x == [{RUN}] || device.attributes["d"].x + [{RUN}] == true',
    f'[{BOOLS}] == [] && true',
    '{' + ",".join(f'"k{n}": {n}' for n in range(17)) + '}.all(k, device.attributes["d"].x == k)',
    'device.attributes["d"].x == -(4) || device.attributes["d"].y == - 4 || device.attributes["d"].z == --4',
    'device.attributes["d"].x == 4u || device.attributes["d"].x == 1.5 || device.attributes["d"].x == b"x"',
    "device.attributes[\"d\"].x == \"\\u00e9\\x41\\101\" && device.attributes[\"d\"].y == '''a\nb'''",
    'device.attributes["d"].x == r"\\d" || device.attributes["d"].x == -9223372036854775808',
    f'[{BOOLS} // false\n].exists(v, v == false) && device.attributes["d"].x == false',
    '[].all(v, device.attributes["d"].x == v) && [1].exists(v, device.attributes["d"].x)',
    'device.attributes[device.driver].x == true && device.attributes["d"]["y"] == false',
]


def full_facts(expression: str) -> Facts:
    """What analyze() found when it walked the full tree."""
    tree = parse(expression)
    walker = Walker(expression, LazySpans(expression, tree))
    walker.walk(tree, boolean=True, depth_cost=1)
    return Facts(expression, tuple(walker.refs), tuple(walker.domains), tuple(walker.uses), tuple(walker.calls),
                 walker.cost, tuple(walker.unbounded), tuple(walker.selects))


def same_facts(expression: str) -> None:
    # (repr: an IntType where an int was, or a BoolType for a bool, would compare equal)
    assert repr(analyze(expression)) == repr(full_facts(expression))


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_lean_walk_finds_the_facts_of_the_full_walk(expression: str) -> None:
    same_facts(expression)


def test_a_bool_after_a_constant_list_is_found_after_its_closing_bracket() -> None:
    # The lean tree's constant list carries its span, so a bool without a position is looked for after the list;
    # the full walk looked for it after the list's last element and took the `true` in the comment.
    expression = f'device.attributes["d"].x.foo([{RUN} // true\n], true)'
    bool_at = expression.rindex("true")
    (call,) = analyze(expression).calls
    assert call.args[1] == Span(bool_at, bool_at + 4) and call.literal_args == (None, True)
    (full_call,) = full_facts(expression).calls
    assert full_call.args[1] == Span(expression.index("true"), expression.index("true") + 4)  # in the comment


def test_a_bool_is_found_where_the_literal_is_not_in_a_comment_before_it() -> None:
    # The lean tree's bool const has its literal's position; the full walk (cel-python's position-less true/false)
    # looks for the text and took the `true` in the comment.
    expression = 'device.attributes["d"].x == // true\n true'
    bool_at = expression.rindex("true")
    (use,) = analyze(expression).uses
    assert use.other == Span(bool_at, bool_at + 4) and use.literal is True
    (full_use,) = full_facts(expression).uses
    assert full_use.other == Span(expression.index("true"), expression.index("true") + 4)  # in the comment


def test_the_corpus_expressions_have_the_facts_of_the_full_walk(corpus: Path) -> None:
    assert check_each(corpus, same_facts) > 100


def test_literals_are_plain_python_values() -> None:
    facts = analyze(f'device.attributes["d"].x == 4 && device.attributes["d"].y in [{RUN}] && '
                    'device.attributes["d"].z == "s" && device.attributes["d"].b == true')
    assert [type(u.literal) for u in facts.uses] == [int, type(None), str, bool]
    assert facts.uses[1].literals == tuple(range(18))
    assert {type(n) for n in facts.uses[1].literals or ()} == {int}


def test_a_constant_list_is_a_known_range() -> None:
    assert analyze(f'[{RUN}].exists(n, [{RUN}].exists(m, device.attributes["d"].x == n + m))').cost == 18 * 18


def test_an_int_with_leading_zeros_is_its_decimal_value() -> None:
    # (the full tree's token read it with int(text, 0), which raises ValueError: cel-go reads it in base 10)
    assert analyze('device.attributes["d"].x == 007').uses[0].literal == 7


def test_analyze_parses_only_the_lean_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    shapes: list[bool] = []
    parse_sized = grammar._parse

    def recording(expression: str, *, lean: bool) -> object:
        shapes.append(lean)
        return parse_sized(expression, lean=lean)

    monkeypatch.setattr(grammar, "_parse", recording)
    analyze.cache_clear()
    grammar.parse.cache_clear()
    grammar.parse_lean.cache_clear()
    analyze('device.attributes["d"].x == true')
    assert shapes == [True]
