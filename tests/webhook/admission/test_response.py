from __future__ import annotations

import pytest

from webhook.admission.response import (
    WARNING_ITEM_RUNES,
    WARNING_TOTAL_RUNES,
    Response,
    allowed,
    audit_key,
    clip,
    denied,
    errored,
    fit_warnings,
    one_line,
)


def test_helpers_make_each_common_answer_one_call() -> None:
    assert allowed() == Response(True)
    assert denied("1 problem: x") == Response(False, 403, "Forbidden", "1 problem: x")
    assert errored(413, "too big") == Response(False, 413, "RequestEntityTooLarge", "too big")
    assert errored(400, "bad") == Response(False, 400, "BadRequest", "bad")


def test_one_line_removes_every_control_character() -> None:
    assert one_line("a\nb\r\n\tc\x1b[31md\x7f\x85e") == "a b c [31md e"


def test_warnings_are_single_line_deduplicated_and_in_order() -> None:
    assert fit_warnings(["b\nline", "a", "b line", "", "a"]) == ("b line", "a")


def test_a_long_warning_is_cut_to_the_api_servers_item_limit() -> None:
    (line,) = fit_warnings(["x" * 1000])
    assert len(line) == WARNING_ITEM_RUNES
    assert line.endswith("…")


def test_many_warnings_stay_within_the_total_budget_and_say_how_many_were_left_out() -> None:
    lines = [f"[rule] spec.devices[{i}]: " + "y" * 200 for i in range(40)]
    fitted = fit_warnings(lines)
    assert sum(map(len, fitted)) <= WARNING_TOTAL_RUNES
    kept = len(fitted) - 1
    assert fitted[:kept] == tuple(lines[:kept])
    assert fitted[-1] == (
        f"[draguard] {40 - kept} more warning(s) not shown; run `draguard validate` on this object for all of them"
    )


def test_with_warnings_fits_as_it_adds() -> None:
    assert allowed().with_warnings("a\tb", "a b").warnings == ("a b",)


def test_audit_keys_must_be_qualified_name_parts() -> None:
    assert audit_key("numa-node-range") == "numa-node-range"
    assert audit_key("bad key") is None
    assert audit_key("x" * 64) is None


def more(count: int) -> str:
    return f"[draguard] {count} more warning(s) not shown; run `draguard validate` on this object for all of them"


def test_distinct_warnings_the_cut_makes_identical_are_counted_not_merged() -> None:
    prefix = "[rule] " + "p" * 293
    assert fit_warnings([f"{prefix}{i}" for i in range(5)]) == (prefix[:255] + "…", more(4))


@pytest.mark.parametrize(("differ_at", "shown"), [(254, 2), (255, 1), (256, 1)])
def test_warnings_are_told_apart_by_what_survives_the_cut(differ_at: int, shown: int) -> None:
    """Index 254 is the last rune kept before the `…` (rune 256); from 255 on, the cut texts are the same."""
    texts = ["x" * differ_at + tail + "x" * (299 - differ_at) for tail in "ab"]
    fitted = fit_warnings(texts)
    assert fitted[:shown] == tuple(clip(text, WARNING_ITEM_RUNES) for text in texts[:shown])
    assert fitted[shown:] == (() if shown == 2 else (more(1),))


def test_warnings_of_exactly_the_item_limit_are_not_cut_and_stay_distinct() -> None:
    texts = ["x" * (WARNING_ITEM_RUNES - 1) + tail for tail in "ab"]
    assert fit_warnings(texts) == tuple(texts)


def test_a_repeated_warning_is_still_dropped_without_a_count() -> None:
    text = "y" * 300
    assert fit_warnings([text, text, one_line(text)]) == (clip(text, WARNING_ITEM_RUNES),)


def test_merged_warnings_add_to_the_count_of_those_left_out_for_the_budget() -> None:
    """40 distinct long warnings, each sent twice in variants the cut makes identical: 40 more than before."""
    lines = [f"[rule] spec.devices[{i:02}]: " + "y" * 300 + tail for i in range(40) for tail in "ab"]
    fitted = fit_warnings(lines)
    assert sum(map(len, fitted)) <= WARNING_TOTAL_RUNES
    kept = len(fitted) - 1
    assert fitted[:kept] == tuple(clip(line, WARNING_ITEM_RUNES) for line in lines[: 2 * kept : 2])
    assert fitted[-1] == more(80 - kept)
