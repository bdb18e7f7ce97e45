"""`is_int64` at both ends of the int64 range and one past each (Go's int64, what the decoder accepts). Named
`test_decode_*` so mutation testing runs it first on `webhook.rules.k8s.decode`."""

from __future__ import annotations

import pytest

from webhook.rules.k8s.decode import INT64_MAX, INT64_MIN, is_int64


@pytest.mark.parametrize(("value", "fits"), [
    (INT64_MIN, True), (INT64_MIN + 1, True), (INT64_MIN - 1, False), (INT64_MAX, True), (INT64_MAX - 1, True),
    (INT64_MAX + 1, False), (0, True), (True, False), (1.0, True), (1.5, False), (float(2**63), False),
    ("1", False),
])
def test_is_int64(value: object, fits: bool) -> None:
    assert is_int64(value) is fits
