"""Policy files: the format, defaults, and one clear line for every mistake."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import webhook.rules  # noqa: F401  (binds the catalogue a policy's rule ids are checked against, as the CLI does)
from webhook.errors import DraguardError
from webhook.findings import Action
from webhook.policy import DEFAULT_ALIASES, Policy


def test_default_policy_uses_rule_defaults() -> None:
    policy = Policy.default()
    assert policy.action("numa-node-range") is Action.DENY
    assert policy.action("numa-node-order") is Action.OFF  # style only: KEP-6072 gives the order no meaning
    assert policy.action("list-only-read") is Action.WARN
    assert policy.action("constraint-distinct-list") is Action.WARN
    assert policy.action("constraint-distinct-numa") is Action.AUDIT
    assert policy.action("numa-node-list-form") is Action.OFF
    assert policy.aliases == DEFAULT_ALIASES
    assert policy.list_types is True
    assert policy.ignore == ()


def test_full_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "rules:\n  numa-node-order: deny\n  k8s-unknown-field: off\n"
        "numaNode:\n  listForm: warn\n  aliases: [acme.io/numa]\n"
        "listTypes: disabled\nignore: ['vendor/*']\n",
        encoding="utf-8",
    )
    policy = Policy.load(path)
    assert policy.action("numa-node-order") is Action.DENY
    assert policy.action("k8s-unknown-field") is Action.OFF
    assert policy.action("numa-node-list-form") is Action.WARN
    assert policy.aliases == ("acme.io/numa",)
    assert policy.list_types is False
    assert policy.ignore == ("vendor/*",)
    assert policy.source == str(path)


def test_rules_entry_wins_over_list_form() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-list-form": "audit"}, "numaNode": {"listForm": "deny"}})
    assert policy.action("numa-node-list-form") is Action.AUDIT


def test_empty_file_is_the_default(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("", encoding="utf-8")
    assert Policy.load(path).action("numa-node-range") is Action.DENY


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "policy p: expected a mapping with keys rules, numaNode, listTypes, kubernetes, featureGates, ignore"),
        ({"rule": {}},
         "policy p: unknown key rule; known keys: rules, numaNode, listTypes, kubernetes, featureGates, ignore"),
        ({"rules": {"numa-range": "deny"}}, "policy p: rules: unknown rule id 'numa-range' (see `draguard rules`)"),
        ({"rules": {"numa-node-range": "block"}},
         "policy p: rules.numa-node-range: unknown action 'block'; use one of deny, warn, audit, off"),
        ({"rules": {"numa-node-range": True}},
         "policy p: rules.numa-node-range: expected deny, warn, audit or off, got True"),
        ({"rules": ["numa-node-range"]}, "policy p: rules: expected a mapping of rule id to deny, warn, audit or off"),
        ({"numaNode": {"listForm": "maybe"}}, "policy p: numaNode.listForm: expected allow, warn or deny, got 'maybe'"),
        ({"numaNode": {"alias": []}}, "policy p: unknown key numaNode.alias; known keys: listForm, aliases"),
        ({"numaNode": {"aliases": ["numaNode"]}},
         "policy p: numaNode.aliases: 'numaNode' is not a qualified name like dra.net/numaNode"),
        ({"numaNode": {"aliases": "dra.net/numaNode"}},
         "policy p: numaNode.aliases: expected a list of non-empty strings, got 'dra.net/numaNode'"),
        ({"numaNode": 3}, "policy p: numaNode: expected a mapping with keys listForm, aliases"),
        ({"listTypes": "on"}, "policy p: listTypes: expected enabled or disabled, got 'on'"),
        ({"ignore": "a"}, "policy p: ignore: expected a list of non-empty strings, got 'a'"),
    ],
)
def test_bad_policy_is_one_line_naming_the_key(data: object, message: str) -> None:
    with pytest.raises(DraguardError) as err:
        Policy.from_mapping(data, "p")
    assert err.value.message == message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DraguardError) as err:
        Policy.load(tmp_path / "nope.yaml")
    assert err.value.message == f"policy {tmp_path / 'nope.yaml'}: no such file"


def test_broken_yaml_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("rules: [\n", encoding="utf-8")
    with pytest.raises(DraguardError) as err:
        Policy.load(path)
    assert err.value.message == (
        f"policy {path}:2:1: invalid YAML: expected the node content, but found '<stream end>'")


def test_an_alias_bomb_is_one_placed_line_not_an_expansion(tmp_path: Path) -> None:
    layers = ['&l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    layers += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]  # 10^9 strings expanded
    path = tmp_path / "bomb.yaml"
    text = "ignore: [" + ", ".join(layers) + "]\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DraguardError) as err:
        Policy.load(path)
    where = text.index("&l3") + 1  # the list whose aliases tip the share (10 x 111 steps of 1,000 x ...)
    assert err.value.message == f"policy {path}:1:{where}: invalid YAML: document contains excessive aliasing"


def test_anchors_in_a_policy_are_read(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("ignore: &skip [vendor/**]\nnumaNode: {aliases: [dra.net/numaNode]}\nx-copy: *skip\n",
                    encoding="utf-8")
    with pytest.raises(DraguardError, match="unknown key x-copy"):  # read through, then judged by key
        Policy.load(path)
    path.write_text("ignore: &skip [vendor/**]\nnumaNode: {aliases: *skip}\n", encoding="utf-8")
    policy = Policy.load(path)
    assert policy.ignore == policy.aliases == ("vendor/**",)


def test_yaml_1_2_keeps_off_a_string(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("rules:\n  numa-node-order: off\n", encoding="utf-8")
    assert Policy.load(path).action("numa-node-order") is Action.OFF


def test_with_list_types_overrides() -> None:
    assert Policy.default().with_list_types(False).list_types is False


def test_duplicate_key_is_one_placed_line(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("listTypes: enabled\nlistTypes: disabled\n", encoding="utf-8")
    with pytest.raises(DraguardError) as err:
        Policy.load(path)
    assert err.value.message.startswith(f"policy {path}:2:1: invalid YAML: found duplicate key \"listTypes\"")
    assert "\n" not in err.value.message


def test_every_catalogue_rule_gets_its_default_action() -> None:
    from webhook.rules import CATALOGUE

    policy = Policy.default()
    assert {r: policy.action(r) for r in CATALOGUE} == {
        r.id: Action.OFF if r.id == "numa-node-list-form" else r.default for r in CATALOGUE.values()}
    assert policy.action("not-a-rule") is Action.WARN


def test_remembered_actions_belong_to_one_policy() -> None:
    strict = Policy.from_mapping({"numaNode": {"listForm": "deny"}}, "p.yaml")
    assert strict.action("numa-node-list-form") is Action.DENY
    relaxed = replace(strict, list_form="allow")
    assert relaxed.action("numa-node-list-form") is Action.OFF
    assert strict.action("numa-node-list-form") is Action.DENY
    assert strict.with_list_types(False).action("numa-node-range") is Action.DENY
    assert relaxed == replace(strict, list_form="allow")
