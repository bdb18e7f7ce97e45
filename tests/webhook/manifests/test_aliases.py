"""webhook.manifests.aliases: YAML alias expansion refused where go-yaml (sigs.k8s.io/yaml) refuses it.

The oracle is go-yaml's own procedure, written out below the plain way: decode the document step by step,
every alias expanded again, with its counters and its check at every step. The module under test must refuse
exactly the documents the oracle refuses, without expanding them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from webhook.manifests import aliases, libyaml, parse, roundtrip

DRAGUARD = Path(sys.executable).with_name("draguard")


def go_yaml_refuses(root: Any) -> str | None:
    """go-yaml's decoder (decode.go: unmarshal, alias, allowedAliasRatio), step by step, every alias expanded."""
    # go-yaml's parser marks alias nodes; in a composed graph an alias is a reference to a node reached before in
    # document order: mark those references first.
    alias_edges: set[tuple[int, int]] = set()  # (id(parent), child's index)
    seen, open_nodes = {id(root)}, {id(root)}

    def mark(node: Any) -> str | None:
        for index, child in enumerate(aliases._children(node)):
            if id(child) in open_nodes:
                return aliases.RECURSIVE
            if id(child) in seen:
                alias_edges.add((id(node), index))
                continue
            seen.add(id(child))
            open_nodes.add(id(child))
            found = mark(child)
            open_nodes.discard(id(child))
            if found:
                return found
        return None

    found = mark(root)
    if found:
        return found
    decodes, aliased, depth = 1, 0, 0  # the document node

    def step() -> bool:
        nonlocal decodes, aliased
        decodes += 1
        if depth:
            aliased += 1
        return aliased > 100 and decodes > 1000 and aliased / decodes > aliases.allowed_share(decodes)

    def unmarshal(node: Any) -> bool:
        nonlocal depth
        if step():
            return True
        for index, child in enumerate(aliases._children(node)):
            if (id(node), index) in alias_edges:
                if step():  # the alias node
                    return True
                depth += 1
                refused = unmarshal(child)
                depth -= 1
            else:
                refused = unmarshal(child)
            if refused:
                return True
        return False

    return aliases.EXCESSIVE if unmarshal(root) else None


def _compose(text: str) -> Any:
    return libyaml.yaml.compose(text, Loader=libyaml._loader())


def _refusal(root: Any) -> str | None:
    try:
        aliases.check(root)
    except aliases.Refused as refused:
        return refused.message
    return None


def chain(items: int, repeats: int) -> str:
    """A list holding an anchored list of `items` scalars, then `repeats` aliases of it."""
    return "[&a [" + ", ".join(["x"] * items) + "]" + ", *a" * repeats + "]"


def test_the_allowed_share_falls_from_99_to_10_percent_over_go_yamls_range() -> None:
    assert aliases.allowed_share(399_999) == aliases.allowed_share(400_000) == 0.99
    assert aliases.allowed_share(400_001) < 0.99
    assert aliases.allowed_share(2_200_000) == pytest.approx(0.545)
    assert aliases.allowed_share(3_999_999) > 0.10
    assert aliases.allowed_share(4_000_000) == aliases.allowed_share(4_000_001) == 0.10


@pytest.mark.parametrize(("aliased", "decodes", "refused"), [
    (101, 102, False),  # over 99 % of the steps, but at most 1,000 steps
    (999, 1000, False), (1000, 1001, True), (1001, 1002, True),  # 1,000 steps: limit - 1, limit, limit + 1
    (990, 1001, False), (991, 1001, True),  # 0.99 x 1001 = 990.99: the share at its boundary
    (1_000_000, 1_000_000 + 1, True), (900_000, 1_000_000, True), (800_000, 1_000_000, False),  # 83.8 % allowed
])
def test_go_yamls_test_at_its_limits(aliased: int, decodes: int, refused: bool) -> None:
    assert aliases.excessive(aliased, decodes) is refused


@pytest.mark.parametrize("items", [99, 999, 9_999])
def test_a_chain_is_refused_from_the_alias_go_yaml_refuses_it_at(items: int) -> None:
    # The first repeat count go-yaml refuses, from its rule on the counts a chain decodes in (document, outer list,
    # anchored list and its items, then per alias the alias and the items again): limit - 1, limit, limit + 1.
    def counts(repeats: int) -> tuple[int, int]:
        return 3 + items + repeats * (items + 2), repeats * (items + 1)

    limit = next(r for r in range(1, 100_000) if aliases.excessive(*reversed(counts(r))))
    for repeats, refused in ((limit - 1, False), (limit, True), (limit + 1, True)):
        root = _compose(chain(items, repeats))
        assert _refusal(root) == (aliases.EXCESSIVE if refused else None), repeats
        if items < 1_000:
            assert go_yaml_refuses(root) == _refusal(root)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Flow-style YAML whose collections repeat earlier anchors, now and then their own (a recursive anchor)."""
    anchors: list[str] = []

    def node(depth: int) -> str:
        choice = draw(st.integers(0, 3 if depth < 3 else 1))
        if choice == 0 or (choice == 1 and not anchors):
            return draw(st.sampled_from(["x", "1", "true", "''"]))
        if choice == 1:
            return "*" + draw(st.sampled_from(anchors))
        name = f"a{len(anchors)}" if draw(st.booleans()) else ""
        if name and draw(st.integers(0, 9)) == 0:
            anchors.append(name)  # usable inside its own value
        parts = [node(depth + 1) for _ in range(draw(st.integers(0, 8)))]
        body = "[" + ", ".join(parts) + "]" if choice == 2 else \
            "{" + ", ".join(f"k{i}: {p}" for i, p in enumerate(parts)) + "}"
        if name and name not in anchors:
            anchors.append(name)
        return f"&{name} {body}" if name else body

    return node(0)


@st.composite
def layers(draw: st.DrawFn) -> str:
    """Billion-laughs shapes: each layer a list of aliases of earlier layers (and scalars), of random widths."""
    rows = []
    for layer in range(draw(st.integers(1, 7))):  # items mostly aliases of the layer before: it grows
        items = draw(st.lists(st.just(layer - 1) | st.integers(-1, layer - 1), min_size=1, max_size=12))
        rows.append(f"l{layer}: &l{layer} [" + ", ".join("x" if i < 0 else f"*l{i}" for i in items) + "]")
    return "{" + ", ".join(rows) + "}"


@settings(max_examples=150, deadline=None)
@given(st.one_of(documents(), layers()))
def test_the_walk_refuses_what_go_yaml_refuses(text: str) -> None:
    try:
        root = _compose(text)
    except libyaml.yaml.YAMLError:
        return  # an alias before its anchor: not a document
    refusal = _refusal(root)
    event(f"refused: {refusal}")
    assert refusal == go_yaml_refuses(root)
    assert _refusal(roundtrip._yaml().compose(text)) == refusal  # ruamel's nodes count the same


BOMB = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
x0: &a [x, x, x, x, x, x, x, x, x, x]
x1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
x2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
x3: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
x4: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
x5: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
x6: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
x7: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
x8: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
spec:
  driver: d.example.com
  devices:
  - name: a
    attributes:
      foo: {strings: *i}
"""

ANCHORED = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: &gpu
      model: {string: A100}
      numaNode: {int: 0}
  - name: gpu-1
    attributes: *gpu
"""


@pytest.mark.parametrize("merge", [False, True], ids=["libyaml", "ruamel"])
def test_a_billion_laughs_is_refused_before_it_expands(merge: bool) -> None:
    text = BOMB.replace("metadata: {name: s}", "metadata: {<<: {name: s}}") if merge else BOMB  # `<<`: ruamel's way
    problems: list[Any] = []
    assert parse(text, "bomb.yaml", problems) == []
    assert [str(p) for p in problems] == ["bomb.yaml:7:5: invalid YAML: document contains excessive aliasing"]


def test_an_anchor_inside_its_own_value_is_refused() -> None:
    problems: list[Any] = []
    assert parse("a: &a [1, *a]\n", "loop.yaml", problems) == []
    assert [str(p) for p in problems] == ["loop.yaml:1:4: invalid YAML: anchor value contains itself"]


def test_ordinary_anchors_are_read_with_their_values() -> None:
    problems: list[Any] = []
    (doc,) = parse(ANCHORED, "s.yaml", problems)
    first, second = doc.obj["spec"]["devices"]
    assert problems == []
    assert first["attributes"] == second["attributes"] == {"model": {"string": "A100"}, "numaNode": {"int": 0}}


def test_the_cli_reports_a_bomb_as_an_input_problem(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(BOMB, encoding="utf-8")
    (tmp_path / "ok.yaml").write_text(ANCHORED, encoding="utf-8")
    for command in ("validate", "lint"):
        done = subprocess.run([str(DRAGUARD), command, "bomb.yaml", "ok.yaml"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 2, done.stderr
        assert "draguard: bomb.yaml:7:5: invalid YAML: document contains excessive aliasing" in done.stderr
        assert "Traceback" not in done.stderr
        assert "1 object checked" in done.stdout  # the other file is still checked
