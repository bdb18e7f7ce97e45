"""Emitting device reads: constant paths as wire-form dict lookups (see celext.plan.device)."""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.plan.core import Block, EmitterCore
from celext.plan.device import DevicePath, device_path
from celext.syntax.nodes import Tree


class DeviceEmitter(EmitterCore):
    def _device(self, path: DevicePath, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """A constant device path read from the wire form (see celext.plan.device), once per block: a read
        repeated where the first one is known to have run reuses its value."""
        head = path.head
        if head == "driver":
            out = self.tmp()
            block.add(f"{out} = NEW_STR(STRING, driver or '')")
            self.kinds[out] = "STRING"
            return out
        if head == "allowMultipleAllocations":
            out = self.tmp()
            block.add(f"{out} = TRUE if B.get('allowMultipleAllocations') is True else FALSE")
            self.kinds[out] = "BOOL"
            return out
        known = block.recall(path)
        if known is not None:
            return known
        out = self.tmp()
        table = "A" if head == "attributes" else "C"
        decode = "rt_attribute" if head == "attributes" else "rt_capacity"
        raw = self._lookup(path, table, block)
        if path.kind == "has":
            block.add(f"{out} = FALSE if {raw} is ABSENT else TRUE")
            self.kinds[out] = "BOOL"
        elif path.kind == "optional":
            block.add(f"{out} = OPT_NONE if {raw} is ABSENT else OPT_OF({decode}({raw}))")
        else:
            block.add(f"{out} = rt_no_key({path.ident!r}) if {raw} is ABSENT else {decode}({raw})")
        return block.remember(path, out)

    def _lookup(self, path: DevicePath, table: str, block: Block) -> str:
        """The raw wire entry (or ABSENT): one dict lookup unless the domain is the driver's own. The table is
        fetched here, where it is first needed (a short-circuit may never get here)."""
        key = ("raw", path.head, path.domain, path.ident)
        known = block.recall(key)
        if known is not None:
            return known
        field = "attributes" if table == "A" else "capacity"
        entries = block.recall(field)
        if entries is None:
            entries = block.remember(field, self.tmp())
            block.add(f"{entries} = B.get({field!r})")
            block.add(f"if type({entries}) is not dict: {entries} = rt_entries(B, {field!r})")
        raw = self.tmp()
        general = f"rt_lookup({entries}, driver, {path.domain!r}, {path.ident!r})"
        if "/" in path.domain:
            block.add(f"{raw} = {general}")
        elif "/" in path.ident:  # the driver's own domain has no bare spelling of such an id
            qualified = f"{path.domain}/{path.ident}"
            block.add(f"{raw} = {entries}.get({qualified!r}, ABSENT)")
        else:
            # The driver's own domain, written out (wire.lookup's rule, without a call or a key built per device):
            # the qualified spelling, else the bare one; both present, wire.lookup finds the later one.
            qualified, spelt = f"{path.domain}/{path.ident}", self.tmp()
            own = (f"({entries}.get({path.ident!r}, ABSENT) if ({spelt} := {entries}.get({qualified!r}, ABSENT)) "
                   f"is ABSENT else {spelt} if {path.ident!r} not in {entries} else {general})")
            block.add(f"{raw} = {own} if driver == {path.domain!r} else {entries}.get({qualified!r}, ABSENT)")
        return block.remember(key, raw)

    def _driver_relation(self, operator: str, left_tree: Tree[Any], right_tree: Tree[Any],
                         scope: dict[str, str]) -> str | None:
        """`device.driver == "x"` / `!=`: the driver string compared as it comes (no CEL value built)."""
        path = device_path(left_tree, scope)
        if path is None or path.head != "driver" or right_tree.data != "primary" \
                or right_tree.children[0].data != "const" \
                or type(right_tree.children[0].children[0]) is not celvalues.StringType:
            return None
        if operator not in ("relation_eq", "relation_ne"):
            return None
        # A plain str literal: a StringType operand would make `==` call its Python-level __eq__ (it is a
        # subclass, so Python asks it first), many times the cost of the builtin comparison.
        constant = str(right_tree.children[0].children[0])
        symbol = "==" if operator == "relation_eq" else "!="
        return f"TRUE if (driver or '') {symbol} {constant!r} else FALSE"  # TRUE or FALSE itself


def device_table(node: Tree[Any], scope: dict[str, str]) -> str | None:
    """"attributes" / "capacity" for `device.attributes` / `device.capacity`, else None."""
    if node.data == "member_dot" and str(node.children[1]) in ("attributes", "capacity"):
        target = node.children[0]
        if target.data == "primary" and target.children[0].data == "ident" \
                and str(target.children[0].children[0]) == "device" and "device" not in scope:
            return str(node.children[1])
    return None
