"""The names draguard's certificate material goes by, in a directory and in a Secret alike.

`ca.crt` is the trust bundle clients (the API server, through `caBundle`) use: one CA, or two while a rotation
overlaps. `ca.key` is the key of the CA that signs the serving certificate; during a rotation the next CA's key
waits in `ca-next.key`. The same layout as OPA cert-controller's Secret (CA key beside the serving pair), so
re-running `generate` can reuse the CA instead of drifting the bundle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

CA_CERT = "ca.crt"
CA_KEY = "ca.key"
NEXT_CA_KEY = "ca-next.key"
TLS_CERT = "tls.crt"
TLS_KEY = "tls.key"
NAMES = (CA_CERT, CA_KEY, NEXT_CA_KEY, TLS_CERT, TLS_KEY)
PRIVATE = frozenset({CA_KEY, NEXT_CA_KEY, TLS_KEY})

Material: TypeAlias = Mapping[str, bytes]
"""File name -> content; a name that is absent does not exist yet."""

Changes: TypeAlias = Mapping[str, bytes | None]
"""File name -> new content, or None to delete it."""
