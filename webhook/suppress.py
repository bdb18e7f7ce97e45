"""The per-object suppression annotation, read in one place.

    metadata.annotations["draguard.io/ignore"]: "numa-node-order,numa-node-alias-mismatch: vendor quirk, see #12"

The rule ids before the first colon are suppressed on that object, but only when a reason follows the colon:
a suppression without a reason, or whose value is not a string, suppresses nothing (rule
`suppression-reason-missing` says so). The runner
(`webhook/run.py`) applies `suppressed()`; the rule in `webhook/rules/meta.py` reports misuse with `split()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ANNOTATION = "draguard.io/ignore"


def value_of(obj: Mapping[str, Any]) -> object:
    """The annotation's value as the object carries it (any JSON type), or None when it has none."""
    meta = obj.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, Mapping) else None
    return notes.get(ANNOTATION) if isinstance(notes, Mapping) else None


def text_of(obj: Mapping[str, Any]) -> str | None:
    """The annotation's value, or None when the object has none (or a non-string one, which suppresses nothing)."""
    text = value_of(obj)
    return text if isinstance(text, str) else None


def split(text: str) -> tuple[list[str], str]:
    """`"a, b: reason"` -> (["a", "b"], "reason"); without a colon the reason is empty."""
    head, _, reason = text.partition(":")
    return [r.strip() for r in head.split(",") if r.strip()], reason.strip()


def suppressed(obj: Mapping[str, Any]) -> frozenset[str]:
    """The rule ids the object's annotation suppresses: those it names, when it gives a reason."""
    text = text_of(obj)
    if text is None:
        return frozenset()
    rules, reason = split(text)
    return frozenset(rules) if reason else frozenset()
