"""YAML alias expansion, limited as Kubernetes' YAML decoder limits it.

A YAML document can name a node (`&a`) and repeat it (`*a`); ten aliases of ten aliases of ... make a few
hundred bytes expand to billions of values ("billion laughs"; CVE-2019-11253 for the API server). Kubernetes
and kubectl read YAML through sigs.k8s.io/yaml, that is go-yaml, whose decoder counts its steps and refuses a
document once too large a share of them comes from alias expansion (`yaml: document contains excessive
aliasing`), and refuses an anchor whose value contains its own alias (`anchor 'a' value contains itself`).

draguard applies the same rule (go-yaml's `allowedAliasRatio` and the check in its `unmarshal`) before it
builds any value, on the node graph the composer made, where an alias is the anchored node itself reached
again. Each node's expanded size is counted once, so the check is linear in the text, not in the expansion:
a step inside an alias's expansion only raises the alias share, so checking after each whole alias finds
whatever go-yaml's step-by-step check finds.
"""

from __future__ import annotations

from typing import Any

_LOW, _HIGH = 400_000, 4_000_000  # decode steps over which go-yaml's allowed alias share falls from 99 % to 10 %
EXCESSIVE = "document contains excessive aliasing"
RECURSIVE = "anchor value contains itself"


class Refused(Exception):
    """A document go-yaml would not decode: `message` (its words) at the node that holds the offending alias
    (or anything with its `start_mark`: libyaml's mark of a refusal go-yaml shares, `webhook.manifests.libyaml`)."""

    def __init__(self, message: str, node: Any) -> None:
        super().__init__(message)
        self.message = message
        mark = getattr(node, "start_mark", None)
        self.line: int | None = mark.line + 1 if mark is not None else None
        self.column: int | None = mark.column + 1 if mark is not None else None


def allowed_share(decodes: int) -> float:
    """go-yaml's allowedAliasRatio: the share of decode steps that may come from alias expansion."""
    if decodes <= _LOW:
        return 0.99
    if decodes >= _HIGH:
        return 0.10
    return 0.99 - 0.89 * (decodes - _LOW) / (_HIGH - _LOW)


def excessive(aliased: int, decodes: int) -> bool:
    """go-yaml's test, made at every decode step."""
    return aliased > 100 and decodes > 1000 and aliased / decodes > allowed_share(decodes)


def _children(node: Any) -> list[Any]:
    """A composed node's children in document order (PyYAML's and ruamel's nodes alike): a scalar's value is
    its text, a sequence's its items, a mapping's its (key, value) pairs."""
    value = node.value
    if value.__class__ is not list:
        return []
    if value and value[0].__class__ is tuple:
        return [part for pair in value for part in pair]
    return value


def check(root: Any) -> None:
    """Raise Refused when go-yaml would refuse the document whose root node this is.

    go-yaml's steps: one per node decoded, keys included (and one for the document); an alias is a step of its
    own, then the anchored value is decoded again, every step of it an alias step."""
    sizes: dict[int, int] = {}  # id(node) -> the steps one more decoding of it takes (nodes walked to the end)
    walking: set[int] = {id(root)}  # nodes being walked: reaching one again is an anchor inside its own value
    decodes, aliased = 2, 0  # the document and the root
    frames: list[list[Any]] = [[root, iter(_children(root)), 1]]  # node, its children left, its steps so far
    while frames:
        frame = frames[-1]
        child = next(frame[1], None)
        if child is None:
            frames.pop()
            walking.discard(id(frame[0]))
            sizes[id(frame[0])] = frame[2]
            if frames:
                frames[-1][2] += frame[2]
            continue
        key = id(child)
        size = sizes.get(key)
        if size is None:  # first seen: the anchored node itself (or no anchor at all)
            if key in walking:
                raise Refused(RECURSIVE, frame[0])
            decodes += 1
            if child.value.__class__ is not list:  # a scalar (most nodes): done at once
                sizes[key] = 1
                frame[2] += 1
                continue
            walking.add(key)
            frames.append([child, iter(_children(child)), 1])
            continue
        decodes += 1 + size
        aliased += size
        frame[2] += 1 + size  # decoding the node that holds this alias again decodes the alias again
        if excessive(aliased, decodes):
            raise Refused(EXCESSIVE, frame[0])
