"""The doctor: explain, before the API server does, why it would refuse the webhook's certificate.

Each check answers one question and, when the answer is no, says it in the words the API server would log
(Go's crypto/x509 texts such as "x509: certificate signed by unknown authority") plus what to do:

- key:    does tls.key belong to tls.crt?
- chain:  does what the server sends (tls.crt: the leaf, then any intermediates) verify against the bundle the way
          the API server's Go client verifies it (`certs.goverify`: crypto/x509's rules and error texts)?
- name:   does it cover the DNS name the API server dials, `<svc>.<ns>.svc` (Go's VerifyHostname)?
- bundle: does the caBundle of every webhook in the live configuration verify the chain as well, and does each
          webhook's Service name appear in the certificate?
- expiry: days left for the serving certificate and its CA (a warning inside `warn_days`).
- clock:  is this machine's clock, and the API server's (its Date header), inside the validity window?
"""

from __future__ import annotations

import datetime as dt
import email.utils
from typing import Literal, TypeAlias

from cryptography import x509
from msgspec import Struct

from certs import goverify
from certs.goverify import GoCert, GoParseError, Verdict
from certs.inject import WebhookEntry
from certs.issue import BACKDATE, signed_by
from certs.pem import AnyPrivateKey, describe, key_matches

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
    key: AnyPrivateKey | None = None
    key_source: str = "tls.key"
    bundle: tuple[x509.Certificate, ...] = ()
    bundle_source: str = "ca.crt"
    intermediates: tuple[x509.Certificate, ...] = ()  # what tls.crt holds after the leaf, sent in the handshake
    bundle_skipped: tuple[str, ...] = ()  # why the API server would skip certificates of the bundle file
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


def _go(cert: x509.Certificate) -> GoCert | None:
    try:
        return goverify.parse(cert)
    except GoParseError:
        return None


def hostname_problem(cert: x509.Certificate, host: str) -> str | None:
    """Go's VerifyHostname: None when `cert` covers `host` (DNS SANs, case-insensitive, a `*` left-most label, for
    a name; IP SANs for an address; never the Common Name), else Go's x509.HostnameError text."""
    parsed = _go(cert)
    return goverify.verify_hostname(parsed, host) if parsed else f"x509: certificate is not valid for {host}"


def _served(subject: Subject) -> tuple[x509.Certificate, ...]:
    return (subject.leaf, *subject.intermediates)


def _verdict(subject: Subject, now: dt.datetime) -> Verdict | None:
    """What the API server's TLS client concludes from the served chain and the bundle (None: no bundle); the host
    name is the name check's job, so it is left out here (Go's Verify skips it for an empty DNSName)."""
    if not subject.bundle:
        return None
    return goverify.verify(_served(subject), goverify.pool_of(subject.bundle), None, now)


def _issuer(verdict: Verdict | None) -> x509.Certificate | None:
    """The bundle's CA that anchors a verified chain (the leaf itself when the bundle holds it)."""
    return verdict.chain[-1].cert if verdict and verdict.chain else None


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
    verdict = _verdict(subject, now)  # read by the chain and the expiry checks
    results += _chain_and_name(subject, verdict, now)
    if subject.webhooks is not None:
        results += _webhooks(subject, now)
    results += _expiry(subject, verdict, now, warn_days)
    results += _clock(subject, now)
    return results


def _chain_and_name(subject: Subject, verdict: Verdict | None, now: dt.datetime) -> list[Result]:
    leaf, results = subject.leaf, []
    parsed = _go(leaf)
    if parsed is None:  # Go refuses the certificate itself: no handshake gets as far as names
        problem = goverify.verify(_served(subject), goverify.Pool(), None, now).error
        return [Result("chain", "fail", f"{subject.leaf_source}: {problem}")]
    if subject.host:
        problem = goverify.verify_hostname(parsed, subject.host)
        if problem is None:
            results.append(Result("name", "ok", f"{subject.leaf_source} covers {subject.host}"))
        else:
            results.append(Result("name", "fail", f"{problem}; re-issue for the Service's name"))
    elif not parsed.has_san_ext:
        results.append(Result("name", "fail", f"{subject.leaf_source} has no subjectAltName: the API server matches "
                                              "only SANs (x509: certificate relies on legacy Common Name field, use "
                                              "SANs instead)"))
    else:  # said, not passed over: a name mismatch is the outage this check exists for
        results.append(Result("name", "warn", f"not checked: give --service and --namespace (or --host) to check that "
                                              f"{subject.leaf_source} covers the name the API server dials"))
    for reason in subject.bundle_skipped:
        results.append(Result("chain", "warn", f"{subject.bundle_source}: the API server skips a certificate in it "
                                               f"({reason})"))
    if verdict is None:
        if subject.bundle_skipped:
            results.append(Result("chain", "fail", f"{subject.bundle_source} holds no certificate the API server can "
                                                   "use: every call fails"))
        return results
    if verdict.error:
        results.append(Result("chain", "fail", f"{subject.leaf_source} does not verify against "
                                               f"{subject.bundle_source}: {verdict.error}"))
        return results
    anchor = _issuer(verdict)
    assert anchor is not None
    via = "".join(f" via {describe(c.cert)}" for c in verdict.chain[1:-1])
    results.append(Result("chain", "ok", f"{subject.leaf_source} verifies against {subject.bundle_source} "
                                         f"(issued by {describe(anchor)}{via})"))
    return results


def _webhooks(subject: Subject, now: dt.datetime) -> list[Result]:
    leaf, results = subject.leaf, []
    hooks = subject.webhooks or ()
    if not hooks:
        return [Result("bundle", "fail", f"{subject.webhook_source} has no webhooks")]
    missing = [h.name for h in hooks if h.ca_bundle is None]
    untrusting: list[str] = []
    problems: set[str] = set()
    for hook in hooks:
        if hook.ca_bundle is None:
            continue
        pool = goverify.pool_from_pem(hook.ca_bundle)
        if not pool.certs:
            untrusting.append(f"{hook.name} (caBundle holds no certificate the API server can parse)")
            continue
        error = goverify.verify(_served(subject), pool, None, now).error
        if error:
            untrusting.append(hook.name)
            problems.add(error)
    if missing:
        results.append(Result("bundle", "fail", f"{subject.webhook_source}: webhook(s) {', '.join(missing)} have no "
                                                "caBundle; run `draguard certs inject`"))
    if untrusting:
        why = f" ({'; '.join(sorted(problems))})" if problems else ""
        results.append(Result("bundle", "fail",
                              f"{subject.webhook_source}: with the caBundle of webhook(s) {', '.join(untrusting)}, "
                              f"{subject.leaf_source} does not verify{why}; run `draguard certs inject`"))
    if not missing and not untrusting:
        results.append(Result("bundle", "ok", f"{subject.webhook_source}: all {len(hooks)} webhook(s) trust the "
                                              f"issuing CA"))
    for hook in hooks:
        if hook.service is None:
            continue
        host = f"{hook.service[1]}.{hook.service[0]}.svc"
        problem = hostname_problem(leaf, host) if host != subject.host else None
        if problem:
            results.append(Result("name", "fail", f"webhook {hook.name} calls Service {host}, but {problem}"))
    return results


def _expiry(subject: Subject, verdict: Verdict | None, now: dt.datetime, warn_days: int) -> list[Result]:
    results = []
    pairs = [("serving certificate", subject.leaf)]
    anchor = _issuer(verdict)
    if anchor is None and subject.bundle:  # an expired CA fails the verdict: name the one that signed the chain
        top = _served(subject)[-1]
        anchor = next((ca for ca in subject.bundle if signed_by(top, ca)), None)
    if anchor is not None and anchor is not subject.leaf:
        pairs.append(("CA", anchor))
    for label, cert in pairs:
        left = cert.not_valid_after_utc - now
        if left < dt.timedelta(0):  # Go: valid through notAfter itself, expired once past it
            expired = goverify.validity_error(cert, now)
            results.append(Result("expiry", "fail", f"the {label} expired on {_day(cert.not_valid_after_utc)}: "
                                                    f"{expired}"))
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
