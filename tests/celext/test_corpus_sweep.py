"""Every corpus selector on every corpus device: a bool or an upstream-style EvaluationError, never an
internal failure (a raw Python exception or a cel-python class name in the message)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

import celext
from celext.alloc.pools import slice_devices


def _devices(corpus: Path) -> list[tuple[Any, str]]:
    yaml = YAML(typ="safe")
    found: list[tuple[Any, str]] = []
    for path in sorted(corpus.rglob("*.yaml")):
        try:
            documents = list(yaml.load_all(path.read_text()))
        except Exception:  # fragments that are not YAML documents
            continue
        found += [(celext.to_device(d, driver), driver) for d, driver in slice_devices(documents)]
    return found


def test_corpus_selectors_on_corpus_devices(corpus: Path) -> None:
    devices = _devices(corpus)
    assert len(devices) > 200
    expressions = [e["expression"] for e in YAML(typ="safe").load((corpus / "cel-expressions.yaml").read_text())
                   ["expressions"]]
    outcomes: dict[str, int] = {"match": 0, "no match": 0, "error": 0}
    for expression in expressions:
        try:
            selector = celext.compile(expression)
        except celext.CompileError:
            continue
        for device, driver in devices:
            try:
                outcomes["match" if selector.matches(device, driver) else "no match"] += 1
            except celext.EvaluationError as err:
                outcomes["error"] += 1
                assert "evaluation failed" not in err.message, (expression, err.message)
                assert "class '" not in err.message, (expression, err.message)
    assert outcomes["match"] > 1000 and outcomes["no match"] > 10000
