"""`draguard audit`: every ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate of a running
cluster checked with the webhook's catalogue and policy, listed in pages, reported as policy reports.

    client (one API connection) -> pager (limit/continue, 410 recovery) -> prefetch (the next page read in a
    thread while this one is checked) -> scan (rules per object; slices feed
    a compact device inventory first) -> reports (OpenReports or wg-policy objects) -> apply (server-side apply,
    stale reports deleted)

Memory is bounded by two pages (the one checked, the one read) plus the compact inventory (`devices.py` says
what it keeps) plus at most `--max-results` findings per report scope.
"""
