"""The catalogue as documentation: a table cell escapes `|` and joins lines, and the README's rules section is
read and replaced between the first pair of markers, keeping its own indentation. Named `test_docs_*` so
mutation testing runs it first on `webhook.rules.docs`."""

from __future__ import annotations

from webhook.findings import Action
from webhook.rules.base import Rule
from webhook.rules.docs import BEGIN, END, catalogue_markdown, readme_section, replace_section


def test_a_cell_escapes_pipes_and_joins_lines() -> None:
    rule = Rule("a-rule", frozenset({"ResourceSlice"}), Action.WARN, "a | b\nc", "fix\nit | now",
                check=lambda obj, ctx: iter(()), gates=("G1",))
    row = catalogue_markdown([rule]).splitlines()[2]
    assert row == "| `a-rule` | warn | draguard | 1.34, G1 | a \\| b c | fix it \\| now |"


def test_the_section_between_the_first_markers() -> None:
    readme = f"x{BEGIN}\n\n  a\n\n{END}y{BEGIN}\nb\n{END}z"
    assert readme_section(readme) == "  a\n"
    assert readme_section(f"{BEGIN}\nX\n{END}") == "X\n"
    assert replace_section(readme, "T\n") == f"x{BEGIN}\nT\n{END}y{BEGIN}\nb\n{END}z"


def test_angle_brackets_outside_code_spans_are_entities_inside_they_stay() -> None:
    from webhook.rules.docs import _cell

    assert _cell("qualified (<domain>/<id>), `x < 2` or a|b") == (
        "qualified (&lt;domain&gt;/&lt;id&gt;), `x < 2` or a\\|b")
