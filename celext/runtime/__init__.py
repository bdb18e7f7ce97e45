"""Run-time helpers of the compiled engine (celext.plan): `wire` reads the `device` variable from the wire
form, `ops` holds the CEL operations the generated code calls."""
