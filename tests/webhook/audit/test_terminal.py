"""What the audit prints on stderr: the progress line (a terminal only) and the summary per rule and driver."""

from __future__ import annotations

import io
from typing import Any

from tests.webhook.audit.apiserver import AuditAPIServer
from webhook.audit.kinds import RESOURCE_CLAIMS
from webhook.audit.pager import Listing
from webhook.audit.scan import Audit
from webhook.audit.terminal import Progress
from webhook.findings import Action


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_summary_counts_per_rule_and_per_driver(audit: Any) -> None:
    run = audit("--format", "json=out.json")
    assert run.out == ""
    assert run.err.splitlines() == [
        "draguard audit: listed 3 resourceslices, 1 deviceclasses, 2 resourceclaims, 1 resourceclaimtemplates; "
        "7 checked against 4 devices; 7 findings",
        "  by rule:",
        "    selector-attribute-missing  warn   2",
        "    selector-numa-pinned        audit  2",
        "    k8s-device-name             deny   1",
        "    list-fragile-compare        warn   1",
        "    numa-node-mixed-form        warn   1",
        "  by driver:",
        "    gpu.example.com  7",
    ]


def test_suppressed_findings_are_counted(audit: Any, api: AuditAPIServer) -> None:
    from tests.webhook.audit.conftest import synthetic

    objects = synthetic()
    objects[2]["metadata"]["annotations"] = {"draguard.io/ignore": "k8s-device-name: vendor naming, fixed in 2.1"}
    api.serve(objects)
    run = audit("--fail-on", "deny")
    assert run.code == 0  # the only deny finding is suppressed
    assert run.err.splitlines()[0].endswith("7 checked against 4 devices; 6 findings, 1 suppressed")


def test_progress_redraws_one_line_on_a_terminal_and_clears_it() -> None:
    clock = iter([0.0, 0.1, 0.3])
    stream = _Tty()
    progress = Progress(stream, clock=lambda: next(clock))
    audit = Audit(max_results=10)
    audit.listings[RESOURCE_CLAIMS.plural] = Listing(objects=1500)
    progress(audit, RESOURCE_CLAIMS)
    progress(audit, RESOURCE_CLAIMS)  # 0.1 s later: not redrawn
    audit.by_rule[("list-fragile-compare", Action.WARN)] = 1
    progress(audit, RESOURCE_CLAIMS)
    progress.done()
    first = "draguard audit: resourceclaims: 1,500 listed, 0 checked, 0 findings"
    second = "draguard audit: resourceclaims: 1,500 listed, 0 checked, 1 finding"
    assert stream.getvalue() == f"\r{first}\r{second.ljust(len(first))}\r{' ' * len(second)}\r"


def test_no_progress_when_stderr_is_not_a_terminal(audit: Any) -> None:
    run = audit("--page-size", "1")
    assert "\r" not in run.err
