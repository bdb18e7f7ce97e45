"""Per-rule actions and rule options, validated in full when loaded.

One file format serves the webhook's ConfigMap, `draguard validate --policy FILE` and lint's
`.draguard.yaml`:

    rules:                 # per-rule action: deny | warn | audit | off (an unknown rule id is an error)
      <rule-id>: warn      # any id `draguard rules` lists
    numaNode:
      listForm: allow      # allow | warn | deny: for clusters whose scheduler lacks list semantics
      aliases: [dra.net/numaNode, dra.cpu/numaNodeID, dra.memory/numaNode, dra.nvme/numaNode]
    listTypes: enabled     # enabled | disabled: DRAListTypeAttributes on or off (draguard's default: on)
    kubernetes: "1.37"     # the API server release to mirror: 1.34, 1.35, 1.36 or 1.37 (default: the newest)
    featureGates:          # the cluster's DRA feature gates where they differ from the release's defaults
      DRAPartitionableDevicesType: true
    ignore: []             # path globs skipped by lint/validate

`<driver>/numaNode` and `<driver>/numa` are always aliases; the list adds vendor names shared across drivers.

The policy is configuration below the rules: it names no rule. Which rule ids exist and what each one does by
default is the rule catalogue's knowledge (`webhook.rules`), handed down as a `RuleBook`: loaders pass it
(`Policy.load(path, rules=BOOK)`), and a policy built without one uses the catalogue `webhook.rules` binds
(`bind_rules`) when it is imported. The book refuses unknown ids at load and fills in default actions.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from webhook.errors import DraguardError
from webhook.findings import Action
from webhook.profiles import NEWEST, Profile, load_profile

ListForm = Literal["allow", "warn", "deny"]
LIST_FORMS: tuple[ListForm, ...] = ("allow", "warn", "deny")
DEFAULT_ALIASES = ("dra.net/numaNode", "dra.cpu/numaNodeID", "dra.memory/numaNode", "dra.nvme/numaNode")
_TOP_KEYS = ("rules", "numaNode", "listTypes", "kubernetes", "featureGates", "ignore")
LIST_GATE = "DRAListTypeAttributes"
# Process-wide `--kubernetes-version` / `--feature-gates` of `draguard serve`: applied to every policy the
# webhook loads, including each reload of its file (the command line wins over the file).
_COMMAND_LINE: dict[str, Any] = {}
_NUMA_KEYS = ("listForm", "aliases")


class RuleBook(Protocol):
    """What the policy needs to know of the rules: supplied from above by the catalogue (`bind_rules`)."""

    def __contains__(self, rule_id: object) -> bool: ...

    def default_action(self, rule_id: str, policy: Policy) -> Action:
        """The action of a rule the policy's `rules:` does not name (it may follow one of the policy's options)."""
        ...


_BOUND: list[RuleBook] = []  # the catalogue `webhook.rules` bound at its import; a list: no `global` needed


def bind_rules(book: RuleBook) -> None:
    """Called by `webhook.rules` once its catalogue is built: the book of a policy built without one."""
    _BOUND[:] = [book]


def bound_rules() -> RuleBook:
    """The bound catalogue; loaders pass theirs (`rules=`), which has bound it by being imported."""
    if not _BOUND:
        raise RuntimeError("no rule catalogue is bound: import webhook.rules before loading or asking a policy")
    return _BOUND[0]


@dataclass(frozen=True, slots=True)
class Policy:
    """What to do with each rule's findings, and the options some rules read."""

    actions: Mapping[str, Action] = field(default_factory=dict)  # only the rules the file names
    list_form: ListForm = "allow"
    aliases: tuple[str, ...] = DEFAULT_ALIASES
    list_types: bool = True  # DRAListTypeAttributes unless feature_gates names it; read back as the gate's value
    ignore: tuple[str, ...] = ()
    source: str = "<default>"
    kubernetes: str = NEWEST
    feature_gates: Mapping[str, bool] = field(default_factory=dict)  # overrides of the release's defaults
    # The catalogue the ids were checked against and defaults come from; None: the bound one (`bind_rules`).
    rules: RuleBook | None = field(default=None, repr=False, compare=False)
    # The release and its gates (computed): what the Kubernetes parity rules mirror.
    profile: Profile = field(init=False, repr=False, compare=False)
    # Resolved actions, filled on first use: the webhook asks twice per rule per request.
    _resolved: dict[str, Action] = field(default_factory=dict, init=False, repr=False, compare=False)
    # Values derived from this policy alone, filled on first use by the code that derives them (the runner keeps
    # the rules it runs per kind here): a policy is immutable, so they hold for as long as it is in force.
    memo: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        base = load_profile(self.kubernetes, f"policy {self.source}: kubernetes")
        gates = dict(self.feature_gates)
        if LIST_GATE not in gates and LIST_GATE in base.gate_specs:
            gates[LIST_GATE] = self.list_types  # draguard's listTypes option (default on) names this gate
        profile = base.with_gates(gates, f"policy {self.source}: featureGates")
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "list_types", profile.enabled(LIST_GATE))

    @classmethod
    def default(cls, *, rules: RuleBook | None = None) -> Policy:
        return cls(rules=rules).with_command_line()

    @classmethod
    def load(cls, path: str | Path, *, rules: RuleBook | None = None) -> Policy:
        """Read a policy file (YAML 1.2 or JSON); any problem is one DraguardError line naming the file.

        `rules` is the catalogue whose ids `rules:` may name (default: the bound one).
        """
        from ruamel.yaml import YAML
        from ruamel.yaml.error import MarkedYAMLError, YAMLError

        from webhook.manifests import aliases as yaml_aliases
        from webhook.manifests.problems import refused_character
        from webhook.manifests.sources import NotText, broken_link, cannot_read, read_file

        source = str(path)
        try:
            text = read_file(path)
        except FileNotFoundError:
            raise DraguardError(f"policy {source}: {broken_link(Path(path)) or 'no such file'}") from None
        except (NotText, OSError) as err:
            raise DraguardError(f"policy {source}: {cannot_read(err)}") from None
        yaml = YAML(typ="safe", pure=True)
        yaml.version = (1, 2)
        try:
            if "*" in text and "&" in text:  # refused as Kubernetes' YAML decoder refuses them, before expanding
                for root in yaml.compose_all(text):
                    yaml_aliases.check(root)
            data = yaml.load(text)
        except yaml_aliases.Refused as refused:
            raise DraguardError(f"policy {source}:{refused.line}:{refused.column}: invalid YAML: {refused.message}") \
                from None
        except MarkedYAMLError as err:  # one line, placed like validate's input problems: file:line:col
            mark = err.problem_mark or err.context_mark
            where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
            raise DraguardError(f"policy {where}: invalid YAML: {_one_line(err.problem or err.context)}") from None
        except (YAMLError, ValueError) as err:
            character = refused_character(err, text)
            if character is not None:
                raise DraguardError(f"policy {character._replace(source=source)}") from None
            raise DraguardError(f"policy {source}: invalid YAML: {_one_line(str(err))}") from None
        return cls.from_mapping({} if data is None else data, source, rules=rules).with_command_line()

    @classmethod
    def from_mapping(cls, data: object, source: str = "<policy>", *, rules: RuleBook | None = None) -> Policy:
        """Build a policy from decoded YAML/JSON; the first bad key or value is one DraguardError line."""
        if not isinstance(data, Mapping):
            raise DraguardError(f"policy {source}: expected a mapping with keys {', '.join(_TOP_KEYS)}")
        _unknown_keys(data, _TOP_KEYS, source, "")
        numa = data.get("numaNode", {}) or {}
        if not isinstance(numa, Mapping):
            raise DraguardError(f"policy {source}: numaNode: expected a mapping with keys {', '.join(_NUMA_KEYS)}")
        _unknown_keys(numa, _NUMA_KEYS, source, "numaNode.")
        policy = cls(
            actions=_actions(data.get("rules", {}), source, rules),
            list_form=_list_form(numa.get("listForm", "allow"), source),
            aliases=_strings(numa.get("aliases", list(DEFAULT_ALIASES)), source, "numaNode.aliases", alias=True),
            list_types=_list_types(data.get("listTypes", "enabled"), source),
            ignore=_strings(data.get("ignore", []), source, "ignore"),
            source=source,
            kubernetes=_version(data.get("kubernetes", NEWEST), source),
            feature_gates=_gates(data.get("featureGates", {}), data.get("listTypes"), source),
            rules=rules,
        )
        if data.get("listTypes") in ("enabled", True) and LIST_GATE not in policy.profile.gate_specs:
            raise DraguardError(f"policy {source}: listTypes: Kubernetes {policy.kubernetes} has no {LIST_GATE} "
                                "gate (list attributes arrive in 1.36); leave listTypes out")
        return policy

    def action(self, rule_id: str) -> Action:
        """The action for `rule_id`: the file's choice, else the catalogue's default for this policy."""
        action = self._resolved.get(rule_id)
        if action is None:
            action = self._resolved[rule_id] = self._resolve(rule_id)
        return action

    def _resolve(self, rule_id: str) -> Action:
        chosen = self.actions.get(rule_id)
        return chosen if chosen is not None else self.rule_book().default_action(rule_id, self)

    def knows(self, rule_id: str) -> bool:
        """Whether `rule_id` names a rule of the catalogue (what `rules:` and suppressions may name)."""
        return rule_id in self.rule_book()

    def rule_book(self) -> RuleBook:
        return self.rules if self.rules is not None else bound_rules()

    def with_list_types(self, enabled: bool) -> Policy:
        """`--list-types`: DRAListTypeAttributes on or off (off is a no-op on a release without the gate)."""
        if LIST_GATE not in self.profile.gate_specs and not enabled:
            return self
        return self.with_profile(gates={LIST_GATE: enabled}, source="--list-types")

    def with_profile(
        self, version: str | None = None, gates: Mapping[str, bool] | None = None, source: str = "--feature-gates"
    ) -> Policy:
        """This policy for another release and/or with more gate overrides (the command line wins over the file)."""
        merged = {**self.feature_gates, **(gates or {})}
        if version is not None and version != self.kubernetes:
            load_profile(version)  # an unsupported version is named as the flag's problem
            # The file's gates were chosen for its release: keep those the new release knows.
            known = load_profile(version).gate_specs
            merged = {g: v for g, v in self.feature_gates.items() if g in known} | dict(gates or {})
        try:
            return replace(self, kubernetes=version or self.kubernetes, feature_gates=merged)
        except DraguardError as err:
            raise DraguardError(err.message.replace(f"policy {self.source}: featureGates", source)) from None

    def with_command_line(self) -> Policy:
        """This policy with the process-wide `--kubernetes-version` / `--feature-gates` (see `set_command_line`)."""
        if not _COMMAND_LINE:
            return self
        return self.with_profile(_COMMAND_LINE.get("version"), _COMMAND_LINE.get("gates"))


def set_command_line(version: str | None, gates: Mapping[str, bool] | None) -> None:
    """Remember `serve`'s profile flags for every policy loaded later in this process (and its workers)."""
    _COMMAND_LINE.clear()
    if version is not None or gates:
        load_profile(version).with_gates(gates or {}, "--feature-gates")  # fail now, not on the first reload
        _COMMAND_LINE.update(version=version, gates=dict(gates or {}))


def _one_line(text: object) -> str:
    return " ".join(str(text or "cannot parse").split())


def _unknown_keys(data: Mapping[Any, Any], known: tuple[str, ...], source: str, prefix: str) -> None:
    for key in data:
        if key not in known:
            raise DraguardError(f"policy {source}: unknown key {prefix}{key}; known keys: {', '.join(known)}")


def _actions(rules: object, source: str, book: RuleBook | None) -> dict[str, Action]:
    if rules is None:
        return {}
    if not isinstance(rules, Mapping):
        raise DraguardError(f"policy {source}: rules: expected a mapping of rule id to deny, warn, audit or off")
    actions: dict[str, Action] = {}
    for rule_id, value in rules.items():
        if rule_id not in (book if book is not None else bound_rules()):
            raise DraguardError(f"policy {source}: rules: unknown rule id {rule_id!r} (see `draguard rules`)")
        if not isinstance(value, str):
            raise DraguardError(f"policy {source}: rules.{rule_id}: expected deny, warn, audit or off, got {value!r}")
        try:
            actions[str(rule_id)] = Action.parse(value)
        except ValueError as err:
            raise DraguardError(f"policy {source}: rules.{rule_id}: {err}") from None
    return actions


def _list_form(value: object, source: str) -> ListForm:
    for form in LIST_FORMS:
        if value == form:
            return form
    raise DraguardError(f"policy {source}: numaNode.listForm: expected allow, warn or deny, got {value!r}")


def _list_types(value: object, source: str) -> bool:
    if value in ("enabled", True):
        return True
    if value in ("disabled", False):
        return False
    raise DraguardError(f"policy {source}: listTypes: expected enabled or disabled, got {value!r}")


def _version(value: object, source: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DraguardError(f"policy {source}: kubernetes: expected a release like \"1.36\", got {value!r}")
    text = str(value)
    load_profile(text, f"policy {source}: kubernetes")
    return text


def _gates(value: object, list_types: object, source: str) -> dict[str, bool]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping) or not all(isinstance(v, bool) for v in value.values()):
        raise DraguardError(f"policy {source}: featureGates: expected a mapping of gate name to true or false, "
                            f"got {value!r}")
    gates = {str(k): bool(v) for k, v in value.items()}
    if list_types is not None and LIST_GATE in gates and gates[LIST_GATE] != _list_types(list_types, source):
        raise DraguardError(f"policy {source}: listTypes and featureGates.{LIST_GATE} disagree; set one of them")
    return gates


def _strings(value: object, source: str, key: str, *, alias: bool = False) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise DraguardError(f"policy {source}: {key}: expected a list of non-empty strings, got {value!r}")
    if alias:
        for name in value:
            domain, slash, ident = name.partition("/")
            if not slash or not domain or not ident or "/" in ident:
                raise DraguardError(f"policy {source}: {key}: {name!r} is not a qualified name like dra.net/numaNode")
    return tuple(value)
