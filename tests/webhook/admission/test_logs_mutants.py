"""The JSON log line's policy hash and the logging configuration's default level. Fast, so mutation testing runs
them first on `webhook.admission.logs` (tests/mutation)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from webhook.admission.logs import JSONFormatter, logging_config, set_policy_hash


def policy_of_a_line() -> str:
    record = logging.LogRecord("draguard.admission", logging.INFO, __file__, 1, "admission review", None, None)
    policy: str = json.loads(JSONFormatter().format(record))["policy"]
    return policy


@pytest.fixture
def policy_hash() -> Iterator[None]:
    before = policy_of_a_line()
    yield
    set_policy_hash(before)


def test_every_line_carries_the_policy_hash_set_last(policy_hash: None) -> None:
    set_policy_hash("sha256:abc")
    assert policy_of_a_line() == "sha256:abc"
    set_policy_hash("sha256:def")
    assert policy_of_a_line() == "sha256:def"


def test_the_default_level_is_info_for_the_root_and_gunicorn_s_errors() -> None:
    config = logging_config()
    assert (config["root"]["level"], config["loggers"]["gunicorn.error"]["level"],
            config["loggers"]["gunicorn.access"]["level"]) == ("INFO", "INFO", "WARNING")
    assert logging_config("debug")["root"]["level"] == "DEBUG"
