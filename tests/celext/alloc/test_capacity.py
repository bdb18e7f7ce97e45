"""Consumable capacity: request policies, defaults, name resolution and shares of one device."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from celext.alloc.capacity import consume

MEMORY = {
    "name": "memory-0",
    "allowMultipleAllocations": True,
    "capacity": {"size": {"value": "128Gi", "requestPolicy": {
        "default": "1Mi", "validRange": {"min": "4Ki", "max": "128Gi", "step": "4Ki"}}}},
}
GI = Decimal(2**30)


def test_request_is_rounded_up_to_the_step() -> None:
    assert consume({"size": "5Ki"}, MEMORY, "dra.memory") == {"size": Decimal(8192)}
    assert consume({"size": "64Gi"}, MEMORY, "dra.memory") == {"size": 64 * GI}


def test_capacity_names_are_compared_exactly_as_upstream_does() -> None:
    # requestsContainNonExistCapacity looks the request's key up in the device's capacity map as is
    assert consume({"dra.memory/size": "64Gi"}, MEMORY, "dra.memory") == (
        "publishes no capacity dra.memory/size (it publishes size; the allocator compares capacity names exactly)")
    qualified = {"capacity": {"dra.memory/size": MEMORY["capacity"]["size"]}}
    assert consume({"size": "64Gi"}, qualified, "dra.memory") == (
        "publishes no capacity size (it publishes dra.memory/size; the allocator compares capacity names exactly)")
    assert consume({"dra.memory/size": "64Gi"}, qualified, "dra.memory") == {"dra.memory/size": 64 * GI}


def test_no_request_takes_the_policy_default() -> None:
    assert consume({}, MEMORY, "dra.memory") == {"size": Decimal(2**20)}


def test_too_much_is_refused_with_what_the_device_has() -> None:
    assert consume({"size": "256Gi"}, MEMORY, "dra.memory") == (
        "size: 256Gi is not allowed by the device's request policy")
    taken = {"size": 100 * GI}
    assert consume({"size": "64Gi"}, MEMORY, "dra.memory", taken) == (
        "size: needs 64Gi, the device has 128Gi (100Gi already taken by this claim)")


def test_unknown_capacity_name_skips_the_device() -> None:
    assert consume({"dra.cpu/cpu": "4"}, MEMORY, "dra.memory") == "publishes no capacity dra.cpu/cpu"


def test_valid_values_round_up_and_plain_values_need_no_policy() -> None:
    device: dict[str, Any] = {"capacity": {"bw": {"value": "10G", "requestPolicy": {"validValues": ["1G", "5G"]}},
                                           "slots": {"value": "4"}}}
    assert consume({"bw": "2G", "slots": "3"}, device, "net") == {"bw": Decimal(5 * 10**9), "slots": Decimal(3)}
    assert consume({"bw": "6G"}, device, "net") == "bw: 6G is not allowed by the device's request policy"
