"""`--apply`: write the reports with server-side apply and delete the stale reports draguard owns.

Each report is applied (PATCH, `application/apply-patch+yaml`, fieldManager `draguard`, force: the audit is
the only writer of its reports). Then the reports carrying draguard's LABELS are listed, cluster-wide and
in pages, and those this run did not write (a namespace that has no claims any more) are deleted.
A failure stops there, and its line says how far the apply got: reports written before it stay written, and no
stale report is deleted before every report is written (a report that could not be written is never taken for a
stale one).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from webhook.audit.client import APPLY, Cluster, Failure, describe
from webhook.audit.kinds import ReportKinds, Resource
from webhook.audit.pager import Listing, hint_404, pages
from webhook.audit.reports import LABEL_SELECTOR
from webhook.errors import DraguardError
from webhook.wire import Obj, get_str, name_of

FIELD_MANAGER = "draguard"
REPORT_PAGE = 20  # a report holds up to --max-results results: list them a few at a time


class Applied(Struct):
    written: int = 0
    deleted: int = 0


def apply(cluster: Cluster, reports: Sequence[Obj], kinds: ReportKinds) -> Applied:
    """Write `reports`, then delete the stale ones; a failure (an error answer, an unreachable server) ends the
    run with one line that also says how far it got, as reports written before it stay written."""
    done = Applied()
    try:
        _apply(cluster, reports, kinds, done)
    except DraguardError as err:
        raise DraguardError(f"{err.message} ({done.written} of {len(reports)} report(s) applied, {done.deleted} "
                            "stale report(s) deleted before this)") from None
    return done


def _apply(cluster: Cluster, reports: Sequence[Obj], kinds: ReportKinds, done: Applied) -> None:
    written: set[tuple[str, str, str]] = set()
    for report in reports:
        namespace = get_str(report, "metadata", "namespace") or None
        resource = kinds.namespaced if namespace else kinds.cluster
        try:
            cluster.request("PATCH", resource.path(namespace, name_of(report)),
                            [("fieldManager", FIELD_MANAGER), ("force", "true")], body=report, content_type=APPLY)
        except Failure as failure:
            hint = hint_404(cluster, resource, failure) if failure.status == 404 else ""
            raise DraguardError(describe(failure, f"cannot apply {_label(resource, namespace, name_of(report))}")
                                + hint) from None
        written.add((resource.plural, namespace or "", name_of(report)))
        done.written += 1
    for resource in (kinds.cluster, kinds.namespaced):
        stale: list[tuple[str | None, str]] = []
        for page in pages(cluster, resource, REPORT_PAGE, Listing(), label_selector=LABEL_SELECTOR):
            for obj in page:
                namespace = get_str(obj, "metadata", "namespace") or None
                if (resource.plural, namespace or "", name_of(obj)) not in written:
                    stale.append((namespace, name_of(obj)))
        for namespace, name in stale:
            try:
                cluster.request("DELETE", resource.path(namespace, name))
            except Failure as failure:
                if failure.status != 404:  # already gone is what we wanted
                    what = f"cannot delete stale {_label(resource, namespace, name)}"
                    raise DraguardError(describe(failure, what)) from None
                continue
            done.deleted += 1


def _label(resource: Resource, namespace: str | None, name: str) -> str:
    where = f" in namespace {namespace}" if namespace else ""
    return f"{resource.kind} {name}{where}"
