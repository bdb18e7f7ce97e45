"""The pipeline behind `draguard explain`: claims, slices and classes from files -> one allocation answer
per claim and node (celext.alloc.explain), each claim on its own against an otherwise empty cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec import Struct, field

from webhook.errors import DraguardError
from webhook.manifests.shapes import read_strict
from webhook.wire import name_of

if TYPE_CHECKING:
    from celext.alloc.constraints import Semantics
    from celext.alloc.explain import ClaimResult

CLAIM_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})


class Explained(Struct):
    results: list[ClaimResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the inputs, for stderr


def explain_paths(claim: str, slices: Sequence[str], classes: Sequence[str], *, semantics: Semantics,
                  node: str | None = None, max_steps: int | None = None, stdin_text: str | None = None) -> Explained:
    """Explain every claim in `claim`. DeviceClasses come from beside the claims, beside the slices and from
    `classes` (later sources win); Node objects among the slices give node labels. `stdin_text` is what
    '-' reads in any of the paths. No claim or no slice is a DraguardError."""
    from celext.alloc.explain import DEFAULT_MAX_STEPS, celext_matcher, explain
    from celext.alloc.pools import Node, nodes_of

    given = read_strict([claim], CLAIM_KINDS | {"DeviceClass"}, stdin_text=stdin_text)
    claims = [o for o in given if o.get("kind") in CLAIM_KINDS]
    if not claims:
        raise DraguardError(f"no ResourceClaim or ResourceClaimTemplate in {claim}")
    inventory = read_strict(slices, frozenset({"ResourceSlice", "Node", "DeviceClass"}), stdin_text=stdin_text)
    found = [o for o in inventory if o.get("kind") == "ResourceSlice"]
    if not found:
        raise DraguardError(f"no ResourceSlice in {', '.join(slices)}")
    extra = read_strict(classes, frozenset({"DeviceClass"}), stdin_text=stdin_text)
    if classes and not extra:  # a --classes that names no class is a mistake, as --slices without slices is
        raise DraguardError(f"no DeviceClass in {', '.join(classes)}")
    by_name = {name_of(o): o for o in [*given, *inventory, *extra] if o.get("kind") == "DeviceClass"}
    nodes = nodes_of(found, [o for o in inventory if o.get("kind") == "Node"])
    explained = Explained()
    if node is not None:
        known = [n for n in nodes if n.name == node]
        if not known:  # still explained: slices for all nodes apply to any node
            explained.notes.append(f"no slice or Node object names node {node!r} (known: "
                                   f"{', '.join(n.name for n in nodes if n.name) or 'none'}); it sees only slices "
                                   "for all nodes")
        nodes = known or [Node(node, {})]
    matcher = celext_matcher()  # one per run: each device is converted once for all claims
    explained.results = [explain(c, by_name, found, nodes, semantics=semantics, matcher=matcher,
                                 max_steps=max_steps or DEFAULT_MAX_STEPS) for c in claims]
    return explained

