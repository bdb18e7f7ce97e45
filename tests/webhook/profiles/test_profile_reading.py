"""The release profiles are read by the C YAML backend at start-up: the same data as ruamel's YAML 1.2 reading."""

from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from webhook.profiles import _DIR, SUPPORTED, _read


@pytest.mark.parametrize("version", SUPPORTED)
def test_every_profile_reads_as_ruamel_reads_it(version: str) -> None:
    text = (_DIR / f"{version}.yaml").read_text(encoding="utf-8")
    reference = json.loads(json.dumps(YAML(typ="safe", pure=True).load(text)))
    profile = _read(version)
    assert profile.version == str(reference["kubernetes"]) == version
    assert profile.served_versions == tuple(reference["servedVersions"])
    assert profile.messages == reference["messages"]
    assert {name: (spec.stage, spec.default, spec.locked) for name, spec in profile.gate_specs.items()} == {
        name: (spec["stage"], spec["default"], spec.get("locked", False))
        for name, spec in reference["featureGates"].items()}
    assert dict(profile.fields) == {key: tuple(gates) for key, gates in reference["fields"].items()}
    assert dict(profile.limits) == reference["limits"]
