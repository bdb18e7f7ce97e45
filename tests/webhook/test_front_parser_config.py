"""`webhook.front.ConfigValues`: gunicorn's parser reads the worker's settings as plain attributes, with the same
limits and refusals as through gunicorn's own configuration (request line, header count, header size, at
limit-1, limit and limit+1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gunicorn import http
from gunicorn.config import Config

from webhook.front import ConfigValues
from webhook.serve import ServeOptions, gunicorn_settings

PATH = "/validate/resourceslices"


class _Socket:
    """What gunicorn's parser reads a request from: `recv` of the given bytes, then the end."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def recv(self, size: int) -> bytes:
        chunk, self.data = self.data[:size], self.data[size:]
        return chunk


def served_config() -> Config:
    """gunicorn's configuration as `draguard serve` sets it."""
    cfg = Config()
    settings = gunicorn_settings(ServeOptions(Path("tls.crt"), Path("tls.key")), "127.0.0.1")
    for name, value in settings.items():
        if name in cfg.settings:
            cfg.set(name, value)
    return cfg


def parsed(cfg: Any, head: bytes) -> str:
    """The request's method, path and headers as gunicorn parses them, or its refusal (type and text)."""
    try:
        req = next(http.get_parser(cfg, _Socket(head + b"\r\n"), ("127.0.0.1", 40000)))
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return f"{req.method} {req.path} {len(req.headers)} headers"


def request(path_chars: int = len(PATH), headers: int = 1, value_chars: int = 1) -> bytes:
    path = PATH + "?" + "a" * (path_chars - len(PATH) - 1) if path_chars > len(PATH) else PATH
    lines = [f"POST {path} HTTP/1.1", *[f"X-H{i}: " + "v" * value_chars for i in range(headers)]]
    return ("\r\n".join(lines) + "\r\n").encode()


def test_every_setting_reads_as_the_configuration_gives_it() -> None:
    cfg = served_config()
    values = ConfigValues(cfg)
    for name in cfg.settings:
        assert getattr(values, name) == getattr(cfg, name), name
    assert values.limit_request_line == 8190  # draguard's setting, not only gunicorn's default
    assert values.is_ssl is cfg.is_ssl  # not a setting: the configuration's own
    assert values.forwarded_allow_networks() == cfg.forwarded_allow_networks()


LINE = 8190  # limit_request_line as served; the line is `POST <path> HTTP/1.1`
EXTRA = len("POST  HTTP/1.1")
FIELD = 8190 - len("X-H0: ") - len("\r\n")  # limit_request_field_size counts a header line with its CRLF


@pytest.mark.parametrize(
    "head",
    [
        request(path_chars=LINE - EXTRA - 1),
        request(path_chars=LINE - EXTRA),
        request(path_chars=LINE - EXTRA + 1),
        request(headers=99),
        request(headers=100),
        request(headers=101),
        request(value_chars=FIELD - 1),
        request(value_chars=FIELD),
        request(value_chars=FIELD + 1),
    ],
    ids=["line-1", "line", "line+1", "fields-1", "fields", "fields+1", "size-1", "size", "size+1"],
)
def test_limits_and_refusals_are_gunicorns(head: bytes) -> None:
    cfg = served_config()
    assert parsed(ConfigValues(cfg), head) == parsed(cfg, head)


def test_the_limits_hold_at_their_edges() -> None:
    values = ConfigValues(served_config())
    assert parsed(values, request(path_chars=LINE - EXTRA)) == f"POST {PATH} 1 headers"
    assert parsed(values, request(path_chars=LINE - EXTRA + 1)).startswith("LimitRequestLine: ")
    assert parsed(values, request(headers=100)) == f"POST {PATH} 100 headers"
    assert parsed(values, request(headers=101)).startswith("LimitRequestHeaders: ")
    assert parsed(values, request(value_chars=FIELD)) == f"POST {PATH} 1 headers"
    assert parsed(values, request(value_chars=FIELD + 1)).startswith("LimitRequestHeaders: ")
