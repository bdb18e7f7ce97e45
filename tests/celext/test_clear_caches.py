"""celext.clear_caches(): a server's way to drop every compiled selector, parse tree and decoded value."""

from __future__ import annotations

import celext

EXPRESSION = 'device.attributes["gpu.example.com"].model.matches("^a+$")'
DEVICE = {"name": "d", "attributes": {"model": {"string": "aaa"}}}


def _warm() -> tuple[celext.Selector, celext.Selector]:
    compiled = celext.compile(EXPRESSION)
    reference = celext.compile(EXPRESSION, engine="reference")
    assert compiled.matches(DEVICE, driver="gpu.example.com") is True
    assert reference.matches(DEVICE, driver="gpu.example.com") is True
    return compiled, reference


def test_clearing_drops_compiled_selectors_and_compiles_again() -> None:
    compiled, reference = _warm()
    assert celext.compile(EXPRESSION) is compiled  # cached by text
    celext.clear_caches()
    again = celext.compile(EXPRESSION)
    assert again is not compiled
    assert again.matches(DEVICE, driver="gpu.example.com") is True
    assert celext.compile(EXPRESSION, engine="reference") is not reference
