"""Which cluster, with which credentials, for `draguard audit` and `draguard lint --cluster`: their
`--kubeconfig`/`--context` flags, and `configure()`.

The choice itself (kubectl's rules: a kubeconfig wins over the Pod's service account, `--context` without a
kubeconfig is an error) and every up-front check of the kubeconfig live in `certs.kubeconfig`, which
`draguard certs ...` uses too; here its `CertsError` becomes a `DraguardError` (one line, exit 2) so that the
audit's and lint's callers report it as their own errors.
"""

from __future__ import annotations

import argparse
from typing import Any

from webhook.errors import DraguardError


def add_arguments(parser: argparse.ArgumentParser, *, only_with: str | None = None) -> None:
    """`--kubeconfig FILE` and `--context NAME`, as `draguard audit` and `draguard lint --cluster` take them."""
    scope = f" (with {only_with})" if only_with else ""
    parser.add_argument("--kubeconfig", metavar="FILE", help=f"kubeconfig file{scope} (default: $KUBECONFIG, "
                                                             "~/.kube/config, or the Pod's service account in a "
                                                             "cluster when there is no kubeconfig)")
    parser.add_argument("--context", metavar="NAME", help=f"kubeconfig context{scope} (default: the current one)")


def configure(kubeconfig: str | None = None, context: str | None = None) -> Any:
    """A `kubernetes.client.Configuration` for the chosen cluster (`certs.kubeconfig.configure`)."""
    from certs.errors import CertsError
    from certs.kubeconfig import configure as load

    try:
        return load(kubeconfig, context)
    except CertsError as err:
        raise DraguardError(err.message) from None
