"""The doctor: explain, before the API server does, why it would refuse the webhook's certificate.

Each check answers one question and, when the answer is no, says it in the words the API server would log
(Go's crypto/x509 texts such as "x509: certificate signed by unknown authority") plus what to do:

- key:    does tls.key belong to tls.crt?
- chain:  does tls.crt verify against the bundle (cryptography's X.509 path validation, the WebPKI profile)?
- name:   does it cover the DNS name the API server dials, `<svc>.<ns>.svc`?
- bundle: does the caBundle of every webhook in the live configuration (or the bundle file) hold the issuing CA,
          and does each webhook's Service name appear in the certificate?
- expiry: days left for the serving certificate and its CA (a warning inside `warn_days`).
- clock:  is this machine's clock, and the API server's (its Date header), inside the validity window?
"""

from __future__ import annotations

import datetime as dt
import email.utils
import ipaddress
from collections.abc import Sequence
from typing import Literal, TypeAlias

from cryptography import x509
from cryptography.x509 import DNSName, IPAddress
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError
from msgspec import Struct

from certs.inject import WebhookEntry
from certs.issue import BACKDATE, covered_names, signed_by
from certs.pem import PrivateKey, describe, key_matches

Level: TypeAlias = Literal["ok", "warn", "fail"]
WARN_DAYS = 30
SKEW_WARN = dt.timedelta(seconds=30)


class Result(Struct, frozen=True):
    check: str
    level: Level
    message: str


class Subject(Struct, frozen=True):
    """What to examine; `*_source` name the inputs in messages."""

    leaf: x509.Certificate
    leaf_source: str
    key: PrivateKey | None = None
    key_source: str = "tls.key"
    bundle: tuple[x509.Certificate, ...] = ()
    bundle_source: str = "ca.crt"
    host: str | None = None  # the DNS name (or IP) the API server dials
    webhooks: tuple[WebhookEntry, ...] | None = None  # from the live configuration
    webhook_source: str = ""
    server_date: dt.datetime | None = None  # the API server's clock


def server_date(headers: dict[str, str]) -> dt.datetime | None:
    value = next((v for k, v in headers.items() if k.lower() == "date"), None)
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).astimezone(dt.UTC)
    except (TypeError, ValueError):
        return None


def _day(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def _names(cert: x509.Certificate) -> list[str]:
    """Every SAN as text, DNS names first, in certificate order."""
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [*san.get_values_for_type(x509.DNSName), *(str(ip) for ip in san.get_values_for_type(x509.IPAddress))]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def mismatch(cert: x509.Certificate, host: str) -> str:
    """Go's x509.HostnameError text: the DNS SANs for a name, the IP SANs for an address, in certificate order."""
    names = [n for n in _names(cert) if _is_ip(n) == _is_ip(host)]
    if not names:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {', '.join(names)}, not {host}"


def covers(cert: x509.Certificate, host: str) -> bool:
    """RFC 6125 matching as Go does it: exact, or a wildcard standing for exactly the left-most label."""
    dns, ips = covered_names(cert)
    try:
        return str(ipaddress.ip_address(host)) in ips
    except ValueError:
        pass
    host = host.lower().rstrip(".")
    if host in dns:
        return True
    first, _, rest = host.partition(".")
    return bool(first and rest) and f"*.{rest}" in dns


def _verify(leaf: x509.Certificate, bundle: Sequence[x509.Certificate], host: str, now: dt.datetime) -> str | None:
    try:
        subject: DNSName | IPAddress = IPAddress(ipaddress.ip_address(host))
    except ValueError:
        subject = DNSName(host)
    try:
        PolicyBuilder().store(Store(list(bundle))).time(now).build_server_verifier(subject).verify(leaf, [])
    except VerificationError as err:
        return str(err)
    return None


def _issuers(leaf: x509.Certificate, bundle: Sequence[x509.Certificate]) -> list[x509.Certificate]:
    return [ca for ca in bundle if signed_by(leaf, ca)]


def doctor(subject: Subject, *, now: dt.datetime | None = None, warn_days: int = WARN_DAYS) -> list[Result]:
    now = now or dt.datetime.now(dt.UTC)
    leaf, results = subject.leaf, []
    if subject.key is not None:
        if key_matches(leaf, subject.key):
            results.append(Result("key", "ok", f"{subject.key_source} matches {subject.leaf_source}"))
        else:
            results.append(Result("key", "fail", f"{subject.key_source} does not belong to {subject.leaf_source}: "
                                                 "the server cannot complete a handshake (tls: private key does not "
                                                 "match public key); re-issue with `draguard certs generate`"))
    results += _chain_and_name(subject, now)
    if subject.webhooks is not None:
        results += _webhooks(subject)
    results += _expiry(subject, now, warn_days)
    results += _clock(subject, now)
    return results


def _chain_and_name(subject: Subject, now: dt.datetime) -> list[Result]:
    leaf, results = subject.leaf, []
    has_san = bool(_names(leaf))
    if not has_san:
        results.append(Result("name", "fail", f"{subject.leaf_source} has no subjectAltName: x509: certificate relies "
                                              "on legacy Common Name field, use SANs instead"))
    elif subject.host:
        if covers(leaf, subject.host):
            results.append(Result("name", "ok", f"{subject.leaf_source} covers {subject.host}"))
        else:
            results.append(Result("name", "fail", f"{mismatch(leaf, subject.host)}; re-issue for the Service's name"))
    else:  # said, not passed over: a name mismatch is the outage this check exists for
        results.append(Result("name", "warn", f"not checked: give --service and --namespace (or --host) to check that "
                                              f"{subject.leaf_source} covers the name the API server dials"))
    if not subject.bundle:
        return results
    issuers = _issuers(leaf, subject.bundle)
    if not issuers:
        results.append(Result("chain", "fail",
                              f"x509: certificate signed by unknown authority: {subject.leaf_source} was issued by "
                              f"{leaf.issuer.rfc4514_string()!r}, and no CA in {subject.bundle_source} signed it"))
        return results
    ca = issuers[0]
    if not now < ca.not_valid_after_utc:
        results.append(Result("chain", "fail", f"the CA {describe(ca)} in {subject.bundle_source} expired on "
                                               f"{_day(ca.not_valid_after_utc)}; start a new CA (`draguard certs "
                                               "rotate`)"))
        return results
    # Path validation needs a name the leaf holds; whether it holds the *right* name is the name check's job.
    held = _names(leaf)
    name = subject.host if subject.host and covers(leaf, subject.host) else (held[0] if held else None)
    if name is None:  # the name check has failed it already; claim no more than the signature shows
        results.append(Result("chain", "ok", f"{subject.leaf_source} is signed by {describe(ca)} from "
                                             f"{subject.bundle_source} (no subjectAltName to validate the path for)"))
        return results
    problem = _verify(leaf, subject.bundle, name, now)
    if problem:
        results.append(Result("chain", "fail", f"{subject.leaf_source} does not verify against "
                                               f"{subject.bundle_source}: {problem}"))
        return results
    results.append(Result("chain", "ok", f"{subject.leaf_source} verifies against {subject.bundle_source} "
                                         f"(issued by {describe(ca)})"))
    return results


def _webhooks(subject: Subject) -> list[Result]:
    leaf, results = subject.leaf, []
    hooks = subject.webhooks or ()
    if not hooks:
        return [Result("bundle", "fail", f"{subject.webhook_source} has no webhooks")]
    missing = [h.name for h in hooks if h.ca_bundle is None]
    untrusting: list[str] = []
    for hook in hooks:
        if hook.ca_bundle is None:
            continue
        try:
            cas = x509.load_pem_x509_certificates(hook.ca_bundle)
        except ValueError:
            untrusting.append(f"{hook.name} (caBundle is not PEM)")
            continue
        if not _issuers(leaf, cas):
            untrusting.append(hook.name)
    if missing:
        results.append(Result("bundle", "fail", f"{subject.webhook_source}: webhook(s) {', '.join(missing)} have no "
                                                "caBundle; run `draguard certs inject`"))
    if untrusting:
        results.append(Result("bundle", "fail",
                              f"{subject.webhook_source}: the caBundle of webhook(s) {', '.join(untrusting)} does not "
                              f"hold the CA that issued {subject.leaf_source} (x509: certificate signed by unknown "
                              "authority); run `draguard certs inject`"))
    if not missing and not untrusting:
        results.append(Result("bundle", "ok", f"{subject.webhook_source}: all {len(hooks)} webhook(s) trust the "
                                              f"issuing CA"))
    for hook in hooks:
        if hook.service is None:
            continue
        host = f"{hook.service[1]}.{hook.service[0]}.svc"
        if host != subject.host and not covers(leaf, host):
            results.append(Result("name", "fail", f"webhook {hook.name} calls Service {host}, but "
                                                  f"{mismatch(leaf, host)}"))
    return results


def _expiry(subject: Subject, now: dt.datetime, warn_days: int) -> list[Result]:
    results = []
    pairs = [("serving certificate", subject.leaf)]
    issuers = _issuers(subject.leaf, subject.bundle)
    if issuers:
        pairs.append(("CA", issuers[0]))
    for label, cert in pairs:
        left = cert.not_valid_after_utc - now
        if left <= dt.timedelta(0):
            results.append(Result("expiry", "fail", f"x509: certificate has expired or is not yet valid: the {label} "
                                                    f"expired on {_day(cert.not_valid_after_utc)}"))
        elif left < dt.timedelta(days=warn_days):
            results.append(Result("expiry", "warn", f"the {label} expires in {left.days} day(s), on "
                                                    f"{cert.not_valid_after_utc:%Y-%m-%d}"))
        else:
            days = round(left / dt.timedelta(days=1))
            results.append(Result("expiry", "ok", f"the {label} expires in {days} days, on "
                                                  f"{cert.not_valid_after_utc:%Y-%m-%d}"))
    return results


def _clock(subject: Subject, now: dt.datetime) -> list[Result]:
    leaf, results = subject.leaf, []
    start = leaf.not_valid_before_utc
    if now < start:
        results.append(Result("clock", "fail", f"this machine's clock ({_day(now)}) is before the serving "
                                               f"certificate's notBefore ({_day(start)}): is the clock behind?"))
    if subject.server_date is None:
        return results
    skew = now - subject.server_date
    seconds = int(abs(skew.total_seconds()))
    direction = "behind" if skew > dt.timedelta(0) else "ahead of"
    if subject.server_date < start:
        results.append(Result("clock", "fail",
                              f"the API server's clock ({_day(subject.server_date)}) is before the serving "
                              f"certificate's notBefore ({_day(start)}): x509: certificate has expired or is not yet "
                              "valid; fix the clocks (NTP)"))
    elif abs(skew) > BACKDATE:
        results.append(Result("clock", "warn", f"the API server's clock is {seconds} s {direction} this machine's, "
                                               f"more than the {int(BACKDATE.total_seconds() / 60)} min draguard "
                                               "backdates certificates by"))
    elif abs(skew) > SKEW_WARN:
        results.append(Result("clock", "warn", f"the API server's clock is {seconds} s {direction} this machine's"))
    else:
        results.append(Result("clock", "ok", f"the API server's clock is within {seconds} s of this machine's"))
    return results
