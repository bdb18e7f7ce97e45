"""Rules about draguard's own annotations. draguard's own.

    passes: draguard.io/ignore: "numa-node-order: the vendor firmware lists nodes by distance"
    fails:  draguard.io/ignore: "numa-node-order"        (no reason: nothing is suppressed)
    fails:  draguard.io/ignore: 5                        (not a string: nothing is suppressed)
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook import suppress
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding
from webhook.manifests.problems import type_name
from webhook.rules.base import DRA_KINDS, Rule, RuleContext
from webhook.rules.devices import printable
from webhook.wire import Obj

_PATH = FieldPath.root("metadata", "annotations").key(suppress.ANNOTATION)


def _reason_missing(obj: Obj, ctx: RuleContext) -> Iterator[Finding]:
    text = suppress.value_of(obj)
    if text is None:
        return
    if not isinstance(text, str):  # the API server refuses the object; a review or manifest may still carry it
        yield Finding(
            _PATH,
            f"{suppress.ANNOTATION} is a {type_name(text)}, not a string, so it suppresses nothing",
            hint='write "<rule>[,<rule>]: <reason>" as a quoted string',
        )
        return
    named, reason = suppress.split(text)
    ids = [printable(r) for r in named]
    if not reason:
        yield Finding(
            _PATH,
            f"{suppress.ANNOTATION} names {', '.join(ids) or 'no rule'} without a reason, so it suppresses nothing",
            hint=f'write "<rule>[,<rule>]: <reason>", e.g. "{ids[0] if ids else "numa-node-order"}: why this is fine"',
        )
        return
    unknown = [r for r in ids if not ctx.policy.knows(r)]  # the catalogue, as bound to the policy
    if unknown:
        yield Finding(
            _PATH,
            f"{suppress.ANNOTATION} names unknown rule {', '.join(unknown)}",
            hint="use rule ids from `draguard rules` (or the README rule catalogue)",
        )


SUPPRESSION_REASON_MISSING = Rule(
    "suppression-reason-missing",
    kinds=DRA_KINDS,
    default=Action.WARN,
    summary=f"a `{suppress.ANNOTATION}` annotation names known rules and gives a reason",
    remediation=f'write `{suppress.ANNOTATION}: "<rule>[,<rule>]: <reason>"`; without a reason nothing is suppressed',
    check=_reason_missing,
)

RULES = (SUPPRESSION_REASON_MISSING,)
