"""CA rotation without dropped requests, as three explicit phases a Job can run again and again.

1. `overlap`: a new CA joins the trust bundle (`ca.crt` = old CA + new CA); the serving certificate stays. Inject
   the bundle and let it reach every client (the API server reads `caBundle` per request; kubelet refreshes a
   mounted Secret within about a minute).
2. `leaf`: the serving certificate is re-issued by the new CA, which becomes the signing CA. Clients holding the
   overlap bundle trust both the old and the new serving certificate, so the switch drops nothing.
3. `retire`: the old CA leaves the bundle; inject again.

Each phase is idempotent (a re-run of a finished phase changes nothing) and refuses to run out of order. `auto`
picks the next phase from the material itself, waiting `settle` after the previous phase before moving on: the
new CA's and the new leaf's notBefore (less the backdating) record when a phase ran, so no extra state is kept.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address
from pathlib import Path
from typing import Literal, TypeAlias

from cryptography import x509
from msgspec import Struct

from certs.errors import CertsError
from certs.files import DirectoryStore
from certs.issue import (
    BACKDATE,
    CA_YEARS,
    MAX_LEAF_DAYS,
    RENEW_FRACTION,
    Issued,
    Names,
    issue_ca,
    issue_leaf,
    signed_by,
    signing_ca,
    utcnow,
)
from certs.material import CA_CERT, CA_KEY, NEXT_CA_KEY, TLS_CERT, TLS_KEY, Changes, Material
from certs.pem import KeyType, cert_pem, describe, issued_key_type, key_matches, key_pem, parse_certs, parse_key

Phase: TypeAlias = Literal["overlap", "leaf", "retire"]
PHASES: tuple[Phase, ...] = ("overlap", "leaf", "retire")
DEFAULT_SETTLE = dt.timedelta(minutes=10)


class Rotation(Struct, frozen=True):
    """Where a rotation stands: the signing CA, the next CA (phase 1 done), CAs still trusted but retiring."""

    signing: Issued
    next: Issued | None
    retiring: tuple[x509.Certificate, ...]
    leaf: x509.Certificate | None

    @property
    def stage(self) -> str:
        if self.next is not None:
            return "overlapping"
        return "switched" if self.retiring else "steady"


@dataclass(frozen=True, slots=True)
class RotationPlan:
    phase: Phase | None  # None: nothing to do (yet)
    changes: Changes = field(repr=False)  # holds private keys: never in a log line
    message: str


def read_rotation(material: Material, where: str, now: dt.datetime) -> Rotation:
    ca = signing_ca(material, where, now)
    if ca is None:
        raise CertsError(f"{where}: no CA to rotate ({CA_CERT} and {CA_KEY} are absent); run `draguard certs generate`")
    bundle = parse_certs(material[CA_CERT], f"{where}/{CA_CERT}")
    following: Issued | None = None
    if NEXT_CA_KEY in material:
        key = parse_key(material[NEXT_CA_KEY], f"{where}/{NEXT_CA_KEY}")
        match = [c for c in bundle if key_matches(c, key)]
        if not match:
            raise CertsError(f"{where}/{NEXT_CA_KEY} matches no certificate in {where}/{CA_CERT}")
        following = Issued(match[0], key)
    others = tuple(c for c in bundle if c != ca.cert and (following is None or c != following.cert))
    leaf = parse_certs(material[TLS_CERT], f"{where}/{TLS_CERT}")[0] if TLS_CERT in material else None
    return Rotation(ca, following, others, leaf)


def _leaf_names(leaf: x509.Certificate) -> Names:
    try:
        san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        raise CertsError(f"the serving certificate {describe(leaf)} has no subjectAltName to re-issue") from None
    ips = [ip for ip in san.get_values_for_type(x509.IPAddress) if isinstance(ip, IPv4Address | IPv6Address)]
    # SAN order kept, so the subject stays `<svc>.<ns>.svc` (Names.host)
    return Names(tuple(san.get_values_for_type(x509.DNSName)), tuple(ips))


def plan_overlap(
    material: Material, where: str, *, key_type: KeyType | None = None, ca_years: int = CA_YEARS,
    now: dt.datetime | None = None,
) -> RotationPlan:
    now = now or utcnow()
    state = read_rotation(material, where, now)
    if state.stage == "overlapping":
        return RotationPlan(None, {}, "phase overlap already done: the bundle holds the old and the new CA")
    if state.stage == "switched":
        raise CertsError(
            f"{where}: the previous rotation is not finished ({len(state.retiring)} retiring CA(s) still in "
            f"{CA_CERT}); run phase retire first"
        )
    kind = key_type or issued_key_type(state.signing.key, f"{where}/{CA_KEY}")
    fresh = issue_ca(kind, years=ca_years, now=now)
    changes = {CA_CERT: cert_pem([state.signing.cert, fresh.cert]), NEXT_CA_KEY: key_pem(fresh.key)}
    return RotationPlan(
        "overlap", changes,
        f"phase overlap: {CA_CERT} now trusts the old and a new CA (new CA expires "
        f"{fresh.cert.not_valid_after_utc:%Y-%m-%d}); inject it, then run phase leaf",
    )


def plan_leaf(
    material: Material, where: str, *, leaf_days: int = MAX_LEAF_DAYS, now: dt.datetime | None = None
) -> RotationPlan:
    now = now or utcnow()
    state = read_rotation(material, where, now)
    if state.next is None:
        if state.stage == "switched" and state.leaf is not None and signed_by(state.leaf, state.signing.cert):
            return RotationPlan(None, {}, "phase leaf already done: the serving certificate comes from the new CA")
        raise CertsError(f"{where}: no rotation in progress; run phase overlap first")
    if state.leaf is None:
        raise CertsError(f"{where}: no serving certificate to re-issue; run `draguard certs generate` first")
    key_type = issued_key_type(state.leaf, f"{where}/{TLS_CERT}")
    fresh = issue_leaf(state.next, _leaf_names(state.leaf), key_type=key_type, days=leaf_days, now=now)
    changes: dict[str, bytes | None] = {
        TLS_CERT: cert_pem(fresh.cert),
        TLS_KEY: key_pem(fresh.key),
        CA_KEY: key_pem(state.next.key),
        NEXT_CA_KEY: None,
    }
    return RotationPlan(
        "leaf", changes,
        f"phase leaf: the serving certificate now comes from the new CA (expires "
        f"{fresh.cert.not_valid_after_utc:%Y-%m-%d}); once every replica serves it, run phase retire",
    )


def plan_retire(material: Material, where: str, *, now: dt.datetime | None = None) -> RotationPlan:
    now = now or utcnow()
    state = read_rotation(material, where, now)
    if state.next is not None:
        raise CertsError(f"{where}: the serving certificate still comes from the old CA; run phase leaf first")
    if not state.retiring:
        return RotationPlan(None, {}, "phase retire already done: the bundle holds only the current CA")
    if state.leaf is None or not signed_by(state.leaf, state.signing.cert):
        raise CertsError(
            f"{where}/{TLS_CERT} is not signed by the current CA {describe(state.signing.cert)}; "
            "retiring the old CA now would break TLS (run `draguard certs generate` first)"
        )
    return RotationPlan(
        "retire", {CA_CERT: cert_pem(state.signing.cert)},
        f"phase retire: {len(state.retiring)} old CA(s) left {CA_CERT}; inject it to finish the rotation",
    )


def plan_rotation(
    material: Material,
    where: str,
    phase: Phase | Literal["auto"] = "auto",
    *,
    force: bool = False,
    settle: dt.timedelta = DEFAULT_SETTLE,
    key_type: KeyType | None = None,
    ca_years: int = CA_YEARS,
    leaf_days: int = MAX_LEAF_DAYS,
    now: dt.datetime | None = None,
) -> RotationPlan:
    """The plan for one named phase, or for `auto`: the next phase once the previous one has settled."""
    now = now or utcnow()
    if phase == "overlap":
        return plan_overlap(material, where, key_type=key_type, ca_years=ca_years, now=now)
    if phase == "leaf":
        return plan_leaf(material, where, leaf_days=leaf_days, now=now)
    if phase == "retire":
        return plan_retire(material, where, now=now)
    state = read_rotation(material, where, now)
    if state.stage == "overlapping":
        assert state.next is not None
        since = now - (state.next.cert.not_valid_before_utc + BACKDATE)
        if since < settle:
            return RotationPlan(None, {}, f"waiting: the overlap bundle is {_age(since)} old, phase leaf runs after "
                                          f"{_age(settle)}; run again later")
        return plan_leaf(material, where, leaf_days=leaf_days, now=now)
    if state.stage == "switched":
        assert state.leaf is not None
        since = now - (state.leaf.not_valid_before_utc + BACKDATE)
        if since < settle:
            return RotationPlan(None, {}, f"waiting: the new serving certificate is {_age(since)} old, phase retire "
                                          f"runs after {_age(settle)}; run again later")
        return plan_retire(material, where, now=now)
    ca = state.signing.cert
    left = ca.not_valid_after_utc - now
    if not force and left > (ca.not_valid_after_utc - ca.not_valid_before_utc) / RENEW_FRACTION:
        return RotationPlan(None, {}, f"nothing to do: the CA is valid until {ca.not_valid_after_utc:%Y-%m-%d} "
                                      "(rotation starts with a third of its life left; --force starts it now)")
    return plan_overlap(material, where, key_type=key_type, ca_years=ca_years, now=now)


def _age(delta: dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def rotate(
    directory: Path | str,
    phase: Phase | Literal["auto"] = "auto",
    *,
    force: bool = False,
    settle: dt.timedelta = DEFAULT_SETTLE,
    key_type: KeyType | None = None,
    now: dt.datetime | None = None,
) -> RotationPlan:
    """Run one rotation phase on a certificate directory (see `plan_rotation`); returns what was done."""
    store = DirectoryStore(Path(directory))
    plan = plan_rotation(store.load(), str(store), phase, force=force, settle=settle, key_type=key_type, now=now)
    if plan.changes:
        store.save(plan.changes)
    return plan
