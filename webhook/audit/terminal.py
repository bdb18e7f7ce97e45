"""What the audit prints on stderr: a progress line while it runs (on a terminal only) and a summary at the end.

    draguard audit: resourceclaims: 2,000 listed, 12,000 checked, 35 findings
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from webhook.audit.kinds import AUDITED, Resource
from webhook.audit.scan import Audit

INTERVAL = 0.2  # seconds between progress redraws


class Progress:
    """Redraws one line (`\\r`) at most every INTERVAL; `done()` ends it. Silent when `stream` is not a tty."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.clock = clock
        self._last = -INTERVAL
        self._width = 0

    def __call__(self, audit: Audit, resource: Resource) -> None:
        now = self.clock()
        if not self.enabled or now - self._last < INTERVAL:
            return
        self._last = now
        listed = audit.listings[resource.plural].objects
        text = (f"draguard audit: {resource.plural}: {listed:,} listed, {audit.checked:,} checked, "
                f"{audit.findings:,} {_plural(audit.findings, 'finding')}")
        self.stream.write("\r" + text.ljust(self._width))
        self._width = len(text)
        self.stream.flush()

    def done(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def summary(audit: Audit) -> list[str]:
    """The run in a few lines: what was listed, findings per rule and per driver, token recoveries."""
    listed = ", ".join(f"{audit.listings[r.plural].objects} {r.plural}" for r in AUDITED if r.plural in audit.listings)
    lines = [f"draguard audit: listed {listed}; {audit.checked} checked against {audit.devices} "
             f"{_plural(audit.devices, 'device')}; {audit.findings} {_plural(audit.findings, 'finding')}"
             + (f", {audit.suppressed} suppressed" if audit.suppressed else "")]
    if audit.by_rule:
        lines.append("  by rule:")
        width = max(len(rule) for rule, _ in audit.by_rule)
        for (rule, action), n in sorted(audit.by_rule.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1].value)):
            lines.append(f"    {rule.ljust(width)}  {action.value:<5}  {n}")
    if audit.by_driver:
        lines.append("  by driver:")
        width = max(len(driver) for driver in audit.by_driver)
        for driver, n in sorted(audit.by_driver.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"    {driver.ljust(width)}  {n}")
    for plural, listing in audit.listings.items():
        if listing.resumed or listing.relisted:
            lines.append(f"  {plural}: continue token expired {listing.resumed + listing.relisted} time(s): "
                         f"{listing.resumed} resumed from a newer snapshot, {listing.relisted} listed again")
    dropped = sum(s.dropped for s in audit.scopes.values())
    if dropped:
        lines.append(f"  {dropped} {_plural(dropped, 'finding')} not shown: over --max-results {audit.max_results} "
                     f"per report (counted above and in the report summaries)")
    cut = sum(s.cut for s in audit.scopes.values())
    if cut:
        from webhook.audit.reports import MAX_REPORT_BYTES

        lines.append(f"  {cut} {_plural(cut, 'finding')} not in the reports: over {MAX_REPORT_BYTES:,} bytes of JSON "
                     "per report, which etcd must store (counted above and in the report summaries)")
    return lines
