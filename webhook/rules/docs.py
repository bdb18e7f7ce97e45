"""The rule catalogue as documentation: the README table and `draguard rules` are generated from here."""

from __future__ import annotations

from collections.abc import Iterable

from webhook.rules.base import Rule

BEGIN, END = "<!-- rules:begin -->", "<!-- rules:end -->"


def _cell(text: str) -> str:
    """A table cell: `|` escaped, one line, and `<` `>` outside code spans as entities (a placeholder such as
    `<domain>/<id>` written bare would be read as an HTML tag and dropped by GitHub's renderer)."""
    parts = text.replace("|", "\\|").replace("\n", " ").split("`")
    return "`".join(part if i % 2 else part.replace("<", "&lt;").replace(">", "&gt;") for i, part in enumerate(parts))


def applies(rule: Rule) -> str:
    """`1.37, DRAPartitionableDevicesType`: the first release the rule applies to, and the gates it needs."""
    return ", ".join((rule.since, *rule.gates))


def catalogue_markdown(rules: Iterable[Rule]) -> str:
    """A markdown table: id, default action, origin, from which release / under which gates, what it checks, how
    to fix. Sorted: parity rules first."""
    rows = sorted(rules, key=lambda r: (r.origin != "kubernetes", r.id))
    lines = [
        "| rule | default | origin | applies from | what it checks | how to fix |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| `{r.id}` | {r.default.value} | {r.origin} | {_cell(applies(r))} | {_cell(r.summary)} | "
        f"{_cell(r.remediation)} |" for r in rows
    ]
    return "\n".join(lines) + "\n"


def readme_section(readme: str) -> str:
    """The text between the rules markers of a README."""
    start = readme.index(BEGIN) + len(BEGIN)
    return readme[start:readme.index(END)].strip("\n") + "\n"


def replace_section(readme: str, table: str) -> str:
    start = readme.index(BEGIN) + len(BEGIN)
    return readme[:start] + "\n" + table + readme[readme.index(END):]
