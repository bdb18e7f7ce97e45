"""`--kubernetes-version` and `--feature-gates` for serve, validate, lint and policy vap (one definition)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from webhook.profiles import NEWEST, SUPPORTED, parse_gates

if TYPE_CHECKING:
    from webhook.policy import Policy


def add_profile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubernetes-version", choices=SUPPORTED, default=None, metavar="VERSION",
                        help=f"the Kubernetes release whose API server to mirror: {', '.join(SUPPORTED)} "
                             f"(default: the policy's kubernetes, else {NEWEST})")
    parser.add_argument("--feature-gates", action="append", default=[], metavar="NAME=BOOL,...",
                        help="DRA feature gates that differ from the release's defaults, as kube-apiserver takes "
                             "them, e.g. DRAListTypeAttributes=true,DRADeviceTaints=false (repeatable; wins over "
                             "the policy's featureGates)")


def gates_of(args: argparse.Namespace) -> dict[str, bool]:
    gates: dict[str, bool] = {}
    for text in args.feature_gates or ():
        gates.update(parse_gates(text))
    return gates


def apply_profile_arguments(policy: Policy, args: argparse.Namespace) -> Policy:
    """`policy` for the release and gates the command line names (unchanged when it names none)."""
    gates = gates_of(args)
    if args.kubernetes_version is None and not gates:
        return policy
    return policy.with_profile(args.kubernetes_version, gates)
