"""Selector: one compiled expression, evaluated on many devices, results memoised per device projection.

Kubernetes evaluates a selector on every device of every slice. Devices repeat: a fleet has few distinct
values at the paths one selector reads (driver, a handful of attributes), so `matches()` keys a memo on
those values (paths derived from the syntax tree by `celext.compile.device_paths`) and evaluates only on a
miss. Raw wire-form devices are keyed straight from the wire form, so a hit costs no conversion at all.
Expressions whose device use is not a plain path (`size(device.attributes["d"])`) are evaluated every time.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from celpy import celtypes
from celpy.evaluation import Activation, CELEvalError

from celext.compile import Path, Prepared
from celext.env import FUNCTIONS
from celext.errors import EvaluationError
from celext.evaluator import COST_EXCEEDED, COST_LIMIT, Budget, CostLimitExceeded, DRAEvaluator, cel_type_name
from celext.quantity import Quantity
from celext.semver import Semver, parse_semver
from celext.values import ABSENT, Device, to_device

MEMO_SIZE = 65_536  # entries per selector; the memo is dropped and rebuilt when full
_MISS: Any = object()


def _value_key(value: Any) -> Any:
    """A hashable key that tells apart every value a CEL function could tell apart."""
    if isinstance(value, list):
        return ("list", tuple(_value_key(v) for v in value))
    if isinstance(value, Semver):
        return ("semver", str(value))
    if isinstance(value, Quantity):
        return ("quantity", value.value, value.int64_scale)
    if isinstance(value, dict):
        return ("map", tuple(sorted((str(k), _value_key(v)) for k, v in value.items())))
    if value is ABSENT:
        return ABSENT
    return (type(value).__name__, value)


def _wire_key(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _wire_key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_wire_key(v) for v in value)
    return (type(value).__name__, value)


def _wire_problem(body: Mapping[str, Any]) -> bool:
    """True when the device could carry an attribute Kubernetes refuses to convert (then convert fully)."""
    attributes = body.get("attributes")
    if not isinstance(attributes, Mapping):
        return attributes is not None
    for attribute in attributes.values():
        if not isinstance(attribute, Mapping) or not attribute:
            return True
        version = attribute.get("version")
        if version is not None:
            try:
                parse_semver(version)
            except (ValueError, TypeError):
                return True
        if attribute.get("versions") is not None:
            return True  # rare; let the full conversion check every element
    return False


def _wire_lookup(body: Mapping[str, Any], driver: str, path: Path) -> Any:
    head = path[0]
    if head == "driver":
        return driver
    if head == "allowMultipleAllocations":
        return body.get("allowMultipleAllocations") is True
    entries = body.get(head)
    if not isinstance(entries, Mapping):
        return ABSENT
    domain, ident = path[1], path[2]
    qualified = entries.get(f"{domain}/{ident}", ABSENT)
    bare = entries.get(ident, ABSENT) if domain == driver else ABSENT
    return (_wire_key(qualified) if qualified is not ABSENT else ABSENT,
            _wire_key(bare) if bare is not ABSENT else ABSENT)


class Selector:
    """A compiled DRA device selector. Thread-safe; create it with `celext.compile()`."""

    __slots__ = ("_activation", "_cost_limit", "_lock", "_memo", "_paths", "_prepared", "expression")

    def __init__(self, prepared: Prepared, *, cost_limit: int = COST_LIMIT) -> None:
        self.expression = prepared.expression
        self._prepared = prepared
        self._paths: tuple[Path, ...] | None = None if prepared.paths is None else tuple(sorted(prepared.paths))
        self._activation = Activation(functions=dict(FUNCTIONS))
        self._cost_limit = cost_limit
        self._memo: dict[Any, bool | str] = {}
        self._lock = threading.Lock()

    @property
    def paths(self) -> frozenset[Path] | None:
        """The device paths the expression reads; None when not derivable (no memoisation)."""
        return self._prepared.paths

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})"

    def evaluate(self, device: Mapping[str, Any], driver: str = "") -> bool:
        """Evaluate without the memo (the plain interpreter path)."""
        value = to_device(device, driver)
        if value.error is not None:
            raise EvaluationError(value.error)
        return self._run(value)

    def matches(self, device: Mapping[str, Any], driver: str = "") -> bool:
        """Does the device match? `device` is a wire-form `spec.devices[i]` entry or a `to_device()` value."""
        if self._paths is None:
            return self.evaluate(device, driver)
        key = self._key(device, driver)
        if key is None:
            return self.evaluate(device, driver)
        cached = self._memo.get(key, _MISS)
        if cached is _MISS:
            try:
                cached = self.evaluate(device, driver)
            except EvaluationError as err:
                cached = err.message
            if len(self._memo) >= MEMO_SIZE:
                with self._lock:
                    self._memo.clear()
            self._memo[key] = cached
        if isinstance(cached, str):
            raise EvaluationError(cached)
        return bool(cached)

    def _key(self, device: Mapping[str, Any], driver: str) -> Any:
        assert self._paths is not None
        if isinstance(device, Device):
            if device.error is not None:
                return None
            return ("cel", *(_value_key(device.lookup(p)) for p in self._paths))
        body = device.get("basic") or device if isinstance(device, Mapping) else None
        if not isinstance(body, Mapping) or _wire_problem(body):
            return None
        return ("wire", driver, *(_wire_lookup(body, driver, p) for p in self._paths))

    def _run(self, device: Device) -> bool:
        evaluator = DRAEvaluator(self._prepared.tree, self._activation, Budget(self._cost_limit))
        try:
            result = evaluator.evaluate({"device": device})
        except CELEvalError as err:
            raise EvaluationError(_message(err)) from None
        except CostLimitExceeded:
            raise EvaluationError(COST_EXCEEDED) from None
        except RecursionError:
            raise EvaluationError("the expression nests deeper than the evaluator supports") from None
        except Exception as err:  # cel-python lets some exceptions escape raw; never pass them on
            raise EvaluationError(f"evaluation failed: {type(err).__name__}: {err}") from None
        if isinstance(result, celtypes.BoolType):
            return bool(result)
        name = cel_type_name(result)
        raise EvaluationError(f"CEL result of type {name} could not be converted to bool: "
                              f"type conversion error from '{name}' to 'bool'")


def _message(err: CELEvalError) -> str:
    text = str(err.args[0]) if err.args else "evaluation error"
    # cel-python appends the whole activation to some messages; keep them one line and short.
    return text.split(" (in activation", 1)[0]
