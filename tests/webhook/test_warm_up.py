"""`serve.warm_up`: what the master does once before forking the workers."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest

from webhook.admission import review
from webhook.serve import YOUNG_GC_THRESHOLD, warm_up


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


@pytest.mark.usefixtures("restored_gc")
def test_warm_up_freezes_what_exists_and_makes_young_collections_rare() -> None:
    older = gc.get_threshold()[1:]
    warm_up()
    assert gc.get_freeze_count() > 10_000  # the imported catalogue and celext, out of the collector's reach
    assert gc.get_threshold() == (YOUNG_GC_THRESHOLD, *older)  # the older generations keep theirs


def containers(value: object) -> int:
    if isinstance(value, dict):
        return 1 + sum(containers(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(containers(v) for v in value)
    return 0


def test_a_maximal_slice_decodes_to_fewer_containers_than_the_young_threshold() -> None:
    """So one review's objects, freed when it is answered, never set off a young collection of their own."""
    values = {f"prop{k}": {"int": k} for k in range(47)} | {"models": {"strings": [f"m{k}" for k in range(21)]}}
    devices = [{"name": f"gpu-{i}", "attributes": values, "capacity": {f"c{k}": {"value": "1"} for k in range(4)}}
               for i in range(64)]
    body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": {"uid": "u", "object": {"spec": {"devices": devices}}}}).encode()
    assert 3_000 < containers(review.decode(body)) < YOUNG_GC_THRESHOLD // 4
