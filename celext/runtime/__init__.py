"""Run-time helpers of the compiled engine (celext.plan): `wire` reads the `device` variable from the wire
form, `verdict` decides whether Kubernetes could convert a device at all, `memo` remembers per device object,
`ops` holds the CEL operations the generated code calls."""
