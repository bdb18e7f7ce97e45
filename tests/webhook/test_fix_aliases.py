"""`lint --fix` and YAML aliases: one scalar that several selectors read (an aliased `cel:` mapping) is rewritten
once and reported once; an anchored selector scalar, whose alias may sit anywhere, is left as it is and named."""

from __future__ import annotations

from pathlib import Path

from tests.webhook.fixprops import check_fix, lint

HEAD = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n"
N = 'device.attributes["resource.kubernetes.io"].numaNode'


def test_an_aliased_selector_is_fixed_once_and_not_reported_as_unfixed(tmp_path: Path) -> None:
    """Both selectors are the one scalar: it was fixed for the first and then named `not fixed` for the second."""
    path = tmp_path / "class.yaml"
    path.write_text(HEAD + f"  - cel: &c\n      expression: {N} == 4\n  - cel: *c\n", encoding="utf-8")
    run = lint("--fix", str(path))
    assert run.err == f"draguard: fixed {path}:7:19: {N} == 4 → {N}.includes(4)\n"
    assert path.read_text(encoding="utf-8") == HEAD + f"  - cel: &c\n      expression: {N}.includes(4)\n  - cel: *c\n"


def test_an_anchored_selector_scalar_is_left_alone_and_named(tmp_path: Path) -> None:
    path = tmp_path / "class.yaml"
    text = HEAD + f"  - cel:\n      expression: &e {N} == 4\nmetadata2: *e\n"
    path.write_text(text, encoding="utf-8")
    check_fix(path)
    assert path.read_text(encoding="utf-8") == text
    assert "spec.selectors[0].cel.expression: not fixed: its YAML spelling could not be mapped" in lint(
        "--diff", str(path)).err
