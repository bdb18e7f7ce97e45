"""A type error's text does not depend on what earlier compiles left in the checker's resolution cache."""

from __future__ import annotations

import celext

# Found by the differential test: the second compile of the same text numbered its type variables from 1.
EXPRESSION = ('(dyn(device.attributes.resource.sl) && {}).transformMapEntry(x, y, {x: device.attributes'
              '["gpu.example.com"]["bl"].includes("A100") && size(device.attributes.d.numaNode) < '
              'size(device.attributes.d.numaNode)})')


def _message(engine: str) -> str:
    try:
        celext.compile(EXPRESSION, engine=engine)
    except celext.CompileError as err:
        return err.message
    raise AssertionError("the expression compiled")


def test_the_same_text_gets_the_same_message_on_a_warm_cache() -> None:
    celext.clear_caches()
    first = _message("reference")
    assert first == "expected type 'bool' but found 'map(_var2, _var3)'"
    assert _message("compiled") == first  # a second check of the same text, the resolution cache now warm
