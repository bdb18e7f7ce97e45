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


def test_request_is_rounded_up_to_the_step_and_qualified_with_the_driver() -> None:
    assert consume({"size": "5Ki"}, MEMORY, "dra.memory") == {"dra.memory/size": Decimal(8192)}
    assert consume({"dra.memory/size": "64Gi"}, MEMORY, "dra.memory") == {"dra.memory/size": 64 * GI}


def test_no_request_takes_the_policy_default() -> None:
    assert consume({}, MEMORY, "dra.memory") == {"dra.memory/size": Decimal(2**20)}


def test_too_much_is_refused_with_what_the_device_has() -> None:
    assert consume({"size": "256Gi"}, MEMORY, "dra.memory") == (
        "dra.memory/size: 256Gi is not allowed by the device's request policy")
    taken = {"dra.memory/size": 100 * GI}
    assert consume({"size": "64Gi"}, MEMORY, "dra.memory", taken) == (
        "dra.memory/size: needs 64Gi, the device has 128Gi (100Gi already taken by this claim)")


def test_unknown_capacity_name_skips_the_device() -> None:
    assert consume({"dra.cpu/cpu": "4"}, MEMORY, "dra.memory") == "publishes no capacity dra.cpu/cpu"


def test_valid_values_round_up_and_plain_values_need_no_policy() -> None:
    device: dict[str, Any] = {"capacity": {"bw": {"value": "10G", "requestPolicy": {"validValues": ["1G", "5G"]}},
                                           "slots": {"value": "4"}}}
    assert consume({"bw": "2G", "slots": "3"}, device, "net") == {"net/bw": Decimal(5 * 10**9),
                                                                  "net/slots": Decimal(3)}
    assert consume({"bw": "6G"}, device, "net") == "net/bw: 6G is not allowed by the device's request policy"
