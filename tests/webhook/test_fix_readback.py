"""webhook.fix's read-back check: a rewritten scalar that does not read back as its fixed expression is left
alone and reported, and the rest of the file is still fixed.

The read-back is the YAML loader `apply_edits` is given; these tests give it the real loader wrapped so that one
scalar reads back differently, as a YAML spelling the mapping got wrong would.
"""

from __future__ import annotations

from webhook.fieldpath import FieldPath
from webhook.findings import Edit
from webhook.fix import Target, apply_edits
from webhook.manifests import libyaml as fastyaml

TEXT = "a: x == 1\nb: y == 1\nc: z == 1\nd: w == 1\n"
NOT_READ_BACK = "the rewritten YAML scalar would not read back as the fixed expression"
GAVE_UP = "gave up after repeated read-back failures"


def targets(text: str, keys: str) -> list[tuple[Target, list[Edit]]]:
    (doc,) = fastyaml.load(text, "t.yaml") or []
    out = []
    for key in keys:
        path = FieldPath.root(key)
        start = doc.scalar_start(path)
        assert start is not None
        out.append((Target(path, 0, start, doc.obj[key]), [Edit(2, 4, "!=")]))
    return out


def real(new: str, target: Target) -> str | None:
    return fastyaml.value_at(new, target.document, target.path)


def test_one_scalar_that_reads_back_wrong_is_skipped_and_the_others_are_fixed() -> None:
    def read_back(new: str, target: Target) -> str | None:
        value = real(new, target)
        return "y != 2" if str(target.path) == "b" else value

    result = apply_edits(TEXT, targets(TEXT, "abc"), read_back)
    assert result.text == "a: x != 1\nb: y == 1\nc: z != 1\nd: w == 1\n"
    assert result.applied == 2
    assert [(str(t.path), reason) for t, reason in result.skipped] == [("b", NOT_READ_BACK)]


def test_a_scalar_that_cannot_be_read_back_at_all_is_skipped() -> None:
    def read_back(new: str, target: Target) -> str | None:
        return None if str(target.path) == "a" else real(new, target)

    result = apply_edits(TEXT, targets(TEXT, "ab"), read_back)
    assert (result.text, result.applied) == ("a: x == 1\nb: y != 1\nc: z == 1\nd: w == 1\n", 1)
    assert [(str(t.path), reason) for t, reason in result.skipped] == [("a", NOT_READ_BACK)]


def test_after_three_rounds_of_new_failures_it_gives_up_and_changes_nothing() -> None:
    """Each round drops the scalars that failed and retries; a fourth round is never tried."""
    asked: set[str] = set()

    def read_back(new: str, target: Target) -> str | None:
        if new not in asked:  # the first scalar checked in each round reads back wrong
            asked.add(new)
            return "wrong"
        return real(new, target)

    result = apply_edits(TEXT, targets(TEXT, "abcd"), read_back)
    assert (result.text, result.applied) == (TEXT, 0)
    assert [(str(t.path), reason) for t, reason in result.skipped] == [
        ("a", NOT_READ_BACK), ("b", NOT_READ_BACK), ("c", NOT_READ_BACK), ("d", GAVE_UP)]


def test_two_rounds_of_failures_still_fix_the_rest() -> None:
    asked: list[str] = []

    def read_back(new: str, target: Target) -> str | None:
        if new not in asked and len(asked) < 2:
            asked.append(new)
            return "wrong"
        return real(new, target)

    result = apply_edits(TEXT, targets(TEXT, "abcd"), read_back)
    assert (result.text, result.applied) == ("a: x == 1\nb: y == 1\nc: z != 1\nd: w != 1\n", 2)
    assert [(str(t.path), reason) for t, reason in result.skipped] == [("a", NOT_READ_BACK), ("b", NOT_READ_BACK)]
