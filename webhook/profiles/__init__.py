"""Kubernetes release profiles: which ResourceSlice fields, limits and DRA feature gates an API server has (and
which claim and DeviceClass fields a gate guards).

One data file per release (`1.34.yaml` ... `1.37.yaml`, read once); no code branches per version. A
`Profile` is a release plus the cluster's feature-gate overrides:

    load_profile("1.36").with_gates({"DRAListTypeAttributes": True}).enabled("DRAListTypeAttributes")  ->  True

Validators ask a profile whether a field exists (`has_field`), whether the gates guarding it are on
(`field_enabled`), for a limit (`limit`), for the wording of the apimachinery messages (`messages`) and for
the few places where a release's validation reports at another path or checks one thing more (`key_error_path`,
`range_default_path`, `range_step_positive`, `range_bounds_int64`, `taint_effects`, `counter_model`,
`short_circuit_max_items`, `duplicate_device_path`, `skip_unchanged_taints`, `update_revalidates`,
`qualified_name_empty`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from webhook.errors import DraguardError

SUPPORTED = ("1.34", "1.35", "1.36", "1.37")
NEWEST = SUPPORTED[-1]
_DIR = Path(__file__).parent


class GateSpec(Struct, frozen=True):
    """A feature gate as the release ships it: stage, default, and whether the default is locked."""

    stage: str
    default: bool
    locked: bool = False


class Profile(Struct, frozen=True):
    version: str
    served_versions: tuple[str, ...]
    messages: str  # "content" (apimachinery >= 0.35) or "legacy" (0.34)
    gate_specs: Mapping[str, GateSpec]
    fields: Mapping[str, tuple[str, ...]]  # "spec.x" / "device.x" / "capacity.x" / "attribute.x" -> gates
    limits: Mapping[str, int | None]
    # Where validation.go differs between releases in what it reports (the `validation:` block of the file)
    key_error_path: str  # "key": a map key's errors at `map[key]` (<= 1.35); "map": at the map (1.36+)
    range_default_path: str  # "bound": default-vs-range errors at validRange.min/.max (<= 1.36); "default" (1.37)
    range_step_positive: bool  # `step > 0` is checked (1.37); before, a zero step fails with an internal error
    # with a step, an integer range's default, min, max and step must lie in [0, MaxInt64] (1.37, kubernetes#140666)
    range_bounds_int64: bool
    taint_effects: tuple[str, ...]  # sorted
    # KEP-4815's counter model: "inSlice" (1.34: sets and the devices consuming them in one slice, references
    # checked, limits are totals) or "ownSlice" (1.35+: sharedCounters and devices never in one slice)
    counter_model: str
    # an over-limit list is `Too many` alone (1.35+) or every item is validated first (1.34)
    short_circuit_max_items: bool
    duplicate_device_path: str  # a duplicate device name at `devices[i].name` ("name", 1.34) or `devices[i]` ("item")
    skip_unchanged_taints: bool  # on update, a device's unchanged taints are not validated again (1.35+)
    # on update, a claim's spec and a DeviceClass's config are validated as on create (1.34), or a claim's spec only
    # for immutability and a class's unchanged config not again (1.35+)
    update_revalidates: bool
    # an empty qualified name, domain or identifier: "required" (1.34: `Required value: name required`, ...) or
    # "invalid" (1.35+: `Invalid value: ""`)
    qualified_name_empty: str
    # declarative validation's `+k8s:beta` tags are enforced (1.37: DeclarativeValidationBeta on by default) and
    # replace the hand-written errors they cover, in their own words (a DeviceAttribute's union)
    declarative_beta: bool
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, gate: str) -> bool:
        """The gate's value in this cluster: the override, else the release's default; unknown gates are off."""
        if gate in self.overrides:
            return self.overrides[gate]
        spec = self.gate_specs.get(gate)
        return spec.default if spec is not None else False

    def has_field(self, key: str) -> bool:
        return key in self.fields

    def field_enabled(self, key: str) -> bool:
        """The field exists in this release and every gate guarding it is on."""
        gates = self.fields.get(key)
        return gates is not None and all(self.enabled(g) for g in gates)

    def disabled_gate(self, key: str) -> str | None:
        """The first gate guarding `key` that is off (None when the field is served)."""
        return next((g for g in self.fields.get(key, ()) if not self.enabled(g)), None)

    def field_names(self, scope: str) -> frozenset[str]:
        """The names of the fields of `scope` ("spec", "device", "capacity", "attribute") in this release."""
        return _field_names(self.version, scope)

    def limit(self, name: str) -> int | None:
        return self.limits[name]

    def describe(self, gate: str) -> str:
        """`DRAListTypeAttributes (alpha in Kubernetes 1.36, off by default; this cluster: off)`."""
        spec = self.gate_specs.get(gate)
        state = "on" if self.enabled(gate) else "off"
        if spec is None:
            return f"{gate} (not in Kubernetes {self.version})"
        default = "on" if spec.default else "off"
        return f"{gate} ({spec.stage} in Kubernetes {self.version}, {default} by default; this cluster: {state})"

    def with_gates(self, overrides: Mapping[str, bool], source: str = "featureGates") -> Profile:
        """This profile with `overrides` on top; an unknown gate or a locked one set against its lock is an error."""
        for gate, value in overrides.items():
            spec = self.gate_specs.get(gate)
            if spec is None:
                known = ", ".join(sorted(self.gate_specs))
                raise DraguardError(f"{source}: unknown feature gate {gate!r} for Kubernetes {self.version}; "
                                    f"known DRA gates: {known}")
            if spec.locked and value != spec.default:
                # The API server refuses to start with such a flag; its words.
                raise DraguardError(f"{source}: cannot set feature gate {gate} to {str(value).lower()}, "
                                    f"feature is locked to {str(spec.default).lower()} in Kubernetes {self.version}")
        return replace(self, overrides=MappingProxyType({**self.overrides, **overrides}))

    def gate_values(self) -> dict[str, bool]:
        """Every gate of the release with its value in this cluster."""
        return {gate: self.enabled(gate) for gate in sorted(self.gate_specs)}


def load_profile(version: str | None = None, source: str = "--kubernetes-version") -> Profile:
    """The profile of `version` (default: the newest supported); an unsupported one is one DraguardError line."""
    version = NEWEST if version is None else str(version)
    if version not in SUPPORTED:
        raise DraguardError(f"{source}: unsupported Kubernetes version {version!r}; supported: {', '.join(SUPPORTED)}")
    return _read(version)


@functools.cache
def _read(version: str) -> Profile:
    import json

    from webhook.manifests import libyaml

    path = _DIR / f"{version}.yaml"
    text = path.read_text(encoding="utf-8")
    fast = libyaml.load(text, str(path))  # YAML 1.2 in C; every command reads a profile at start-up
    if fast:
        data: Any = fast[0].obj
    else:  # pragma: no cover - PyYAML without libyaml
        from ruamel.yaml import YAML

        data = YAML(typ="safe", pure=True).load(text)
    data = json.loads(json.dumps(data))  # plain dicts and lists
    return Profile(
        version=str(data["kubernetes"]),
        served_versions=tuple(data["servedVersions"]),
        messages=str(data["messages"]),
        gate_specs=MappingProxyType({name: GateSpec(str(spec["stage"]), bool(spec["default"]),
                                                    bool(spec.get("locked", False)))
                                     for name, spec in data["featureGates"].items()}),
        fields=MappingProxyType({key: tuple(gates) for key, gates in data["fields"].items()}),
        limits=MappingProxyType(dict(data["limits"])),
        key_error_path=str(data["validation"]["keyErrorPath"]),
        range_default_path=str(data["validation"]["rangeDefaultPath"]),
        range_step_positive=bool(data["validation"]["rangeStepPositive"]),
        range_bounds_int64=bool(data["validation"]["rangeBoundsInt64"]),
        taint_effects=tuple(str(e) for e in data["validation"]["taintEffects"]),
        counter_model=str(data["validation"]["counterModel"]),
        short_circuit_max_items=bool(data["validation"]["shortCircuitMaxItems"]),
        duplicate_device_path=str(data["validation"]["duplicateDevicePath"]),
        skip_unchanged_taints=bool(data["validation"]["skipUnchangedTaints"]),
        update_revalidates=bool(data["validation"]["updateRevalidates"]),
        qualified_name_empty=str(data["validation"]["qualifiedNameEmpty"]),
        declarative_beta=bool(data["validation"]["declarativeBeta"]),
    )


@functools.cache
def _field_names(version: str, scope: str) -> frozenset[str]:
    return frozenset(key.partition(".")[2] for key in _read(version).fields if key.startswith(scope + "."))


def first_release(key: str) -> str | None:
    """The first supported release that has field `key` (for "added in 1.37" hints)."""
    return next((v for v in SUPPORTED if _read(v).has_field(key)), None)


def parse_gates(text: str, source: str = "--feature-gates") -> dict[str, bool]:
    """`Name=true,Other=false` (kube-apiserver's flag syntax) as a mapping; bad syntax is one DraguardError line."""
    gates: dict[str, bool] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, eq, value = item.partition("=")
        lowered = value.strip().lower()
        if not eq or not name.strip() or lowered not in ("true", "false"):
            raise DraguardError(f"{source}: {item!r} is not Name=true or Name=false")
        gates[name.strip()] = lowered == "true"
    return gates
