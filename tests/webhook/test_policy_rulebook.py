"""The policy below the rules: it names no rule, and learns ids and default actions from the catalogue above."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.conftest import REPO
from webhook.errors import DraguardError
from webhook.findings import Action
from webhook.policy import Policy
from webhook.rules import BOOK, CATALOGUE, LIST_FORM_RULE
from webhook.rules.base import RuleContext
from webhook.rules.meta import SUPPRESSION_REASON_MISSING


class TwoRules:
    """A catalogue of two rules, as a test hands it down in place of the real one."""

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in ("alpha", "beta")

    def default_action(self, rule_id: str, policy: Policy) -> Action:
        return Action.AUDIT if rule_id == "alpha" else Action.OFF


@pytest.mark.parametrize("path", ["webhook/policy.py", "webhook/policy_store.py"])
def test_the_policy_modules_name_no_rule(path: str) -> None:
    text = (REPO / path).read_text(encoding="utf-8")
    assert [rule_id for rule_id in CATALOGUE if rule_id in text] == []


def test_rule_ids_are_checked_against_the_catalogue_passed_in() -> None:
    assert Policy.from_mapping({"rules": {"alpha": "deny"}}, "p", rules=TwoRules()).action("alpha") is Action.DENY
    with pytest.raises(DraguardError) as err:
        Policy.from_mapping({"rules": {"numa-node-range": "deny"}}, "p", rules=TwoRules())
    assert err.value.message == "policy p: rules: unknown rule id 'numa-node-range' (see `draguard rules`)"


def test_default_actions_come_from_the_catalogue_passed_in() -> None:
    policy = Policy.default(rules=TwoRules())
    assert (policy.action("alpha"), policy.action("beta")) == (Action.AUDIT, Action.OFF)
    assert (policy.knows("alpha"), policy.knows("numa-node-range")) == (True, False)
    assert policy.with_list_types(False).action("alpha") is Action.AUDIT  # a derived policy keeps its catalogue


def test_a_loaded_file_keeps_the_catalogue_it_was_checked_against(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("rules:\n  beta: warn\n", encoding="utf-8")
    policy = Policy.load(path, rules=TwoRules())
    assert (policy.action("alpha"), policy.action("beta")) == (Action.AUDIT, Action.WARN)
    with pytest.raises(DraguardError, match=r"^policy .*p.yaml: rules: unknown rule id 'beta' \(see"):
        Policy.load(path, rules=BOOK)


def test_without_a_catalogue_the_bound_one_answers() -> None:
    policy = Policy()
    assert policy.rule_book() is BOOK
    assert {r: policy.action(r) for r in CATALOGUE} == {
        r: Policy.default(rules=BOOK).action(r) for r in CATALOGUE}


@pytest.mark.parametrize(("list_form", "action"), [("allow", Action.OFF), ("warn", Action.WARN),
                                                   ("deny", Action.DENY)])
def test_the_list_form_rule_follows_the_option_unless_named(list_form: str, action: Action) -> None:
    assert Policy.from_mapping({"numaNode": {"listForm": list_form}}).action(LIST_FORM_RULE) is action
    named = Policy.from_mapping({"numaNode": {"listForm": list_form}, "rules": {LIST_FORM_RULE: "audit"}})
    assert named.action(LIST_FORM_RULE) is Action.AUDIT


def test_an_id_no_rule_has_warns() -> None:
    assert BOOK.default_action("not-a-rule", Policy()) is Action.WARN
    assert "not-a-rule" not in BOOK and "numa-node-range" in BOOK


def test_suppressions_are_checked_against_the_policy_catalogue() -> None:
    obj = slice_with(annotations={"draguard.io/ignore": "alpha, numa-node-range: vendor quirk"})
    ctx = RuleContext(Policy.default(rules=TwoRules()))
    assert [f.message for f in SUPPRESSION_REASON_MISSING.check(obj, ctx)] == [
        "draguard.io/ignore names unknown rule numa-node-range"]
    assert list(SUPPRESSION_REASON_MISSING.check(obj, RuleContext(Policy.default()))) != []  # alpha is unknown
