"""webhook.fix's list of applied edits (what `lint --fix` prints): line and column of each edit in the original
file, and the fragment before and after it."""

from __future__ import annotations

from webhook.fieldpath import FieldPath
from webhook.findings import Edit
from webhook.fix import Rewrite, Target, apply_edits
from webhook.manifests import libyaml as fastyaml

PATH = FieldPath.root("x")


def rewrites(text: str, edits: list[Edit]) -> list[Rewrite]:
    (doc,) = fastyaml.load(text, "t.yaml") or []
    start = doc.scalar_start(PATH)
    assert start is not None
    target = Target(PATH, 0, start, doc.obj["x"])
    result = apply_edits(text, [(target, edits)], lambda new, t: fastyaml.value_at(new, t.document, t.path))
    assert result.applied == len(edits)
    return result.rewrites


def test_an_edit_on_the_first_line_is_at_line_1_from_its_column() -> None:
    assert rewrites("x: a == 1\n", [Edit(2, 4, "!=")]) == [Rewrite(1, 6, "==", "!=")]


def test_an_empty_first_line_counts_as_a_line() -> None:
    # The line break at offset 0 is the one before the edit's line: line 2, and the column counts from it.
    assert rewrites("\nx: a == 1\n", [Edit(2, 4, "!=")]) == [Rewrite(2, 6, "==", "!=")]


def test_an_insertion_shows_the_operand_it_completes() -> None:
    assert rewrites("x: d.rdma && e\n", [Edit(6, 6, ".includes(true)")]) == [
        Rewrite(1, 10, "d.rdma", "d.rdma.includes(true)")]


def test_an_insertion_after_no_operand_shows_only_what_it_inserts() -> None:
    # `)` ends no operand the pattern knows, so the fragment before is empty and the one after is the insertion.
    assert rewrites("x: (a) && e\n", [Edit(3, 3, ".b")]) == [Rewrite(1, 7, "", ".b")]
