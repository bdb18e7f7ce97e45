"""Selector: one compiled expression, evaluated on many devices.

Two engines behind one API (`celext.compile(expression, engine=...)`):
- "compiled" (the default): the expression is generated as a Python function (celext.plan) that reads the
  wire-form device directly. `evaluate()` calls it; `matches()` also remembers the answer per device object
  (celext.runtime.memo: a fleet is evaluated again and again, and an identity lookup costs less than any key
  built from the wire dict). A `to_device()` value is evaluated by the reference engine (already converted).
- "reference": the tree-walking evaluator (celext.reference.evaluator) with the result memo below; the oracle the
  compiled engine is tested against.

Reference-engine memo: Kubernetes evaluates a selector on every device of every slice. Devices repeat: a
fleet has few distinct values at the paths one selector reads (driver, a handful of attributes), so `matches()`
keys a memo on those values (paths derived from the syntax tree by `celext.analysis.paths.device_paths`) and evaluates
only on a miss. Raw wire-form devices are keyed straight from the wire form, so a hit costs no conversion at all.
Expressions whose device use is not a plain path (`size(device.attributes["d"])`) are evaluated every time.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

from celext import values as celvalues
from celext.check.guards import required_driver
from celext.compile import Path, Prepared
from celext.errors import EvaluationError
from celext.lib.optional_value import OptionalValue
from celext.lib.typenames import cel_type_name
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.plan import Plan, plan
from celext.quantity import Quantity
from celext.reference.operations import COST_EXCEEDED, COST_LIMIT, CostLimitExceeded, error_message
from celext.reference.values import ABSENT, Device, Index, path_key, to_device
from celext.runtime import ops
from celext.runtime.memo import DeviceMemo
from celext.runtime.verdict import device_error
from celext.semver import Semver
from celext.syntax.rewrite import check_expansion
from celext.values import CELEvalError
from celext.vocabulary import device_body

_STR = celvalues.StringType
_TRUE, _FALSE = ops.TRUE, ops.FALSE  # the generated code's booleans (anything else takes _boolean)
SEEN_SIZE = 16_384  # devices per selector whose answer the compiled engine remembers
MEMO_SIZE = 65_536  # entries per selector; the memo is dropped and rebuilt when full
_MISS: Any = object()
_UNKEYED: Any = object()  # the device cannot be keyed (it would fail conversion): evaluate it


def _keyer(paths: tuple[Path, ...]) -> Callable[[Index], Any]:
    """The memo key of a converted device: its interned value ids at `paths` (None = absent).

    `operator.itemgetter` builds the key in C; the index answers None for absent paths (see values.Index).
    """
    if not paths:
        return lambda index: ()
    return operator.itemgetter(*(path_key(p) for p in paths))


def _wire_key(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _wire_key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_wire_key(v) for v in value)
    return (type(value), value)


def _wire_lookup(body: Mapping[str, Any], driver: str, path: Path) -> Any:
    head = path[0]
    if head == "driver":
        return driver
    if head == "allowMultipleAllocations":
        return body.get("allowMultipleAllocations") is True
    entries = body.get(head)
    if not isinstance(entries, Mapping):  # not a map: no entries, as the conversion reads it
        entries = {}
    domain, ident = path[1], path[2]
    qualified = entries.get(f"{domain}/{ident}", ABSENT)
    bare = entries.get(ident, ABSENT) if domain == driver else ABSENT
    return (_wire_key(qualified) if qualified is not ABSENT else ABSENT,
            _wire_key(bare) if bare is not ABSENT else ABSENT)


class Selector:
    """A compiled DRA device selector. Thread-safe; create it with `celext.compile()`."""

    __slots__ = ("_answers", "_cost_limit", "_keyed", "_keyer", "_lock", "_memo", "_paths",
                 "_plan", "_prepared", "_seen", "engine", "expression")

    def __init__(self, prepared: Prepared, *, cost_limit: int = COST_LIMIT, engine: str = "compiled") -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r} (one of: {', '.join(ENGINES)})")
        self.expression = prepared.expression
        self.engine = engine
        if engine == "reference":
            check_expansion(prepared.tree)  # (it walks each use of a binding)
        self._plan: Plan | None = plan(prepared) if engine == "compiled" else None
        self._seen = DeviceMemo(SEEN_SIZE)  # compiled engine: answers per device object (celext.runtime.memo)
        self._answers = self._seen.entries  # its table, read inline by matches()
        self._prepared = prepared
        self._paths: tuple[Path, ...] | None = None
        self._keyer: Callable[[Index], Any] | None = None
        self._keyed = False  # the compiled engine derives the memo's paths only for a to_device() value
        if engine == "reference":
            self._key_paths()
        self._cost_limit = cost_limit
        self._memo: dict[Any, bool | str] = {}
        self._lock = threading.Lock()

    @property
    def paths(self) -> frozenset[Path] | None:
        """The device paths the expression reads; None when not derivable (no memoisation)."""
        return self._prepared.paths

    @property
    def required_driver(self) -> str | None:
        """The driver a top-level `device.driver == "<name>"` conjunct requires: the selector is false on a device of
        any other driver that converts (celext.check.guards); None when it has no such conjunct."""
        checked = self._prepared.checked
        return None if checked is None else required_driver(checked.expr)

    @property
    def cost(self) -> tuple[int, int]:
        """cel-go's static cost estimate (min, max) in the DRA environment (see celext.cost)."""
        return self._prepared.cost

    @property
    def source(self) -> str | None:
        """The generated Python of the compiled engine (None for the reference engine): what the selector runs
        from its celext.plan.HOT_CALLS-th evaluation on (before that, and for a tree too large to generate, the
        compact form with the same answers, celext.plan)."""
        return None if self._plan is None else self._plan.source

    @property
    def size(self) -> int:
        """Approximate bytes this selector holds (the compile cache's budget counts them)."""
        return self._plan.size if self._plan is not None else 64 * len(self.expression) + 2048

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})" if self.engine == "compiled" else \
            f"Selector({self.expression!r}, engine={self.engine!r})"

    def evaluate(self, device: Mapping[str, Any], driver: str = "") -> bool:
        """Evaluate without any memo. Raises EvaluationError."""
        compiled = self._plan
        if compiled is not None and type(device) is not Device:
            # The user's path, so written out here rather than in a helper: the device's conversion verdict,
            # then the generated function.
            error = device_error(device, driver)
            if error is not None:
                raise EvaluationError(error)
            try:
                result = compiled.function(device, driver, self._cost_limit)
            except Exception as err:
                raise _failure(err) from None
            if result is _TRUE:
                return True
            return False if result is _FALSE else _boolean(result)
        value = to_device(device, driver)
        if value.error is not None:
            raise EvaluationError(value.error)
        return self._run(value)

    def matches(self, device: Mapping[str, Any], driver: str = "") -> bool:
        """Does the device match? `device` is a wire-form `spec.devices[i]` entry or a `to_device()` value
        (which already carries its driver; `driver` is then ignored). Raises EvaluationError."""
        # DeviceMemo.get written out, first: the face callers use most, and a hit costs less than any call. Only
        # the compiled engine stores answers, and only for plain dicts, so a hit is a dict the engine answered.
        seen = self._answers.get(id(device))
        if seen is not None:
            held, attributes, capacities, attribute_count, capacity_count, answer, key = seen  # one unpack, in C
            if held is device and key == driver:
                inner = device.get("basic") or device
                if inner.__class__ is dict and attributes is inner.get("attributes") \
                        and capacities is inner.get("capacity") and attribute_count == len(attributes or ()) \
                        and capacity_count == len(capacities or ()):
                    if answer is True or answer is False:
                        return answer
                    raise EvaluationError(answer)
        if self._plan is not None and type(device) is not Device:
            try:
                answer = self.evaluate(device, driver)
            except EvaluationError as err:
                answer = err.message
            self._seen.put(device, answer, driver)
            if answer.__class__ is str:
                raise EvaluationError(answer)
            return answer  # type: ignore[no-any-return]
        if not self._keyed:
            self._key_paths()
        if type(device) is Device and device.index is not None and self._keyer is not None:
            # The fast path: a converted device (convert once, evaluate many selectors); keys are interned
            # ints, so the lookup hashes in C.
            cached = self._memo.get(self._keyer(device.index))
            if cached is True or cached is False:
                return cached
        if self._paths is None:
            return self.evaluate(device, driver)
        key = self._key(device, driver)
        if key is _UNKEYED:
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

    def _key_paths(self) -> None:
        paths = self._prepared.paths  # derived from the tree on first use (celext.compile.Prepared)
        self._paths = None if paths is None else tuple(sorted(paths))
        self._keyer = None if self._paths is None else _keyer(self._paths)
        self._keyed = True

    def _key(self, device: Mapping[str, Any], driver: str) -> Any:
        assert self._paths is not None and self._keyer is not None
        if isinstance(device, Device):
            return _UNKEYED if device.index is None else self._keyer(device.index)
        if not isinstance(device, Mapping) or device_error(device, driver) is not None:
            return _UNKEYED  # evaluated, so the conversion error is raised as the compiled engine raises it
        body = device_body(device)
        return ("wire", driver, *(_wire_lookup(body, driver, p) for p in self._paths))

    def _run(self, device: Device) -> bool:
        tree = self._prepared.tree

        from celext.reference.evaluator import base_activation, evaluate  # (cel-python: the reference engine only)

        def run(value: Device, _driver: str, limit: int) -> Any:
            # A scope holding `device` on top of the shared base (cel-python's evaluate() clones the base).
            activation = base_activation().nested_activation(vars={"device": cast(Any, value)})
            return evaluate(tree, activation, limit, ops.FUNCTION_TABLE)  # with recursion headroom

        return _finish(run, device, "", self._cost_limit)


ENGINES = ("compiled", "reference")


def _finish(run: Callable[[Any, str, int], Any], device: Any, driver: str, limit: int) -> bool:
    """Run one evaluation; the result as a bool, every failure as one EvaluationError (as the scheduler)."""
    try:
        result = run(device, driver, limit)
    except Exception as err:
        raise _failure(err) from None
    return _boolean(result)


def _failure(err: Exception) -> EvaluationError:
    if isinstance(err, EvaluationError):
        return err
    if isinstance(err, CELEvalError):
        return EvaluationError(error_message(err))
    if isinstance(err, CostLimitExceeded):
        return EvaluationError(COST_EXCEEDED)
    if isinstance(err, RecursionError):
        return EvaluationError("the expression nests deeper than the evaluator supports")
    # cel-python lets some exceptions escape raw; never pass them on
    return EvaluationError(f"evaluation failed: {type(err).__name__}: {err}")


def _boolean(result: Any) -> bool:
    """The selector's result as the DRA compiler takes it: `result.ConvertToNative(reflect.TypeOf(true))`, whose
    error it reports as `CEL result of type <TypeName> could not be converted to bool: <err>`. An optional is
    unwrapped first (cel-go `Optional.ConvertToNative`: its value converts, `optional.none()` fails)."""
    if isinstance(result, CELEvalError):
        raise EvaluationError(error_message(result))
    if isinstance(result, celvalues.BoolType):
        return bool(result)
    value = result
    while isinstance(value, OptionalValue):
        if not value.present:
            problem = "optional.none() dereference"
            break
        value = value.value
    else:
        if isinstance(value, celvalues.BoolType):
            return bool(value)
        problem = conversion_error(value)
    raise EvaluationError(f"CEL result of type {cel_type_name(result)} could not be converted to bool: {problem}")


# Each type's `ConvertToNative` error for a Go `bool` target: cel-go v0.26 common/types/*.go and Kubernetes'
# apiserver pkg/cel (semver.go, quantity.go, ip.go, cidr.go, url.go). In order: subclasses before their bases.
_NOT_BOOL: tuple[tuple[type, str], ...] = (
    (celvalues.IntType, "unsupported type conversion from 'int' to bool"),
    (celvalues.UintType, "unsupported type conversion from 'uint' to bool"),
    (celvalues.DoubleType, "type conversion error from Double to 'bool'"),
    (celvalues.StringType, "unsupported native conversion from string to 'bool'"),
    (celvalues.BytesType, "type conversion error from Bytes to 'bool'"),
    (celvalues.ListType, "type conversion error from list to 'bool'"),
    (celvalues.MapType, "type conversion error from map to 'bool'"),
    (celvalues.DurationType, "type conversion error from 'Duration' to 'bool'"),
    (celvalues.TimestampType, "type conversion error from 'Timestamp' to 'bool'"),
    (Semver, "type conversion error from 'Semver' to 'bool'"),
    (Quantity, "type conversion error from 'Quantity' to 'bool'"),
    (Addr, "type conversion error from 'IP' to 'bool'"),
    (Prefix, "type conversion error from 'CIDR' to 'bool'"),
    (URL, "type conversion error from 'URL' to 'bool'"),
    (type, "type conversion not supported for 'type'"),
    (Mapping, "type conversion error from map to 'bool'"),
)


def conversion_error(value: Any) -> str:
    """cel-go's error converting this non-bool, non-optional CEL value to a Go bool (`ConvertToNative`)."""
    if value is None:
        return "type conversion error from 'null_type' to 'bool'"  # types.Null: `'%v'` of NullType
    for cls, text in _NOT_BOOL:
        if isinstance(value, cls):
            return text
    return f"type conversion error from '{cel_type_name(value)}' to 'bool'"
