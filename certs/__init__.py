"""certs: the webhook's X.509 material: issue, store, inject, check, rotate and reload."""
