"""A node as the allocator sees it, and core/v1 NodeSelector matching (component-helpers nodeaffinity).

Used to decide which ResourceSlices (`nodeSelector`) and which devices (`perDeviceNodeSelection`)
a node can use. Terms are ORed; requirements inside a term are ANDed; a term without requirements
selects nothing; `matchFields` knows only `metadata.name` with `In`/`NotIn`, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def node_selector_matches(selector: Mapping[str, Any], node: Node) -> bool:
    terms = selector.get("nodeSelectorTerms")
    if not isinstance(terms, list):
        return False
    return any(_term(term, node) for term in terms if isinstance(term, Mapping))


def _term(term: Mapping[str, Any], node: Node) -> bool:
    expressions = _list(term.get("matchExpressions"))
    fields = _list(term.get("matchFields"))
    if not expressions and not fields:
        return False
    fields_of_node = {"metadata.name": node.name}
    return all(_requirement(r, node.labels) for r in expressions) and all(
        _requirement(r, fields_of_node, fields_only=True) for r in fields
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _requirement(req: Any, values: Mapping[str, str], *, fields_only: bool = False) -> bool:
    if not isinstance(req, Mapping):
        return False
    key, operator = req.get("key"), req.get("operator")
    wanted = [str(v) for v in req.get("values") or [] if isinstance(v, str | int)]
    if not isinstance(key, str) or (fields_only and (key not in values or operator not in ("In", "NotIn"))):
        return False
    present = key in values
    value = values.get(key, "")
    if operator == "In":
        return present and value in wanted
    if operator == "NotIn":
        return not present or value not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:
            mine, bound = int(value), int(wanted[0])
        except ValueError:
            return False
        return mine > bound if operator == "Gt" else mine < bound
    return False
