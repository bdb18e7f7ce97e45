"""Emitting what the type checker makes certain (celext.plan.typed): an overload's code template from the
overload table, and Python's own `==`/`!=` on two operands typed alike as int, string or bool."""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.plan.core import Block, EmitterCore
from celext.plan.typed import typed_class
from celext.quantity import Quantity
from celext.semver import Semver
from celext.syntax.nodes import Tree

# The generated module's class names and the classes they stand for (constants' classes are known).
_CLASSES: dict[str, type] = {"INT": celvalues.IntType, "UINT": celvalues.UintType, "DOUBLE": celvalues.DoubleType,
                             "STRING": celvalues.StringType, "BOOL": celvalues.BoolType, "LIST": celvalues.ListType}
_LIBRARY_CLASSES: dict[str, type] = {"QUANTITY": Quantity, "SEMVER": Semver}  # put in the module when used
_CLASSES.update(_LIBRARY_CLASSES)
_EQUALITY = {"int": "int", "string": "str", "bool": "int"}  # checked kinds whose `==` is Python's


class TypedEmitter(EmitterCore):
    def _inline(self, node: Tree[Any], args: list[str], general: str, block: Block) -> str | None:
        """The checked overload's code template (celext.overloads), behind a guard on the classes of the
        operands whose class is not already certain; None when the checker leaves the overload open."""
        inline = self.typed.inline(node)
        if inline is None:
            return None
        guards = [f"{a}.__class__ is {kind}" for a, kind in zip(args, inline.classes, strict=True)
                  if not self._certain(a, kind)]
        for kind in inline.classes:
            if kind in _LIBRARY_CLASSES:
                self.constants[kind] = _LIBRARY_CLASSES[kind]
        out = self.tmp()
        code = inline.code(args)
        block.add(f"{out} = ({code}) if {' and '.join(guards)} else {general}" if guards else f"{out} = {code}")
        if not guards and inline.result:
            self.kinds[out] = inline.result
        return out

    def _certain(self, atom: str, kind: str) -> bool:
        if atom in self.constants:
            return type(self.constants[atom]) is _CLASSES.get(kind)
        return self.kinds.get(atom) == kind

    def _typed_equality(self, operator: str, trees: list[Any], args: list[str], general: str,
                        block: Block) -> str | None:
        """`==` / `!=` on two operands the checker types alike as int, string or bool: Python's equality."""
        if operator not in ("relation_eq", "relation_ne"):
            return None
        kinds = {self.typed.type_of(t) for t in trees}
        kind = next(iter(kinds)).kind if len(kinds) == 1 and None not in kinds else None  # type: ignore[union-attr]
        base = _EQUALITY.get(str(kind))
        if base is None:
            return None
        method = "__eq__" if operator == "relation_eq" else "__ne__"
        return self._guarded(f"TRUE if {base}.{method}({{0}}, {{1}}) else FALSE", args, typed_class(str(kind)),
                             general, block)

    def _guarded(self, template: str, args: list[str], kind: str, general: str, block: Block) -> str:
        guards = [f"{a}.__class__ is {kind}" for a in args if not self._certain(a, kind)]
        out = self.tmp()
        code = template.format(*args)
        block.add(f"{out} = ({code}) if {' and '.join(guards)} else {general}" if guards else f"{out} = {code}")
        if not guards:
            self.kinds[out] = "BOOL"
        return out
