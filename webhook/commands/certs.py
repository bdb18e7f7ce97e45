"""`draguard certs generate|rotate|inject|check|client`: the webhook's TLS material without openssl or cert-manager.

Every subcommand is a thin shell over the `certs` package; material lives in a directory (`--dir`) or a Secret of
type kubernetes.io/tls (`--secret NAMESPACE/NAME`, for an in-cluster Job). Exit codes: 0 done (or nothing to do),
1 `check` found a problem, 2 bad input, unusable material or an unreachable cluster (one line on stderr).
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webhook.errors import DraguardError
from webhook.exits import exit_code

if TYPE_CHECKING:
    from certs.kube import Kube

HELP = "issue, rotate, inject and check the webhook's TLS certificates"
NAME = "certs"


def _location(parser: argparse.ArgumentParser, *, required: bool) -> None:
    where = parser.add_mutually_exclusive_group(required=required)
    where.add_argument("--dir", type=_path, metavar="DIR", help="directory holding ca.crt, ca.key, tls.crt, tls.key")
    where.add_argument("--secret", metavar="NAMESPACE/NAME", help="a Secret of type kubernetes.io/tls instead")


def _cluster(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config, "
                                                            "or the service account inside a Pod)")
    parser.add_argument("--context", metavar="NAME", help="kubeconfig context (default: the current one)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="certs_command", metavar="SUBCOMMAND")
    sub.required = True

    gen = sub.add_parser("generate", help="create or renew the CA and serving certificate (idempotent)",
                         description="Create the CA and the serving certificate for a Service; re-running reuses a "
                                     "valid CA and re-issues the certificate only when names or key type change or "
                                     "a third of its life is left.")
    _location(gen, required=True)
    gen.add_argument("--service", required=True, help="the webhook's Service name")
    gen.add_argument("--namespace", required=True, help="the Service's namespace")
    gen.add_argument("--dns", action="append", default=[], metavar="NAME", help="an extra DNS name (repeatable)")
    gen.add_argument("--ip", action="append", default=[], metavar="ADDR", help="an extra IP address (repeatable)")
    gen.add_argument("--key-type", choices=("ecdsa", "rsa"), default="ecdsa",
                     help="ECDSA P-256 (default) or RSA 2048")
    gen.add_argument("--ca-years", type=_whole(1, 100), default=10, metavar="N",
                     help="lifetime of a new CA in years, 1 to 100 (default 10)")
    gen.add_argument("--leaf-days", type=_whole(1, 365), default=365, metavar="N",
                     help="lifetime of the serving certificate, at most 365 (default)")
    _cluster(gen)
    gen.set_defaults(_certs=_generate)

    rot = sub.add_parser("rotate", help="rotate the CA in phases: overlap, leaf, retire",
                         description="Rotate the CA without dropping requests. Each run performs one phase; "
                                     "`auto` picks the next one once the previous has settled.")
    _location(rot, required=True)
    rot.add_argument("--phase", choices=("auto", "overlap", "leaf", "retire"), default="auto",
                     help="the phase to run (default auto: the next due one)")
    rot.add_argument("--settle", default="10m", metavar="DURATION",
                     help="auto: wait this long after a phase before the next, e.g. 90s, 10m, 1h (default 10m)")
    rot.add_argument("--force", action="store_true", help="auto: start a rotation even though the CA is not due")
    rot.add_argument("--key-type", choices=("ecdsa", "rsa"), default=None, help="key type of the new CA")
    _cluster(rot)
    rot.set_defaults(_certs=_rotate)

    inj = sub.add_parser("inject", help="write the CA bundle into every webhook of a configuration",
                         description="Write the CA bundle into clientConfig.caBundle of every webhook of a "
                                     "ValidatingWebhookConfiguration (one JSON patch, field manager draguard-certs), "
                                     "then read it back and verify.")
    inj.add_argument("--webhook", required=True, metavar="NAME", help="the ValidatingWebhookConfiguration")
    source = inj.add_mutually_exclusive_group(required=True)
    source.add_argument("--ca-file", type=_path, metavar="FILE", help="PEM bundle to inject")
    source.add_argument("--dir", type=_path, metavar="DIR", help="inject DIR/ca.crt")
    source.add_argument("--secret", metavar="NAMESPACE/NAME", help="inject ca.crt of this Secret")
    inj.add_argument("--field-manager", default="draguard-certs", help="field manager of the patch")
    inj.add_argument("--force", action="store_true", help="inject even where cert-manager's cainjector is configured")
    _cluster(inj)
    inj.set_defaults(_certs=_inject)

    chk = sub.add_parser("check", help="diagnose the certificate the API server would see",
                         description="Check that the key matches, the chain verifies, the certificate covers the "
                                     "Service's DNS name, the bundle (file or live webhook configuration) holds the "
                                     "issuing CA, expiry and clock skew. Exit 1 when a check fails.")
    _location(chk, required=False)
    chk.add_argument("--cert", type=_path, metavar="FILE", help="serving certificate (default DIR/tls.crt)")
    chk.add_argument("--key", type=_path, metavar="FILE", help="its private key (default DIR/tls.key)")
    chk.add_argument("--ca-file", type=_path, metavar="FILE", help="CA bundle (default DIR/ca.crt)")
    chk.add_argument("--service", help="the webhook's Service name (checks <service>.<namespace>.svc)")
    chk.add_argument("--namespace", help="the Service's namespace")
    chk.add_argument("--host", help="check this name instead of <service>.<namespace>.svc")
    chk.add_argument("--webhook", metavar="NAME", help="also check the live ValidatingWebhookConfiguration's caBundle")
    chk.add_argument("--warn-days", type=_whole(0, 3650), default=30, metavar="N",
                     help="warn when expiry is this close, in days (default 30)")
    _cluster(chk)
    chk.set_defaults(_certs=_check)

    cli = sub.add_parser("client", help="issue the API server's client certificate from the webhook's CA",
                         description="Issue a client certificate (clientAuth) signed by the webhook's CA, for the API "
                                     "server to present when `draguard serve --client-ca` requires one. Writes "
                                     "client.crt and client.key (0600) to --out.")
    _location(cli, required=True)
    cli.add_argument("--subject", required=True, metavar="CN", help="the certificate's Common Name, e.g. "
                                                                    "kube-apiserver (what --allowed-subject matches)")
    cli.add_argument("--dns", action="append", default=[], metavar="NAME", help="a DNS SAN (repeatable)")
    cli.add_argument("--uri", action="append", default=[], metavar="URI", help="a URI SAN, e.g. spiffe://... "
                                                                              "(repeatable)")
    cli.add_argument("--out", type=_path, required=True, metavar="DIR", help="where to write client.crt, client.key")
    cli.add_argument("--key-type", choices=("ecdsa", "rsa"), default="ecdsa", help="ECDSA P-256 (default) or RSA")
    cli.add_argument("--days", type=_whole(1, 365), default=365, metavar="N",
                     help="lifetime in days, at most 365 and never past the CA (default 365)")
    _cluster(cli)
    cli.set_defaults(_certs=_client)


def _path(text: str) -> Path:
    """An argparse type: a path that is not empty (`Path("")` would be the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)


def _whole(low: int, high: int) -> Any:
    """An argparse type: a whole number from `low` to `high`, so a bad value is a usage error before any I/O."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low} to {high})")
        return value

    return parse


def run(args: argparse.Namespace) -> int:
    from certs import CertsError

    try:
        code: int = args._certs(args)
    except CertsError as err:
        raise DraguardError(err.message) from None
    return code


def _kube(args: argparse.Namespace) -> Kube:
    from certs.kube import connect

    return connect(args.kubeconfig, args.context)


def _store(args: argparse.Namespace) -> Any:
    if args.secret:
        from certs.store import SecretStore, parse_ref

        namespace, name = parse_ref(args.secret)
        return SecretStore(_kube(args), namespace, name)
    from certs.files import DirectoryStore

    return DirectoryStore(args.dir)


def _generate(args: argparse.Namespace) -> int:
    from certs.issue import plan_generate, service_names

    names = service_names(args.service, args.namespace, args.dns, args.ip)  # bad names fail before any I/O
    store = _store(args)
    current = store.load()
    plan = plan_generate(current, str(store), names, key_type=args.key_type, ca_years=args.ca_years,
                         leaf_days=args.leaf_days)
    if plan.changes:
        store.save(plan.changes, current)
    print(f"CA: {'created' if plan.ca_created else 'reused'} (expires {plan.ca_not_after:%Y-%m-%d})")
    state = f"issued: {plan.reason}" if plan.leaf_issued else "kept: valid and current"
    print(f"serving certificate: {state} (expires {plan.not_after:%Y-%m-%d})")
    print(f"names: {', '.join(names.describe())}")
    if plan.changes:
        print(f"wrote {', '.join(sorted(n for n, v in plan.changes.items() if v is not None))} to {store}")
    else:
        print(f"{store}: unchanged")
    return 0


_DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def parse_duration(text: str) -> dt.timedelta:
    match = _DURATION.fullmatch(text.strip())
    if text.strip() == "0":
        return dt.timedelta(0)
    if not text.strip() or not match:
        raise DraguardError(f"invalid duration {text!r}: use e.g. 90s, 10m, 1h30m or 0")
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    try:
        return dt.timedelta(hours=hours, minutes=minutes, seconds=seconds)
    except OverflowError:
        raise DraguardError(f"invalid duration {text!r}: too long (use e.g. 90s, 10m, 1h30m or 0)") from None


def _rotate(args: argparse.Namespace) -> int:
    from certs.rotate import plan_rotation

    settle = parse_duration(args.settle)
    store = _store(args)
    current = store.load()
    plan = plan_rotation(current, str(store), args.phase, force=args.force, settle=settle, key_type=args.key_type)
    if plan.changes:
        store.save(plan.changes, current)
    print(plan.message)
    return 0


def _inject(args: argparse.Namespace) -> int:
    from certs import CertsError
    from certs.inject import check_bundle, inject
    from certs.material import CA_CERT
    from certs.pem import read_file

    if args.ca_file:
        bundle = read_file(args.ca_file)
    else:
        material = _store(args).load()
        if CA_CERT not in material:
            raise CertsError(f"{_store_name(args)}: no {CA_CERT} to inject; run `draguard certs generate` first")
        bundle = material[CA_CERT]
    check_bundle(bundle, str(args.ca_file) if args.ca_file else f"{_store_name(args)}/{CA_CERT}")  # before connecting
    done = inject(_kube(args), args.webhook, bundle, field_manager=args.field_manager, force=args.force)
    total = len(done.webhooks)
    if done.patched:
        print(f"validatingwebhookconfiguration/{done.name}: caBundle set on {len(done.patched)} of {total} "
              f"webhook(s) ({', '.join(done.patched)}); read back and verified")
    else:
        print(f"validatingwebhookconfiguration/{done.name}: caBundle already current on all {total} webhook(s); "
              "verified")
    return 0


def _client(args: argparse.Namespace) -> int:
    from certs.client import client_subject, write_client

    subject = client_subject(args.subject, args.dns, args.uri)  # bad names fail before any I/O
    store = _store(args)
    written = write_client(store.load(), str(store), args.out, subject, key_type=args.key_type, days=args.days)
    names = [f"CN={subject.common_name}", *(f"DNS:{n}" for n in subject.dns), *(f"URI:{u}" for u in subject.uris)]
    print(f"client certificate: issued for {', '.join(names)} (serial {written.serial:x}, expires "
          f"{written.not_after:%Y-%m-%d})")
    print(f"wrote {written.cert_file} and {written.key_file}")
    return 0


def _store_name(args: argparse.Namespace) -> str:
    return f"secret {args.secret}" if args.secret else str(args.dir)


def _check(args: argparse.Namespace) -> int:
    from certs.check import Subject, doctor, server_date
    from certs.goverify import pool_from_pem
    from certs.inject import entries, read
    from certs.material import CA_CERT, TLS_CERT, TLS_KEY
    from certs.pem import parse_any_key, parse_certs, read_file

    if args.secret:
        material = _store(args).load()
        if not material:
            raise DraguardError(f"secret {args.secret} not found")

        def fetch(name: str, explicit: Path | None) -> tuple[bytes | None, str]:
            if explicit is not None:
                return read_file(explicit), str(explicit)
            return material.get(name), f"secret {args.secret} {name}"
    else:
        base = args.dir

        def fetch(name: str, explicit: Path | None) -> tuple[bytes | None, str]:
            path = explicit or (base / name if base is not None else None)
            if path is None:
                return None, name
            if explicit is None and not path.exists():
                return None, str(path)
            return read_file(path), str(path)

    leaf_pem, leaf_source = fetch(TLS_CERT, args.cert)
    if leaf_pem is None:
        if args.secret:
            raise DraguardError(f"secret {args.secret} holds no {TLS_CERT}; run `draguard certs generate` first")
        if args.dir is not None:
            raise DraguardError(f"{leaf_source}: no such file (give --cert FILE if it has another name)")
        raise DraguardError("no serving certificate to check: give --dir, --secret or --cert")
    key_pem, key_source = fetch(TLS_KEY, args.key)
    bundle_pem, bundle_source = fetch(CA_CERT, args.ca_file)
    if (args.service is None) != (args.namespace is None):
        raise DraguardError("--service and --namespace go together")
    host = args.host or (f"{args.service}.{args.namespace}.svc" if args.service else None)
    webhooks, webhook_source, date = None, "", None
    if args.webhook:
        config, headers = read(_kube(args), args.webhook)
        webhooks = tuple(entries(config, args.webhook))
        webhook_source = f"validatingwebhookconfiguration/{args.webhook}"
        date = server_date(headers)
    bundle: tuple[Any, ...] = ()
    skipped: tuple[str, ...] = ()
    if bundle_pem is None and webhooks:
        # No bundle file: verify the chain against what the API server actually uses.
        first = next((w for w in webhooks if w.ca_bundle), None)
        if first is not None and first.ca_bundle is not None:
            bundle_pem, bundle_source = first.ca_bundle, f"the caBundle of webhook {first.name}"
    if bundle_pem is not None:
        # As the API server reads a caBundle (CertPool.AppendCertsFromPEM): blocks Go cannot parse are skipped.
        pool = pool_from_pem(bundle_pem)
        if not pool.certs and not pool.skipped:  # no CERTIFICATE block at all (or one without its END line)
            raise DraguardError(f"{bundle_source}: no PEM certificate found")
        bundle, skipped = tuple(c.cert for c in pool.certs), tuple(pool.skipped)
    served = parse_certs(leaf_pem, leaf_source)  # the leaf, then the intermediates the server sends with it
    subject = Subject(
        leaf=served[0],
        intermediates=tuple(served[1:]),
        bundle_skipped=skipped,
        leaf_source=leaf_source,
        key=parse_any_key(key_pem, key_source) if key_pem is not None else None,
        key_source=key_source,
        bundle=bundle,
        bundle_source=bundle_source,
        host=host,
        webhooks=webhooks,
        webhook_source=webhook_source,
        server_date=date,
    )
    results = doctor(subject, warn_days=args.warn_days)
    for result in results:
        print(f"{result.level.upper() if result.level == 'fail' else result.level:<4}  {result.check}: "
              f"{result.message}")
    failed = sum(r.level == "fail" for r in results)
    warned = sum(r.level == "warn" for r in results)
    print(f"{failed} problem(s), {warned} warning(s)")
    return exit_code(problems=False, failing=failed > 0)
