"""certs.rotate: overlap, leaf, retire; clients holding the old bundle keep working until the switch."""

from __future__ import annotations

import datetime as dt
import ssl
from pathlib import Path

import pytest
from cryptography import x509

from certs import CertsError
from certs.issue import generate
from certs.pem import load_certs, load_key
from certs.reload import TLSReloader
from certs.rotate import rotate
from tests.certs.conftest import handshake

HOST = "draguard.draguard-system.svc"
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)
LATER = dt.timedelta(minutes=11)  # past the default 10 minute settle time


def _bundle(directory: Path) -> list[x509.Certificate]:
    return load_certs(directory / "ca.crt")


def _save(path: Path, certs: list[x509.Certificate]) -> Path:
    from certs.pem import cert_pem

    path.write_bytes(cert_pem(certs))
    return path


def test_a_client_with_only_the_old_bundle_works_until_the_switch(tmp_path: Path, tls_server: type) -> None:
    live = tmp_path / "tls"
    generate(live, "draguard", "draguard-system")
    old_bundle = _save(tmp_path / "old.crt", _bundle(live))
    server = tls_server(TLSReloader(live / "tls.crt", live / "tls.key", check_interval=0).server_context())
    handshake(server.port, old_bundle, server_name=HOST)

    assert rotate(live, "overlap").phase == "overlap"
    overlap_bundle = _save(tmp_path / "overlap.crt", _bundle(live))
    assert len(_bundle(live)) == 2
    handshake(server.port, old_bundle, server_name=HOST)  # the serving certificate has not changed yet
    handshake(server.port, overlap_bundle, server_name=HOST)

    assert rotate(live, "leaf").phase == "leaf"  # the switch
    handshake(server.port, overlap_bundle, server_name=HOST)
    with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer certificate"):
        handshake(server.port, old_bundle, server_name=HOST)

    assert rotate(live, "retire").phase == "retire"
    (new_ca,) = _bundle(live)
    assert new_ca == load_certs(overlap_bundle)[1] and new_ca not in load_certs(old_bundle)
    handshake(server.port, live / "ca.crt", server_name=HOST)
    handshake(server.port, overlap_bundle, server_name=HOST)
    assert sorted(p.name for p in live.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]


def test_after_a_rotation_the_new_ca_signs_and_generate_reuses_it(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system", extra_ips=["10.0.0.7"], key_type="rsa")
    old_ca = _bundle(tmp_path)[0]
    for phase in ("overlap", "leaf", "retire"):
        rotate(tmp_path, phase)  # type: ignore[arg-type]
    (new_ca,) = _bundle(tmp_path)
    assert new_ca != old_ca
    assert load_key(tmp_path / "ca.key").public_key() == new_ca.public_key()
    leaf = load_certs(tmp_path / "tls.crt")[0]
    assert leaf.issuer == new_ca.subject
    leaf.verify_directly_issued_by(new_ca)
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] == ["10.0.0.7"]
    assert leaf.subject.rfc4514_string() == "CN=draguard.draguard-system.svc"
    again = generate(tmp_path, "draguard", "draguard-system", extra_ips=["10.0.0.7"], key_type="rsa")
    assert (again.ca_created, again.leaf_issued) == (False, False)


def test_every_phase_is_idempotent(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system")
    messages = []
    for phase in ("overlap", "overlap", "leaf", "leaf", "retire", "retire"):
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        plan = rotate(tmp_path, phase)  # type: ignore[arg-type]
        if plan.phase is None:
            assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
        messages.append(plan.message.split(":")[0])
    assert messages == [
        "phase overlap", "phase overlap already done",
        "phase leaf", "phase leaf already done",
        "phase retire", "phase retire already done",
    ]


def test_phases_out_of_order_are_refused_with_the_phase_to_run(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system")
    with pytest.raises(CertsError, match="no rotation in progress; run phase overlap first"):
        rotate(tmp_path, "leaf")
    rotate(tmp_path, "overlap")
    with pytest.raises(CertsError, match="the serving certificate still comes from the old CA; run phase leaf first"):
        rotate(tmp_path, "retire")
    rotate(tmp_path, "leaf")
    with pytest.raises(CertsError, match=r"the previous rotation is not finished \(1 retiring CA\(s\) still in "
                                         r"ca.crt\); run phase retire first"):
        rotate(tmp_path, "overlap")


def test_auto_waits_for_each_phase_to_settle(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system", ca_years=3, now=NOW)
    assert rotate(tmp_path, now=NOW).message == (
        "nothing to do: the CA is valid until 2029-11-22 (rotation starts with a third of its life left; "
        "--force starts it now)")
    due = NOW + dt.timedelta(days=800)  # less than a third of 3 years left
    assert rotate(tmp_path, now=due).phase == "overlap"
    assert rotate(tmp_path, now=due + dt.timedelta(minutes=3)).message == (
        "waiting: the overlap bundle is 3m00s old, phase leaf runs after 10m00s; run again later")
    assert rotate(tmp_path, now=due + LATER).phase == "leaf"
    switched = due + LATER
    assert rotate(tmp_path, now=switched + dt.timedelta(seconds=30)).message == (
        "waiting: the new serving certificate is 0m30s old, phase retire runs after 10m00s; run again later")
    assert rotate(tmp_path, now=switched + LATER).phase == "retire"
    assert rotate(tmp_path, now=switched + LATER).phase is None


def test_auto_with_force_starts_a_rotation_of_a_healthy_ca(tmp_path: Path) -> None:
    generate(tmp_path, "draguard", "draguard-system")
    assert rotate(tmp_path, force=True).phase == "overlap"
    assert rotate(tmp_path, settle=dt.timedelta(0)).phase == "leaf"


def test_rotating_without_material_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(CertsError) as err:
        rotate(tmp_path, "overlap")
    assert err.value.message == (
        f"{tmp_path}: no CA to rotate (ca.crt and ca.key are absent); run `draguard certs generate`")


def test_every_phase_as_the_api_server_verifies_it(tmp_path: Path) -> None:
    """Go's verdict (certs.goverify) for each certificate a replica may serve against each bundle the API server
    may have cached, at each phase: nothing a phase leaves in service is refused by a bundle still in use."""
    from certs import goverify

    def verdict(leaf: x509.Certificate, bundle: list[x509.Certificate], at: dt.datetime) -> str:
        return goverify.verify([leaf], goverify.pool_of(bundle), HOST, at).error or "ok"

    generate(tmp_path, "draguard", "draguard-system", now=NOW)
    old_bundle, old_leaf = _bundle(tmp_path), load_certs(tmp_path / "tls.crt")[0]
    at = NOW + LATER
    rotate(tmp_path, "overlap", now=at)
    overlap = _bundle(tmp_path)
    assert [verdict(old_leaf, b, at) for b in (old_bundle, overlap)] == ["ok", "ok"]
    at += LATER
    rotate(tmp_path, "leaf", now=at)
    new_leaf = load_certs(tmp_path / "tls.crt")[0]
    assert verdict(new_leaf, overlap, at) == verdict(old_leaf, overlap, at) == "ok"  # replicas switch one by one
    assert verdict(new_leaf, old_bundle, at) == (  # the documented switch: old-bundle-only clients stop here
        "tls: failed to verify certificate: x509: certificate signed by unknown authority (possibly because of "
        '"x509: ECDSA verification failure" while trying to verify candidate authority certificate '
        '"draguard-webhook-ca")')
    at += LATER
    rotate(tmp_path, "retire", now=at)
    new_bundle = _bundle(tmp_path)
    assert [verdict(new_leaf, b, at) for b in (overlap, new_bundle)] == ["ok", "ok"]
    assert verdict(old_leaf, new_bundle, at).startswith("tls: failed to verify certificate: x509: certificate "
                                                        "signed by unknown authority")  # why retire waits to settle
