"""What a user sees of many long warnings: each distinct finding is either shown or counted in the last line."""

from __future__ import annotations

from tests.builders import slice_with
from tests.webhook.reliability.test_fail_closed import client_for, review


def test_unknown_fields_alike_in_their_first_300_characters_are_counted_not_merged() -> None:
    prefix = "a" * 300
    device = {"name": "gpu-0", **{f"{prefix}{i}": 1 for i in range(5)}}
    response = client_for().post("/validate/resourceslices", json=review(slice_with(device))).get_json()["response"]
    assert response["allowed"] is True
    first, last = response["warnings"]
    assert first.startswith("[k8s-unknown-field] spec.devices[0].aaa")
    assert (len(first), first[-1]) == (256, "…")
    assert last == "[draguard] 4 more warning(s) not shown; run `draguard validate` on this object for all of them"
