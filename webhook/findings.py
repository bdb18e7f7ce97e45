"""Everything draguard reports is one `Finding`.

A rule fills in `path`, `message`, `hint` and maybe `fix`; the runner stamps `rule`, `action` and
`position`. Keeping that split is what lets one rule serve admission, `validate` and `lint` alike.
"""

from __future__ import annotations

import enum

from msgspec import Struct
from msgspec.structs import replace

from webhook.fieldpath import FieldPath


class Action(enum.Enum):
    """What the policy does with a finding, most severe first.

    deny: reject at admission, exit 1 in CI. warn: an admission warning, reported in CI.
    audit: an audit annotation, reported as information in CI. off: the rule does not run.
    """

    DENY = "deny"
    WARN = "warn"
    AUDIT = "audit"
    OFF = "off"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @classmethod
    def parse(cls, text: str) -> Action:
        try:
            return cls(text.strip().lower())
        except ValueError:
            allowed = ", ".join(a.value for a in cls)
            raise ValueError(f"unknown action {text!r}; use one of {allowed}") from None


_RANK = {Action.DENY: 3, Action.WARN: 2, Action.AUDIT: 1, Action.OFF: 0}


class Position(Struct, frozen=True):
    """1-based line and column in a file; `end_*` when the finding covers a known span."""

    file: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Edit(Struct, frozen=True):
    """Replace `text[start:end]` with `replacement`.

    A rule sees only the object, so in a rule's finding the offsets are into the string value at the
    finding's `path` (a CEL expression); `webhook.fix` maps them into the file's text.
    """

    start: int
    end: int
    replacement: str
    safe: bool = True


class Finding(Struct, frozen=True):
    path: FieldPath
    message: str
    hint: str = ""
    fix: Edit | None = None
    # Characters `start:end` of the string value at `path` the finding is about (a token inside a CEL
    # expression); `draguard lint` turns it into the exact line/column inside the YAML scalar.
    span: tuple[int, int] | None = None
    # Filled in by the runner, never by a rule:
    rule: str = ""
    action: Action | None = None
    position: Position | None = None

    def stamped(self, rule: str, action: Action, position: Position | None = None) -> Finding:
        return replace(self, rule=rule, action=action, position=position or self.position)
