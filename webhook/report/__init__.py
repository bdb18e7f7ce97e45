"""Reporters: findings and a run summary -> text for a terminal or a machine.

Each format is a module with `render(findings, summary, *, color=False) -> str`, imported only when
asked for, so `draguard validate` never pays for SARIF. Add a format with one entry in FORMATS.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Mapping, Sequence

from msgspec import Struct, field

from webhook.errors import DraguardError
from webhook.findings import Action, Finding

# A file name that is not UTF-8 reaches draguard as lone surrogates (Python's surrogateescape): no UTF-8 report can
# hold them, and a writer refuses them.
UNPAIRED = re.compile("[\ud800-\udfff]")

FORMATS: dict[str, str] = {
    "text": "webhook.report.text",
    "json": "webhook.report.json",
    "sarif": "webhook.report.sarif",
    "junit": "webhook.report.junit",
    "github": "webhook.report.github",
}


class Summary(Struct, frozen=True):
    """What a run looked at besides its findings."""

    objects: int = 0  # objects the rules ran on
    skipped: Mapping[str, int] = field(default_factory=dict)  # kind -> objects of kinds no rule reads
    suppressed: int = 0  # findings silenced by a draguard.io/ignore annotation
    problems: Sequence[str] = ()  # input problems, one line each (also printed on stderr)
    baselined: int = 0  # findings left out because the --baseline file records them


def spell(text: str, chars: re.Pattern[str] = UNPAIRED) -> str:
    """`text` with each character `chars` matches spelled as Go's %q spells it (`\\x01`, `\\udcff`): visible, and
    in a JSON string the escape of that very character."""
    from celext.gostrconv import go_quote

    return chars.sub(lambda match: go_quote(match.group())[1:-1], text)


def json_text(document: object) -> str:
    """`document` as indented JSON, non-ASCII as it is (UTF-8), a lone surrogate as its `\\u` escape."""
    import json

    return spell(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def below(file: str, base: str) -> str | None:
    """`file` relative to the directory `base`, `/`-separated, when it lies below it; else None."""
    import os

    base = os.path.abspath(base)
    path = os.path.abspath(file)
    if os.path.commonpath([base, path]) != base:
        return None
    return os.path.relpath(path, base).replace(os.sep, "/")


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """Findings per action, every action present (deny, warn, audit)."""
    out = {a.value: 0 for a in Action if a is not Action.OFF}
    for finding in findings:
        if finding.action is not None and finding.action is not Action.OFF:
            out[finding.action.value] += 1
    return out


def per_rule(findings: Sequence[Finding]) -> list[tuple[str, str, int]]:
    """(rule, action, count), most frequent first: what `--summary` prints."""
    tally: dict[tuple[str, str], int] = {}
    for finding in findings:
        action = finding.action.value if finding.action is not None else "info"
        tally[(finding.rule, action)] = tally.get((finding.rule, action), 0) + 1
    return sorted(((rule, action, n) for (rule, action), n in tally.items()), key=lambda t: (-t[2], t[0], t[1]))


def render(format: str, findings: Sequence[Finding], summary: Summary, *, color: bool = False, quiet: bool = False,
           per_rule: bool = False, texts: Mapping[str, str] | None = None) -> str:
    """Render with the named format; an unknown name is a DraguardError listing the known ones.

    `color`, `quiet` (findings only), `per_rule` (counts per rule) and `texts` (file -> the text its findings'
    positions count in) go to the formats that take them."""
    module_name = FORMATS.get(format)
    if module_name is None:
        raise DraguardError(f"unknown format {format!r}; use one of {', '.join(sorted(FORMATS))}")
    module = importlib.import_module(module_name)
    accepted = inspect.signature(module.render).parameters
    options = {name: value for name, value in (("color", color), ("quiet", quiet), ("per_rule", per_rule),
                                               ("texts", texts)) if value and name in accepted}
    text: str = module.render(findings, summary, **options)
    return text
