"""`draguard serve`: run the validating admission webhook over TLS (gunicorn, guarded gevent workers)."""

from __future__ import annotations

import argparse
import ipaddress
import tempfile
from pathlib import Path

from webhook.commands.common import add_budget_arguments, budget_of, positive, seconds, whole

HELP = "run the validating admission webhook (HTTPS) for ResourceSlices and DRA selectors"

# controller-runtime's default CertDir, so the same Secret mount works for both.
DEFAULT_CERT_DIR = Path(tempfile.gettempdir()) / "k8s-webhook-server" / "serving-certs"
SERVICE, NAMESPACE = "draguard", "draguard"  # the names --self-signed certificates cover (draguard.draguard.svc)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cert-dir", type=Path, default=DEFAULT_CERT_DIR, metavar="DIR",
                        help="directory holding the serving certificate and key; re-read when they change "
                             "(default: %(default)s)")
    parser.add_argument("--cert-name", default="tls.crt", help="certificate file in --cert-dir (default: %(default)s)")
    parser.add_argument("--key-name", default="tls.key", help="key file in --cert-dir (default: %(default)s)")
    parser.add_argument("--host", default="",
                        help="address to listen on (default: every address, IPv6 and IPv4 where the kernel has "
                             "IPv6, else IPv4: as a Go server's :8443)")
    parser.add_argument("--port", type=_port, default=8443, help="HTTPS port (default: %(default)s)")
    parser.add_argument("--workers", type=positive, default=2, help="worker processes (default: %(default)s)")
    parser.add_argument("--max-connections", type=positive, default=1000, metavar="N",
                        help="open connections per worker; more wait in the accept backlog (default: %(default)s)")
    parser.add_argument("--handshake-timeout", type=seconds, default=5.0, metavar="SECONDS",
                        help="a TLS handshake must finish this soon after the connection (default: %(default)s)")
    parser.add_argument("--header-timeout", type=seconds, default=10.0, metavar="SECONDS",
                        help="request line and headers must arrive this soon (default: %(default)s)")
    parser.add_argument("--body-timeout", type=seconds, default=15.0, metavar="SECONDS",
                        help="the request body must arrive this soon after the headers; 408 otherwise "
                             "(default: %(default)s)")
    add_budget_arguments(parser)
    parser.add_argument("--policy", type=Path, metavar="FILE",
                        help="policy file (per-rule deny/warn/audit/off); reloaded on change; default policy if unset")
    parser.add_argument("--self-signed", action="store_true",
                        help="create a CA and serving certificate in --cert-dir first (for local use; reuses them)")
    parser.add_argument("--metrics-port", type=_port_or_zero, default=8080,
                        help="plain-HTTP Prometheus /metrics port, 0 to turn off (default: %(default)s)")
    parser.add_argument("--graceful-timeout", type=positive, default=25, metavar="SECONDS",
                        help="on SIGTERM, how long in-flight requests may take to finish (default: %(default)s)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info",
                        help="JSON log level on stderr (default: %(default)s)")
    from webhook.profiles.flags import add_profile_arguments  # issue 16: --kubernetes-version, --feature-gates

    add_profile_arguments(parser)

    _auth_arguments(parser.add_argument_group("authenticating the caller (off unless given; see docs/deploy.md)"))


def _auth_arguments(group: argparse._ArgumentGroup) -> None:
    from webhook.auth.settings import DEFAULT_CONFIGURATION

    group.add_argument("--client-ca", type=Path, metavar="FILE",
                       help="require a client certificate chaining to this CA bundle (refused at the TLS handshake "
                            "otherwise); reloaded with the serving certificate")
    group.add_argument("--allowed-subject", action="append", default=[], metavar="PATTERN",
                       help="with --client-ca: allow only certificates whose CN or DNS/URI SAN matches (exact or "
                            "glob; repeatable); others get 403")
    group.add_argument("--token-issuer", metavar="URL", help="require a KEP-6060 bearer token from this issuer")
    group.add_argument("--token-jwks", type=Path, metavar="FILE",
                       help="the issuer's JWKS (kubectl get --raw /openid/v1/jwks); reloaded when it changes")
    group.add_argument("--token-audience", action="append", default=[], metavar="URL",
                       help="an accepted audience: the webhook URL as the API server writes it (repeatable)")
    group.add_argument("--token-webhook-configuration", default=DEFAULT_CONFIGURATION, metavar="NAME",
                       help="the ValidatingWebhookConfiguration tokens must be bound to (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    from webhook.auth.settings import AuthSettings
    from webhook.policy import set_command_line  # --kubernetes-version / --feature-gates for every reload
    from webhook.profiles.flags import gates_of
    from webhook.serve import Limits, ServeOptions, serve

    set_command_line(args.kubernetes_version, gates_of(args))
    cert_dir: Path = args.cert_dir
    if args.self_signed:
        _self_signed(cert_dir, args.host)
    options = ServeOptions(
        cert_file=cert_dir / args.cert_name,
        key_file=cert_dir / args.key_name,
        host=args.host,
        port=args.port,
        workers=args.workers,
        limits=Limits(handshake=args.handshake_timeout, headers=args.header_timeout, body=args.body_timeout,
                      max_connections=args.max_connections),
        budget=budget_of(args),
        policy_path=args.policy,
        metrics_port=args.metrics_port,
        graceful_timeout=args.graceful_timeout,
        log_level=args.log_level,
        auth=AuthSettings(
            client_ca=args.client_ca,
            allowed_subjects=tuple(args.allowed_subject),
            token_issuer=args.token_issuer,
            token_jwks=args.token_jwks,
            token_audiences=tuple(args.token_audience),
            token_configuration=args.token_webhook_configuration,
        ),
    )
    serve(options)
    return 0


def _self_signed(cert_dir: Path, host: str) -> None:
    from certs import CertsError
    from certs.issue import generate
    from webhook.errors import DraguardError

    ips = ["127.0.0.1", "::1"]
    extra_dns = ["localhost"]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name; "" (every address) names nothing
        if host and host != "localhost":
            extra_dns.append(host)
    else:
        if not address.is_unspecified and str(address) not in ips:
            ips.append(str(address))
    try:
        generate(cert_dir, SERVICE, NAMESPACE, extra_dns=extra_dns, extra_ips=ips)
    except CertsError as err:
        raise DraguardError(f"--self-signed: {err.message}") from None


def _port(text: str) -> int:
    value = whole(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def _port_or_zero(text: str) -> int:
    return 0 if whole(text) == 0 else _port(text)


