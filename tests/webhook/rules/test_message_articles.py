"""draguard's own messages put `an` before a vowel: `an ints value`, `an empty value`, `an int and a bool value`."""

from __future__ import annotations

import pytest

from tests.webhook.rules.yaml_slices import ATTRS, attribute_yaml, run_yaml
from webhook.words import with_article


def findings(rule: str, attribute: str) -> list[tuple[str, str, str]]:
    return [(action, path, message) for found, action, path, message in run_yaml(attribute_yaml(attribute))
            if found == rule]


@pytest.mark.parametrize(("attribute", "expected"), [
    ("dra.net/numaNode: {ints: [0, 1]}", "NUMA alias dra.net/numaNode is an ints value, not an int"),
    ("dra.net/numaNode: {}", "NUMA alias dra.net/numaNode is an empty value, not an int"),
    ("dra.net/numaNode: {string: '0'}", "NUMA alias dra.net/numaNode is a string value, not an int"),
])
def test_numa_alias_type(attribute: str, expected: str) -> None:
    assert findings("numa-node-alias-type", attribute) == [("warn", f"{ATTRS}[dra.net/numaNode]", expected)]


@pytest.mark.parametrize(("attribute", "expected"), [
    ("resource.kubernetes.io/pcieRoot: {int: 0}", "is an int value"),
    ("resource.kubernetes.io/pcieRoot: {int: 0, bool: true}", "is an int and a bool value"),
    ("resource.kubernetes.io/pcieRoot: {bool: true, ints: [0]}", "is a bool and an ints value"),
])
def test_pcie_root_type(attribute: str, expected: str) -> None:
    assert findings("pcie-root-type", attribute) == [
        ("deny", f"{ATTRS}[resource.kubernetes.io/pcieRoot]",
         f"resource.kubernetes.io/pcieRoot {expected}; it must be string or strings")]


def test_numa_node_type_names_each_member_with_its_article() -> None:
    assert findings("numa-node-type", "resource.kubernetes.io/numaNode: {version: 1.0.0, bools: [true]}") == [
        ("deny", f"{ATTRS}[resource.kubernetes.io/numaNode]",
         "resource.kubernetes.io/numaNode is a version and a bools value; it must be int or ints")]


@pytest.mark.parametrize(("word", "expected"), [
    ("int", "an int"), ("ints", "an ints"), ("empty", "an empty"), ("object", "an object"), ("array", "an array"),
    ("bool", "a bool"), ("string", "a string"), ("versions", "a versions"), ("Ingress", "an Ingress"), ("", "a "),
])
def test_with_article(word: str, expected: str) -> None:
    assert with_article(word) == expected
