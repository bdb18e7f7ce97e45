"""What a rule is: an id, the kinds it reads, a default action, its documentation and a pure check.

A check is a generator of `Finding`s: object in, findings out, no I/O. The runner (`webhook/run.py`)
stamps rule id, action and file position, applies suppressions and ratchets updates; a rule never does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from msgspec import Struct, field

from webhook.findings import Action, Finding
from webhook.wire import Obj

if TYPE_CHECKING:
    from webhook.policy import Policy

Origin = Literal["kubernetes", "draguard"]
T = TypeVar("T")

RESOURCE_SLICE = "ResourceSlice"
RESOURCE_CLAIM = "ResourceClaim"
RESOURCE_CLAIM_TEMPLATE = "ResourceClaimTemplate"
DEVICE_CLASS = "DeviceClass"
DRA_KINDS = frozenset({RESOURCE_SLICE, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, DEVICE_CLASS})
# Not an API kind: what `draguard topology --check` reads, a ResourceSlice together with its node's sysfs. Rules of
# this kind are catalogue rules (listed, documented, their actions set by the policy), but the runner, which picks
# rules by the kind of the object under review, never selects them: only `webhook.topology.check` has a sysfs.
SLICE_ON_NODE = "ResourceSlice+sysfs"


class RuleContext(Struct, frozen=True, eq=False):
    """What a check may know besides the object: the policy, known slices, and the old object on UPDATE.

    `shared` is scratch space for one `run_rules` call, so several rules can share one walk of the
    object (the Kubernetes parity rules run upstream's validators once and split the result by rule).
    `dropped` holds the parity errors, tagged with their rule ids, about what the runner removed from the object
    before the rules saw it (list attributes the API server does not store: `k8s.gates.drop_list_attributes`).
    """

    policy: Policy
    slices: Sequence[Obj] = ()
    old: Obj | None = None
    shared: dict[str, Any] = field(default_factory=dict)  # (eq=False: contexts compare by identity)
    dropped: tuple[tuple[str, Finding], ...] = ()

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()` the first time `key` is asked for within this run, the cached value after."""
        if key not in self.shared:
            self.shared[key] = compute()
        value: T = self.shared[key]
        return value


Check = Callable[[Obj, RuleContext], Iterable[Finding]]


class Rule(Struct, frozen=True):
    """One catalogue entry. `summary` says what it checks, `remediation` how to fix what it finds."""

    id: str
    kinds: frozenset[str]
    default: Action
    summary: str
    remediation: str
    check: Check
    origin: Origin = "draguard"
    since: str = "1.34"  # the first supported Kubernetes release the rule applies to
    gates: tuple[str, ...] = ()  # feature gates that must be on for the fields it checks to reach the server

    def __post_init__(self) -> None:
        if not self.id or self.id != self.id.lower() or " " in self.id or "_" in self.id:
            raise ValueError(f"rule id {self.id!r} is not kebab-case")
        if self.default is Action.OFF and self.origin == "kubernetes":
            raise ValueError(f"rule {self.id}: a Kubernetes parity rule cannot be off by default")
