"""The overload table: one record per upstream overload id, each with a cost rule and a reference engine."""

from __future__ import annotations

from celext.cost.rules import RULES
from celext.env import FUNCTIONS as REFERENCE_FUNCTIONS
from celext.env import libraries
from celext.overloads import BY_ID, FUNCTIONS, OVERLOADS


def test_every_overload_names_a_cost_rule_the_estimator_has() -> None:
    assert {o.cost for o in OVERLOADS} <= set(RULES)


def test_every_reference_names_an_implementation_of_the_reference_engine() -> None:
    library_ids = {o.id for lib in libraries() for o in lib.overloads}
    for o in OVERLOADS:
        if o.reference is None:
            continue
        kind, _, name = o.reference.partition(":")
        assert kind in ("lib", "celpy"), o.id
        if kind == "lib":
            assert name in library_ids, o.id


def test_upstream_ids_and_signatures() -> None:
    samples = {
        "dra_includes_dyn_dyn": ("includes", True, "dyn, dyn", "bool"),
        "quantity_sign": ("sign", False, "kubernetes.Quantity", "int"),
        "string_to_semver": ("semver", False, "string", "kubernetes.Semver"),
        "list_sets_contains_list": ("sets.contains", False, "list(T), list(T)", "bool"),
        "less_int64_double": ("_<_", False, "int, double", "bool"),
        "index_map": ("_[_]", False, "map(A, B), A", "B"),
        "optional_orValue_value": ("orValue", True, "optional_type(V), V", "V"),
        "list_string_is_sorted_bool": ("isSorted", True, "list(string)", "bool"),
    }
    for overload_id, (name, member, args, result) in samples.items():
        o = BY_ID[overload_id]
        assert (o.function, o.member, ", ".join(map(str, o.args)), str(o.result)) == (name, member, args, result)
        assert o.template is None


def test_every_function_the_reference_engine_binds_is_declared() -> None:
    # cel-python's own helpers and the operators go by other names; every library function is in the table
    declared = set(FUNCTIONS)
    missing = {name for lib in libraries() for o in lib.overloads for name in [o.name]} - declared
    assert missing == set()
    assert "includes" in REFERENCE_FUNCTIONS
