"""`draguard serve` without --host listens on every address, as a Go webhook's `:8443` does: IPv4-only,
dual-stack and IPv6-only pods alike (the shipped Deployment passes no --host)."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

import pytest

from tests.webhook.conftest import SNI, client_context, start_server
from webhook import serve
from webhook.serve import EVERY_ADDRESS, listen_host


def _can_bind(family: socket.AddressFamily, address: str) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


def _healthz(address: str, port: int, ca_file: Path) -> int:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as raw:
        raw.settimeout(30)
        raw.connect((address, port))
        with client_context(ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: " + SNI.encode() + b"\r\nConnection: close\r\n\r\n")
            response = http.client.HTTPResponse(tls)  # type: ignore[arg-type]
            response.begin()
            return response.status


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "0.0.0.0", "::", "localhost"])
def test_a_given_host_is_bound_as_given(host: str) -> None:
    assert listen_host(host) == host


def test_every_address_is_the_ipv6_wildcard_where_it_takes_ipv4_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "_dual_stack", lambda: True)
    assert listen_host(EVERY_ADDRESS) == "::"


def test_every_address_is_ipv4_where_the_kernel_has_no_dual_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "_dual_stack", lambda: False)
    assert listen_host(EVERY_ADDRESS) == "0.0.0.0"


def test_no_dual_stack_without_ipv6(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_args: object, **_kwargs: object) -> socket.socket:
        raise OSError(97, "Address family not supported by protocol")  # ipv6.disable=1 on the node

    monkeypatch.setattr(serve.socket, "socket", refused)
    assert serve._dual_stack() is False


@pytest.mark.skipif(not (_can_bind(socket.AF_INET, "127.0.0.1") and _can_bind(socket.AF_INET6, "::1")),
                    reason="this machine cannot bind both 127.0.0.1 and ::1")
def test_serve_without_host_answers_over_ipv4_and_ipv6(tmp_path: Path) -> None:
    if not serve._dual_stack():
        pytest.skip("IPv6 wildcard sockets are IPv6-only here (net.ipv6.bindv6only=1)")
    server = start_server(tmp_path, args=("--host", EVERY_ADDRESS))  # the last --host wins: every address
    try:
        assert _healthz("127.0.0.1", server.port, server.ca_file) == 200
        assert _healthz("::1", server.port, server.ca_file) == 200
        metrics = http.client.HTTPConnection("::1", server.metrics_port, timeout=30)  # the metrics listener too
        try:
            metrics.request("GET", "/metrics")
            assert metrics.getresponse().status == 200
        finally:
            metrics.close()
    finally:
        assert server.stop() == 0


def test_the_self_signed_certificate_names_no_wildcard(tmp_path: Path) -> None:
    from cryptography import x509

    from webhook.commands.serve import _self_signed

    _self_signed(tmp_path, EVERY_ADDRESS)
    cert = x509.load_pem_x509_certificate((tmp_path / "tls.crt").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "" not in names.get_values_for_type(x509.DNSName)
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1", "::1"]
