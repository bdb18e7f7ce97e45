"""`draguard audit`: every ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate of a running
cluster checked with the webhook's catalogue and policy, listed in pages, reported as policy reports.

    client (one API connection) -> pager (limit/continue, 410 recovery) -> scan (rules per object; slices feed
    a compact device inventory first) -> reports (OpenReports or wg-policy objects) -> apply (server-side apply,
    stale reports deleted)

Memory is bounded by one page plus the compact inventory (`devices.py` says what it keeps) plus at most
`--max-results` findings per report scope.
"""
