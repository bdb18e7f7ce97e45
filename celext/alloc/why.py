"""The first reason a claim cannot be allocated on a node (draguard's own wording, not the scheduler's).

Asked only after the search failed. In order: a request without enough candidate devices (the
first one in claim order, as the allocator gives up there), else the constraint rejection the
search reached deepest, with the attribute values of every candidate of the requests it names,
else requests competing for the same devices. Selector errors met here (on devices the search
never reached) are listed, not raised: the scheduler would not have seen them either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from celext.alloc.capacity import consume
from celext.alloc.claim import ClaimError, Request
from celext.alloc.constraints import MatchAttribute, ValueSet, attribute_as_set, lookup_attribute, render_attribute
from celext.alloc.pools import Device
from celext.alloc.search import Search
from celext.alloc.taints import describe_taint, untolerated
from celext.errors import CELError

SHOWN = 8  # candidates listed per request before "and N more"


def _candidates(search: Search, request: Request, errors: list[str]) -> list[int]:
    found = []
    for i in range(len(search.devices)):
        try:
            if search.selectable(request, i):
                found.append(i)
        except ClaimError as err:
            search.memo[(request.name, i)] = False
            if len(errors) < 3:
                errors.append(str(err))
    return found


def _needed(request: Request) -> int:
    return 1 if request.all_devices else request.count


def _selector_counts(search: Search, request: Request) -> str:
    """How far devices get: `8 devices; 2 pass class gpu.nvidia.com; 1 passes the request selectors`."""
    total = len(search.devices)
    by_class = by_request = 0
    for device in search.devices:
        try:
            if not all(search.matcher(e, device.wire, device.driver) for e in request.class_selectors):
                continue
            by_class += 1
            if all(search.matcher(e, device.wire, device.driver) for e in request.selectors):
                by_request += 1
        except CELError:
            continue
    text = f"{total} device(s) on this node; {by_class} pass class {request.class_name}"
    if request.selectors and by_class:
        text += f"; {by_request} of those pass the request's selectors"
    return text


def why_not(search: Search, notes: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    reason, details = _why_not(search, notes)
    return reason, (*details, *_stale(search))


def _stale(search: Search) -> list[str]:
    """A note per list-semantics matchAttribute that refused devices with a set narrowed by devices the search
    had taken back (upstream's remove only counts down), so a combination that shares a value can be missed."""
    return [f"constraint #{i} ({c.label()}): {c.stale_rejections} device(s) were refused by the set narrowed by "
            "devices the search had already taken back; the allocator widens it again only when no device of "
            "the constraint is left, so combinations that do share a value can be missed, as in the scheduler"
            for i, c in enumerate(search.constraints) if isinstance(c, MatchAttribute) and c.stale_rejections]


def _why_not(search: Search, notes: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    errors: list[str] = []
    candidates = {r.name: _candidates(search, r, errors) for e in search.entries for r in e.options}
    details = list(notes)
    for entry in search.entries:
        short = [r for r in entry.options if len(candidates[r.name]) < _needed(r)]
        if len(short) < len(entry.options):
            continue
        for r in short:
            have = len(candidates[r.name])
            label = f"subrequest {r.name}" if entry.first_available else f"request {r.name}"
            details.append(f"{label}: {_selector_counts(search, r)}")
            if have and r.count > 1:
                details.append(f"{label}: {have} candidate(s), count {r.count}")
        details += [f"selector error: {e}" for e in errors]
        reason = (f"request {entry.name}: no device matches" if all(not candidates[r.name] for r in short)
                  else f"request {entry.name}: not enough matching devices")
        return reason, tuple(details)
    for entry in search.entries:
        roomy = {r.name: [i for i in candidates[r.name] if _room(search, r, i) is None] for r in entry.options}
        if any(len(roomy[r.name]) >= _needed(r) for r in entry.options):
            continue
        for r in entry.options:
            for i in candidates[r.name][:SHOWN]:
                details.append(f"{search.devices[i].id}: {_room(search, r, i)}")
        return f"request {entry.name}: no matching device has room for the requested capacity", tuple(details)
    for entry in search.entries:
        refused = {r.name: [i for i in candidates[r.name] if untolerated(search.devices[i].wire, r.tolerations)]
                   for r in entry.options}
        # an All request needs every device it found (allocateDevice refuses a tainted one: the request fails)
        if any(not refused[r.name] or (not r.all_devices and len(candidates[r.name]) - len(refused[r.name])
                                       >= _needed(r)) for r in entry.options):
            continue
        for r in entry.options:
            for i in refused[r.name][:SHOWN]:
                taint = untolerated(search.devices[i].wire, r.tolerations)
                details.append(f"{search.devices[i].id}: taint {describe_taint(taint or {})} not tolerated by {r.name}")
        return (f"request {entry.name}: matching devices have NoSchedule/NoExecute taints the request does not "
                "tolerate"), tuple(details)
    depth, index, problem = search.deepest
    if search.short[0] >= 0 and search.short[0] >= depth:
        return f"shared counters exhausted: {search.short[1]}", tuple(details)
    if depth >= 0 and problem is not None:
        constraint = search.constraints[index]
        details += _values(search, constraint.attribute, constraint.requests, candidates)
        return f"constraint #{index} ({constraint.label()}): {problem}", tuple(details)
    details += [f"request {name}: {len(found)} candidate(s)" for name, found in candidates.items()]
    return "the requests compete for the same devices: no way to give each its own", tuple(details)


def infeasible(search: Search) -> tuple[str, tuple[str, ...]] | None:
    """A list-semantics matchAttribute no allocation can satisfy, found before searching (or None).

    Every request the constraint covers places at least one device, and the common value must be among that
    device's values: so when the values offered by the candidates of each covered request have nothing in
    common, nothing fits, whatever the search order. Checked only when it cannot change the outcome the
    search would reach: no `allocationMode: All` request (upstream aborts those instead), every request with
    enough candidates (the first short request is the reason then), no selector error anywhere (the search
    could meet it and abort).
    """
    from celext.alloc.constraints import MatchAttribute

    options = [r for e in search.entries for r in e.options]
    if any(r.all_devices for r in options):
        return None
    try:
        candidates = {r.name: [i for i in range(len(search.devices)) if search.selectable(r, i)] for r in options}
    except ClaimError:
        return None
    if any(all(len(candidates[r.name]) < _needed(r) for r in e.options) for e in search.entries):
        return None
    for index, constraint in enumerate(search.constraints):
        if not isinstance(constraint, MatchAttribute) or constraint.semantics != "list":
            continue
        offers = _offers(search, constraint, candidates)
        if not offers or set.intersection(*(values for _, values in offers)):
            continue
        label = f"constraint #{index} ({constraint.label()})"
        details = tuple(_values(search, constraint.attribute, constraint.requests, candidates))
        empty = next((name for name, values in offers if not values), None)
        if empty is not None:
            return f"{label}: no candidate of request {empty} has a usable {constraint.attribute}", details
        shown = "; ".join(f"{name} offers {_show(values)}" for name, values in offers)
        return f"{label}: no value is shared by the candidates of every request: {shown}", details
    return None


def _offers(search: Search, constraint: MatchAttribute, candidates: dict[str, list[int]]
            ) -> list[tuple[str, set[tuple[str, object]]]]:
    """Per claim request the constraint covers (all its subrequests covered): the typed values its candidates
    offer. A request with an uncovered subrequest can be served without the constraint: it is left out."""
    offers = []
    for entry in search.entries:
        if not all(constraint.applies(r.name) for r in entry.options):
            continue
        values: set[tuple[str, object]] = set()
        for r in entry.options:
            for i in candidates[r.name]:
                device = search.devices[i]
                found = attribute_as_set(lookup_attribute(device.wire, device.driver, constraint.attribute))
                if found is not None:
                    values.update((found.type, v) for v in found.values)
        offers.append((entry.name, values))
    return offers


def _show(values: set[tuple[str, object]]) -> str:
    kinds = sorted({kind for kind, _ in values})
    return " and ".join(str(ValueSet(kind, frozenset(v for k, v in values if k == kind)))  # type: ignore[arg-type]
                        for kind in kinds)


def _room(search: Search, request: Request, index: int) -> str | None:
    """Why the device alone cannot give the request its capacity, or None."""
    device = search.devices[index]
    outcome = consume(request.capacity, device.wire, device.driver)
    return outcome if isinstance(outcome, str) else None


def _values(search: Search, attribute: str, requests: frozenset[str],
            candidates: dict[str, list[int]]) -> list[str]:
    lines = []
    for name, found in candidates.items():
        parent = name.partition("/")[0]
        if requests and name not in requests and parent not in requests:
            continue
        shown = ", ".join(_one(search.devices[i], attribute) for i in found[:SHOWN]) or "none"
        if len(found) > SHOWN:
            tally = Counter(render_attribute(lookup_attribute(search.devices[i].wire, search.devices[i].driver,
                                                              attribute)) for i in found)
            values = "; ".join(f"{value} ×{n}" for value, n in sorted(tally.items()))
            shown += f", and {len(found) - SHOWN} more (all values: {values})"
        lines.append(f"candidates for {name} ({attribute}): {shown}")
    return lines


def _one(device: Device, attribute: str) -> str:
    return f"{device.name} {render_attribute(lookup_attribute(device.wire, device.driver, attribute))}"
