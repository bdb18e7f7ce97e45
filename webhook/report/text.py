"""The text format: one line per finding, a `help:` line when there is a hint, then a summary line.

    gpu.yaml:14:11: deny numa-node-range: spec.devices[0].attributes[...].int: numaNode -1 is negative
      help: omit the attribute while the NUMA node is unknown ...

A finding without a file position starts with its field path instead. Colour only when asked (on a tty).
File names, messages and hints quote the inputs: a character a terminal would act on (an escape sequence, a line
break, any control character, a file name's byte that is not UTF-8) is written as Go's %q spells it (`\\x1b`).
"""

from __future__ import annotations

from collections.abc import Sequence

from webhook.findings import Action, Finding
from webhook.report import Summary, counts
from webhook.report import per_rule as rule_counts
from webhook.wire import printable

_COLOURS = {Action.DENY: "\033[31m", Action.WARN: "\033[33m", Action.AUDIT: "\033[36m"}
_RESET = "\033[0m"


def line(finding: Finding, *, color: bool = False) -> str:
    action = finding.action.value if finding.action is not None else "info"
    if color and finding.action in _COLOURS:
        action = f"{_COLOURS[finding.action]}{action}{_RESET}"
    if finding.position is not None:
        return printable(f"{finding.position}: ") + f"{action} " + printable(
            f"{finding.rule}: {finding.path}: {finding.message}")
    return printable(f"{finding.path}: ") + f"{action} " + printable(f"{finding.rule}: {finding.message}")


def render(findings: Sequence[Finding], summary: Summary, *, color: bool = False, quiet: bool = False,
           per_rule: bool = False) -> str:
    """`quiet`: the findings only; `per_rule`: a count per rule and action before the summary line."""
    out: list[str] = []
    for finding in findings:
        out.append(line(finding, color=color))
        if finding.hint:
            out.append(f"  help: {printable(finding.hint)}")
    if per_rule:
        out += [f"{n:>6}  {action:<5}  {rule}" for rule, action, n in rule_counts(findings)]
    if not quiet:
        out.append(printable(summary_line(findings, summary)))  # skipped kinds are the inputs' words
    return "".join(f"{text}\n" for text in out)


def summary_line(findings: Sequence[Finding], summary: Summary) -> str:
    n = counts(findings)
    parts = [
        f"{summary.objects} {'object' if summary.objects == 1 else 'objects'} checked",
        f"{n['deny']} deny, {n['warn']} {'warning' if n['warn'] == 1 else 'warnings'}, {n['audit']} audit",
    ]
    if summary.suppressed:
        parts.append(f"{summary.suppressed} suppressed")
    if summary.baselined:
        parts.append(f"{summary.baselined} in the baseline")
    if summary.skipped:
        kinds = ", ".join(f"{kind or '<no kind>'} {count}" for kind, count in sorted(summary.skipped.items()))
        parts.append(f"skipped {sum(summary.skipped.values())} ({kinds})")
    if summary.problems:
        n_problems = len(summary.problems)
        parts.append(f"{n_problems} input {'problem' if n_problems == 1 else 'problems'}")
    return "; ".join(parts)
