"""certs: the webhook's X.509 material: issue, store, inject, check, rotate and reload.

Only the error base is imported here, so `import certs` stays cheap; each module imports `cryptography`
(and `store`/`inject` the `kubernetes` client) itself.
"""

from certs.errors import CertsError

__all__ = ["CertsError"]
