"""`draguard certs generate` at every name and lifetime limit: limit - 1 and the limit issue, limit + 1 is a
one-line error (exit 2) and writes nothing.

Upstream sources of the name limits (k8s.io/apimachinery/pkg/util/validation/validation.go):
DNS1123LabelMaxLength = 63 (namespaces, each label of a DNS name), DNS1035LabelMaxLength = 63 (Service names),
DNS1123SubdomainMaxLength = 253 (a whole DNS name; IsWildcardDNS1123Subdomain counts the leading "*." too).
The lifetimes are draguard's own (certs/issue.py: MAX_LEAF_DAYS, the CLI's --ca-years range).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cryptography import x509

from certs import CertsError
from certs.issue import MAX_LEAF_DAYS, issue_ca, issue_leaf, service_names
from certs.pem import load_certs
from webhook.cli import main

LABEL = 63
SUBDOMAIN = 253
SVC = ["--service", "draguard", "--namespace", "draguard-system"]


def name_of_length(length: int, *, prefix: str = "") -> str:
    """A DNS-1123 subdomain of exactly `length` characters made of 63-character labels (the last one shorter)."""
    body, left = [], length - len(prefix)
    while left > 0:
        take = min(LABEL, left if left <= LABEL else LABEL)
        if 0 < left - take - 1 < 1:  # never leave a trailing empty label
            take -= 1
        body.append("a" * take)
        left -= take + 1
    name = prefix + ".".join(body)
    assert len(name) == length
    return name


def generate(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["certs", "generate", "--dir", str(tmp_path), *argv])
    except SystemExit as usage:  # argparse's usage errors
        code = int(str(usage.code))
    out, err = capsys.readouterr()
    return code, out, err


def sans(tmp_path: Path) -> list[str]:
    cert = load_certs(tmp_path / "tls.crt")[0]
    return cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)


@pytest.mark.parametrize("length", [SUBDOMAIN - 1, SUBDOMAIN])
@pytest.mark.parametrize("prefix", ["", "*."])
def test_extra_dns_name_up_to_253_characters_is_in_the_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], length: int, prefix: str
) -> None:
    name = name_of_length(length, prefix=prefix)
    code, _out, err = generate(tmp_path, capsys, *SVC, "--dns", name)
    assert (code, err) == (0, "")
    assert sans(tmp_path)[-1] == name


@pytest.mark.parametrize("prefix", ["", "*."])
def test_extra_dns_name_of_254_characters_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], prefix: str
) -> None:
    name = name_of_length(SUBDOMAIN + 1, prefix=prefix)
    code, out, err = generate(tmp_path, capsys, *SVC, "--dns", name)
    assert (code, out) == (2, "")
    assert err == f"draguard: error: invalid DNS name {name!r}: must be a lower-case DNS-1123 subdomain (RFC 1123)\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("label", "ok"), [(LABEL - 1, True), (LABEL, True), (LABEL + 1, False)])
def test_each_label_of_an_extra_dns_name_is_at_most_63_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: int, ok: bool
) -> None:
    name = "b" * label + ".example.com"
    code, _out, err = generate(tmp_path, capsys, *SVC, "--dns", name)
    if ok:
        assert (code, err) == (0, "")
        assert sans(tmp_path)[-1] == name
    else:
        assert (code, err) == (2, f"draguard: error: invalid DNS name {name!r}: must be a lower-case DNS-1123 "
                                  "subdomain (RFC 1123)\n")


@pytest.mark.parametrize(("length", "ok"), [(LABEL - 1, True), (LABEL, True), (LABEL + 1, False)])
def test_service_name_is_a_dns1035_label_of_at_most_63(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], length: int, ok: bool
) -> None:
    service = "s" * length
    code, _out, err = generate(tmp_path, capsys, "--service", service, "--namespace", "ns")
    if ok:
        assert (code, err) == (0, "")
        assert sans(tmp_path)[:4] == [service, f"{service}.ns", f"{service}.ns.svc", f"{service}.ns.svc.cluster.local"]
    else:
        assert (code, err) == (2, f"draguard: error: invalid service name {service!r}: a Service name must be a "
                                  "DNS-1035 label (lower case alphanumeric characters or '-', starting with a letter, "
                                  "ending with an alphanumeric character, at most 63 characters)\n")


@pytest.mark.parametrize(("length", "ok"), [(LABEL - 1, True), (LABEL, True), (LABEL + 1, False)])
def test_namespace_is_a_dns1123_label_of_at_most_63(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], length: int, ok: bool
) -> None:
    namespace = "n" * length
    code, _out, err = generate(tmp_path, capsys, "--service", "svc", "--namespace", namespace)
    if ok:
        assert (code, err) == (0, "")
        assert sans(tmp_path)[2] == f"svc.{namespace}.svc"
    else:
        assert (code, err) == (2, f"draguard: error: invalid namespace {namespace!r}: a namespace must be a DNS-1123 "
                                  "label (lower case alphanumeric characters or '-', starting and ending with an "
                                  "alphanumeric character, at most 63 characters)\n")


@pytest.mark.parametrize(("service", "cn"), [("s" * 56, True), ("s" * 57, True), ("s" * 58, False)])
def test_subject_cn_only_while_the_host_fits_x509s_64_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], service: str, cn: bool
) -> None:
    """<svc>.ns.svc is 64 characters for a 57-character Service: a longer (valid) one issues without a CN."""
    code, _out, err = generate(tmp_path, capsys, "--service", service, "--namespace", "ns")
    assert (code, err) == (0, "")
    subject = load_certs(tmp_path / "tls.crt")[0].subject
    assert subject.rfc4514_string() == (f"CN={service}.ns.svc" if cn else "")


def _lifetime(tmp_path: Path, name: str) -> dt.timedelta:
    cert = load_certs(tmp_path / name)[0]
    return cert.not_valid_after_utc - cert.not_valid_before_utc


@pytest.mark.parametrize(("days", "ok"), [(0, False), (1, True), (2, True), (364, True), (365, True), (366, False)])
def test_leaf_days_range_from_1_to_365(tmp_path: Path, capsys: pytest.CaptureFixture[str], days: int, ok: bool) -> None:
    code, _out, err = generate(tmp_path, capsys, *SVC, "--leaf-days", str(days))
    if ok:
        assert (code, err) == (0, "")
        assert _lifetime(tmp_path, "tls.crt") == dt.timedelta(days=days, minutes=5)  # notBefore is 5 minutes back
    else:
        assert code == 2
        assert err.splitlines()[0] == (f"draguard certs generate: error: argument --leaf-days: {days} is out of range "
                                       "(1 to 365)")


@pytest.mark.parametrize(("years", "ok"), [(0, False), (1, True), (2, True), (99, True), (100, True), (101, False)])
def test_ca_years_range_from_1_to_100(tmp_path: Path, capsys: pytest.CaptureFixture[str], years: int, ok: bool) -> None:
    code, _out, err = generate(tmp_path, capsys, *SVC, "--ca-years", str(years), "--leaf-days", "1")
    if ok:
        assert (code, err) == (0, "")
        assert _lifetime(tmp_path, "ca.crt") == dt.timedelta(days=365 * years, minutes=5)
    else:
        assert code == 2
        assert err.splitlines()[0] == (f"draguard certs generate: error: argument --ca-years: {years} is out of range "
                                       "(1 to 100)")


# The library entry points hold the same limits for callers that do not go through the CLI.

@pytest.mark.parametrize("days", [0, MAX_LEAF_DAYS + 1])
def test_issue_leaf_refuses_a_lifetime_outside_1_to_365(days: int) -> None:
    ca = issue_ca()
    with pytest.raises(CertsError, match=rf"^the serving certificate lifetime must be 1 to 365 days, not {days}$"):
        issue_leaf(ca, service_names("svc", "ns"), days=days)


def test_issue_leaf_at_365_days_and_issue_ca_at_1_year() -> None:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    ca = issue_ca(years=1, now=now)
    leaf = issue_leaf(ca, service_names("svc", "ns"), days=MAX_LEAF_DAYS, now=now)
    assert leaf.cert.not_valid_after_utc == now + dt.timedelta(days=365)
    with pytest.raises(CertsError, match=r"^the CA lifetime must be at least 1 year, not 0$"):
        issue_ca(years=0)


def test_service_names_library_call_refuses_a_254_character_name() -> None:
    name = name_of_length(SUBDOMAIN + 1)
    message = rf"^invalid DNS name '{name}': must be a lower-case DNS-1123 subdomain \(RFC 1123\)$"
    with pytest.raises(CertsError, match=message):
        service_names("svc", "ns", [name])
