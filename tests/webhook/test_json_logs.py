"""webhook.admission.logs: every log line is one JSON object, as `draguard serve` configures logging."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import sys

import pytest

from webhook.admission.logs import JSONFormatter, logging_config


def record(msg: str = "hello %s", args: tuple[object, ...] = ("world",), **extra: object) -> logging.LogRecord:
    rec = logging.LogRecord("draguard.admission", logging.WARNING, __file__, 1, msg, args, None)
    rec.created = 1767225600.1234  # 2026-01-01T00:00:00.123Z
    for key, value in extra.items():
        setattr(rec, key, value)
    return rec


def test_a_record_is_one_json_object_with_the_standard_keys() -> None:
    line = JSONFormatter().format(record())
    assert json.loads(line) == {"ts": "2026-01-01T00:00:00.123+00:00", "level": "warning",
                                "logger": "draguard.admission", "msg": "hello world", "policy": "default"}
    assert list(json.loads(line)) == ["ts", "level", "logger", "msg", "policy"]  # policy: the hash in force


def test_fields_are_merged_and_non_json_values_are_strings_and_unicode_stays() -> None:
    line = JSONFormatter().format(record("é", (), fields={"uid": "u-1", "latency": 0.5, "obj": object}))
    assert json.loads(line) == {"ts": "2026-01-01T00:00:00.123+00:00", "level": "warning",
                                "logger": "draguard.admission", "msg": "é", "policy": "default", "uid": "u-1",
                                "latency": 0.5,
                                "obj": "<class 'object'>"}
    assert "é" in line  # not \u00e9


def test_fields_that_are_not_a_mapping_are_ignored() -> None:
    assert "uid" not in json.loads(JSONFormatter().format(record(fields=["uid"])))


def test_an_exception_is_one_error_field_on_one_line() -> None:
    try:
        raise KeyError("boom")
    except KeyError:
        rec = record(exc_info=sys.exc_info())
    line = JSONFormatter().format(rec)
    assert "\n" not in line
    error = json.loads(line)["error"]
    assert error.startswith("Traceback (most recent call last):") and error.endswith("KeyError: 'boom'")


@pytest.mark.parametrize(("level", "shown"), [("info", ["info", "warning"]), ("warning", ["warning"])])
def test_logging_config_sends_json_to_stderr_at_the_level_given(
    monkeypatch: pytest.MonkeyPatch, level: str, shown: list[str]
) -> None:
    config = logging_config(level)
    assert config["root"]["level"] == level.upper()
    assert config["loggers"]["gunicorn.error"] == {"level": level.upper(), "handlers": ["stderr"], "propagate": False}
    assert config["loggers"]["gunicorn.access"] == {"level": "WARNING", "handlers": ["stderr"], "propagate": False}
    assert config["disable_existing_loggers"] is False
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    root = logging.getLogger()
    saved = (root.level, list(root.handlers))
    gunicorn = [logging.getLogger(n) for n in ("gunicorn.error", "gunicorn.access")]
    saved_gunicorn = [(g.level, list(g.handlers), g.propagate) for g in gunicorn]
    try:
        logging.config.dictConfig(config)
        logger = logging.getLogger("draguard.test-json-logs")
        logger.debug("d")
        logger.info("i")
        logger.warning("w")
    finally:
        for handler in root.handlers:
            if handler not in saved[1]:
                root.removeHandler(handler)
        for handler in saved[1]:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(saved[0])
        for g, (glevel, handlers, propagate) in zip(gunicorn, saved_gunicorn, strict=True):
            g.setLevel(glevel)
            g.handlers[:] = handlers
            g.propagate = propagate
    assert [json.loads(line)["level"] for line in stderr.getvalue().splitlines()] == shown
