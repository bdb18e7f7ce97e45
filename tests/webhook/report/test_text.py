"""The text reporter: one line per finding, help lines, the summary line, colour only when asked."""

from __future__ import annotations

from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding, Position
from webhook.report import Summary, render

PATH = FieldPath.root("spec", "devices").index(0).child("name")


def test_line_with_position_and_help() -> None:
    finding = Finding(PATH, "bad name", hint="rename it", rule="k8s-device-name", action=Action.DENY,
                      position=Position("a.yaml", 3, 9))
    assert render("text", [finding], Summary(objects=1)) == (
        "a.yaml:3:9: deny k8s-device-name: spec.devices[0].name: bad name\n"
        "  help: rename it\n"
        "1 object checked; 1 deny, 0 warnings, 0 audit\n")


def test_line_without_position_starts_with_the_path() -> None:
    finding = Finding(PATH, "bad name", rule="k8s-device-name", action=Action.WARN)
    assert render("text", [finding], Summary(objects=2)).splitlines() == [
        "spec.devices[0].name: warn k8s-device-name: bad name",
        "2 objects checked; 0 deny, 1 warning, 0 audit"]


def test_summary_mentions_suppressed_skipped_and_problems() -> None:
    summary = Summary(objects=0, skipped={"ConfigMap": 2, "Pod": 1}, suppressed=3, problems=["x: broken"])
    assert render("text", [], summary) == (
        "0 objects checked; 0 deny, 0 warnings, 0 audit; 3 suppressed; skipped 3 (ConfigMap 2, Pod 1); "
        "1 input problem\n")


def test_colour_only_when_asked() -> None:
    finding = Finding(PATH, "m", rule="r", action=Action.DENY)
    assert "\033[31mdeny\033[0m" in render("text", [finding], Summary(), color=True)
    assert "\033" not in render("text", [finding], Summary())


def test_escape_sequences_from_the_input_never_reach_the_terminal() -> None:
    finding = Finding(PATH, 'Invalid value: "a\x1b]0;x\x07"', hint="e.g. a\x1b[2J\nb", rule="r",
                      action=Action.DENY, position=Position("bytes \udcff\x1b[5m.yaml", 3, 9))
    assert render("text", [finding], Summary(objects=1, skipped={"Evil\x1b[8m": 1}), color=True).split("\n") == [
        "bytes \\udcff\\x1b[5m.yaml:3:9: \x1b[31mdeny\x1b[0m r: spec.devices[0].name: Invalid value: \"a\\x1b]0;x\\a\"",
        "  help: e.g. a\\x1b[2J\\nb",
        "1 object checked; 1 deny, 0 warnings, 0 audit; skipped 1 (Evil\\x1b[8m 1)", ""]
