"""apimachinery's validation tables, carried over as data (tests/webhook/rules/data), run against draguard's
mirrors: every upstream good value passes, every bad value fails with upstream's exact texts, per release
wording; and the field.Error forms render byte for byte as upstream's TestErrorFormatting expects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from webhook.fieldpath import FieldPath
from webhook.rules.k8s import errors as k8s_errors
from webhook.rules.k8s import names as k8s_names
from webhook.rules.k8s.errors import OMIT, GoStruct

DATA = Path(__file__).parent / "data"
NAMES = YAML(typ="safe", pure=True).load((DATA / "apimachinery_names.yaml").read_text(encoding="utf-8"))
FIELD_ERRORS = YAML(typ="safe", pure=True).load((DATA / "field_errors.yaml").read_text(encoding="utf-8"))
DIALECTS = {"1.35+": "content", "1.34": "legacy"}


def _value(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    text: str = spec.get("prefix", "") + spec["repeat"] * spec["times"] + spec.get("suffix", "")
    return text


def _cases() -> list[Any]:
    out = []
    for name, table in NAMES.items():
        for i, case in enumerate(table["cases"]):
            errors = case["errors"]
            per_dialect = {DIALECTS[k]: v for k, v in errors.items()} if isinstance(errors, dict) else \
                {"content": errors, "legacy": errors}
            for dialect, expected in per_dialect.items():
                out.append(pytest.param(table["function"], _value(case["value"]), case["valid"], expected, dialect,
                                        id=f"{name}-{i}-{dialect}"))
    return out


@pytest.mark.parametrize(("function", "value", "valid", "expected", "dialect"), _cases())
def test_apimachinery_name_table(function: str, value: str, valid: bool, expected: list[str], dialect: str) -> None:
    with k8s_names.messages(dialect):
        found = getattr(k8s_names, function)(value)
    assert found == expected
    assert (not found) is valid  # upstream's own verdict for this input


def test_the_tables_cover_every_upstream_function_and_both_wordings() -> None:
    assert set(NAMES) == {"IsDNS1123Label", "IsDNS1123Subdomain", "IsQualifiedName", "IsValidLabelValue",
                          "IsCIdentifier"}
    assert any(isinstance(c["errors"], dict) for t in NAMES.values() for c in t["cases"])


PATH = FieldPath.root("path.to.field")


def _error(case: dict[str, Any]) -> str:
    kind = case["type"]
    value = OMIT if case.get("omit") else GoStruct(case["struct"]) if "struct" in case else case.get("value")
    if kind == "required":
        finding = k8s_errors.required(PATH, case["detail"])
    elif kind == "forbidden":
        finding = k8s_errors.forbidden(PATH, case["detail"])
    elif kind == "too_long":
        finding = k8s_errors.too_long(PATH, case["limit"])
    elif kind == "too_many":
        finding = k8s_errors.too_many(PATH, case["actual"], case["limit"])
    elif kind == "invalid":
        finding = k8s_errors.invalid(PATH, value, case["detail"])
    elif kind == "not_found":
        finding = k8s_errors.not_found(PATH, value)
    elif kind == "duplicate":
        finding = k8s_errors.duplicate(PATH, value)
    else:
        finding = k8s_errors.not_supported(PATH, value, case["valid"])
    return f"{finding.path}: {finding.message}"


@pytest.mark.parametrize("case", FIELD_ERRORS, ids=[c["name"] for c in FIELD_ERRORS])
def test_field_error_forms(case: dict[str, Any]) -> None:
    assert _error(case) == case["expect"]


QUANTITIES = YAML(typ="safe", pure=True).load((DATA / "quantities.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", QUANTITIES, ids=[str(c["in"]) for c in QUANTITIES])
@pytest.mark.parametrize("sign", ["", "-"])
def test_quantity_canonical_form(case: dict[str, str], sign: str) -> None:
    from celext.quantity import parse_quantity
    from webhook.rules.k8s.capacity import canonical

    expected = case["expect"] if not sign or case["expect"] == "0" else sign + case["expect"]
    assert canonical(parse_quantity(sign + str(case["in"]))) == expected
