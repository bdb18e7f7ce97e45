"""JSON log lines, one object per line, as controller-runtime's zap encoder and Gatekeeper write them.

`JSONFormatter` renders any record as `{"ts", "level", "logger", "msg", "policy", ...}` (`policy`: the hash of
the policy in force); fields passed with `extra={"fields": {...}}` are merged in, which is how the admission
views write their one line per request (uid, resource, name, operation, decision, rule ids, latency).
Exceptions become one `error` field with the traceback as a string, so a log line is always one line.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Mapping
from typing import Any

REQUEST_LOGGER = "draguard.admission"
_POLICY = ["default"]  # the hash of the policy this process serves; every line carries it


def set_policy_hash(policy_hash: str) -> None:
    _POLICY[0] = policy_hash


# One encoder for every line: `json.dumps` with options builds a new one per call.
_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False)


def log_fields(logger: logging.Logger, level: int, msg: str, fields: Mapping[str, Any],
               exc_info: BaseException | None = None) -> None:
    """`logger.log(level, msg, extra={"fields": fields}, exc_info=exc_info)`, without the walk up the stack that
    finds the caller's file and line for the record: no line this module writes shows them, and the request
    log line is written for every review. The caller has asked `isEnabledFor(level)`."""
    error = (type(exc_info), exc_info, exc_info.__traceback__) if exc_info is not None else None
    record = logger.makeRecord(logger.name, level, "(unknown file)", 0, msg, (), error, "(unknown function)",
                               {"fields": fields})
    logger.handle(record)


class JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "policy": _POLICY[0],
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, Mapping):
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return _ENCODER.encode(line)


def logging_config(level: str = "info") -> dict[str, Any]:
    """A `logging.config.dictConfig` (and gunicorn `logconfig_dict`) sending every logger as JSON to stderr."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JSONFormatter"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "WARNING", "handlers": ["stderr"], "propagate": False},
        },
    }
