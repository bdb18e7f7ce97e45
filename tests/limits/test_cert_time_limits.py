"""`certs generate`'s time limits at the instant before, at and after each edge, through `plan_generate`
(the CLI's decision, with the clock given): when the serving certificate is renewed (a third of its lifetime
left, cert-manager's default renewBefore of 1/3), when it has expired (notAfter is the first invalid instant,
as Go's x509 treats it), and when the CA is not yet or no longer usable."""

from __future__ import annotations

import datetime as dt

import pytest

from certs import CertsError
from certs.issue import Names, check_valid_now, issue_ca, plan_generate, service_names
from certs.material import CA_CERT, CA_KEY, TLS_CERT, TLS_KEY

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
BACKDATE = dt.timedelta(minutes=5)
NAMES = service_names("svc", "ns")
SECOND = dt.timedelta(seconds=1)


def issued(days: int = 90, names: Names = NAMES) -> dict[str, bytes]:
    plan = plan_generate({}, "dir", names, leaf_days=days, now=T0)
    return {k: v for k, v in plan.changes.items() if v is not None}


def reason_at(material: dict[str, bytes], now: dt.datetime, names: Names = NAMES) -> str:
    return plan_generate(material, "dir", names, now=now).reason


def test_renewal_starts_when_exactly_a_third_of_the_lifetime_is_left() -> None:
    material = issued(90)
    lifetime = dt.timedelta(days=90) + BACKDATE
    not_after = T0 + dt.timedelta(days=90)
    third = not_after - lifetime / 3
    assert reason_at(material, third - SECOND) == "the serving certificate is valid and current"
    assert reason_at(material, third) == "less than a third of its lifetime is left (expires 2026-04-01)"
    assert reason_at(material, not_after - SECOND) == "less than a third of its lifetime is left (expires 2026-04-01)"
    assert reason_at(material, not_after) == "it expired on 2026-04-01"


def test_a_serving_certificate_from_the_future_is_reissued() -> None:
    ca_only = {k: v for k, v in plan_generate({}, "dir", NAMES, now=T0 - dt.timedelta(days=1)).changes.items()
               if k in (CA_CERT, CA_KEY) and v is not None}  # a CA a day older than the leaf
    leaf = plan_generate(ca_only, "dir", NAMES, now=T0).changes
    material = {**ca_only, **{k: v for k, v in leaf.items() if v is not None}}
    not_before = T0 - BACKDATE
    assert reason_at(material, not_before) == "the serving certificate is valid and current"
    assert reason_at(material, not_before - SECOND) == "it is not valid before 2025-12-31 23:55:00 UTC"


def test_a_missing_half_of_the_pair_means_no_serving_certificate() -> None:
    material = issued(90)
    for missing in (TLS_CERT, TLS_KEY):
        partial = {k: v for k, v in material.items() if k != missing}
        assert reason_at(partial, T0) == "no serving certificate yet"


def test_the_name_change_lists_every_added_and_dropped_name() -> None:
    material = issued(90, service_names("svc", "ns", ["a.example.com", "b.example.com"]))
    now = T0 + dt.timedelta(days=1)
    assert reason_at(material, now, service_names("svc", "ns", ["c.example.com", "d.example.com"])) == (
        "the names change (adds c.example.com, d.example.com; drops a.example.com, b.example.com)")


def test_a_new_ca_is_the_reason_and_the_plan_carries_both_expiries() -> None:
    plan = plan_generate({}, "dir", NAMES, leaf_days=30, now=T0)
    assert (plan.reason, plan.ca_created, plan.leaf_issued) == ("a new CA was created", True, True)
    assert (plan.ca_not_after, plan.not_after) == (T0 + dt.timedelta(days=3650), T0 + dt.timedelta(days=30))
    kept = plan_generate(issued(30), "dir", NAMES, now=T0)
    assert (kept.reason, kept.changes, kept.names) == ("the serving certificate is valid and current", {}, NAMES)
    assert (kept.ca_not_after, kept.not_after) == (T0 + dt.timedelta(days=3650), T0 + dt.timedelta(days=30))


def test_an_unknown_key_type_is_refused_before_anything_is_issued() -> None:
    with pytest.raises(CertsError, match=r"^unknown key type 'dsa': use one of ecdsa, rsa$"):
        plan_generate({}, "dir", NAMES, key_type="dsa", now=T0)  # type: ignore[arg-type]


def test_ca_validity_edges() -> None:
    ca = issue_ca(years=1, now=T0).cert
    not_before, not_after = T0 - BACKDATE, T0 + dt.timedelta(days=365)
    check_valid_now(ca, "dir/ca.crt", not_before)
    check_valid_now(ca, "dir/ca.crt", not_after - SECOND)
    with pytest.raises(CertsError, match=r"is not valid before 2025-12-31 23:55:00 UTC \(now 2025-12-31 23:54:59 UTC\)"
                                         r": is this machine's clock behind\?$"):
        check_valid_now(ca, "dir/ca.crt", not_before - SECOND)
    with pytest.raises(CertsError, match=r"^dir/ca.crt: 'draguard-webhook-ca' \(serial [0-9a-f]+\) expired on "
                                         r"2027-01-01 00:00:00 UTC$"):
        check_valid_now(ca, "dir/ca.crt", not_after)
    with pytest.raises(CertsError, match=r" expired on 2027-01-01 00:00:00 UTC; rotate it$"):
        check_valid_now(ca, "dir/ca.crt", not_after, expired_hint="rotate it")


def test_a_ca_key_without_its_certificate_is_refused() -> None:
    material = issued(90)
    del material[CA_CERT]
    message = r"^dir/ca.key exists but ca.crt does not \(remove ca.key to start a new CA\)$"
    with pytest.raises(CertsError, match=message):
        plan_generate(material, "dir", NAMES, now=T0)


def test_a_leaf_in_place_of_the_ca_is_refused() -> None:
    material = issued(90)
    material[CA_CERT], material[CA_KEY] = material[TLS_CERT], material[TLS_KEY]
    with pytest.raises(CertsError, match=r"^dir/ca.crt: 'svc.ns.svc' \(serial [0-9a-f]+\) is not a CA certificate "
                                         r"\(basicConstraints\)$"):
        plan_generate(material, "dir", NAMES, now=T0)
