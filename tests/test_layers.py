"""The dependency direction of DESIGN.md, checked on the source.

- celext and certs never reach up (into webhook, or into the server libraries).
- No import circle inside `webhook/` or `celext/`. Every import statement counts: at module level, inside a
  function, and under `if TYPE_CHECKING:`. A function-level import is how a circle hides from Python (it
  would fail at module level), and a `TYPE_CHECKING` one still means neither module can be read, typed or
  tested without the other; "no circles" means none of these. A package's `__init__` is not counted as
  imported by its submodules (Python runs it first, but that is how packages work, not a dependency).
- No `_private` name imported from another module (a private submodule may be imported inside its package).
- Nothing below the commands imports `webhook/commands/`: only the commands themselves and `webhook/cli.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

FORBIDDEN = {
    "celext": {"webhook", "certs", "flask", "kubernetes", "gunicorn"},
    "certs": {"webhook", "celext", "flask"},
}
CHECKED = ("webhook", "celext")  # the packages whose import graph must be a one-way street
COMMANDS = "webhook.commands"
ABOVE_COMMANDS = frozenset({COMMANDS, "webhook.cli"})  # who may import a command module



@dataclass(frozen=True, slots=True)
class Import:
    importer: str  # the module holding the statement
    target: str  # the module imported (the nearest enclosing module of the repo)
    name: str | None  # the name taken from it with `from target import name`, None for a module


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_upwards(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(_imports(path) & FORBIDDEN[package])
        for path in sorted((REPO / package).rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def modules(root: Path, packages: tuple[str, ...] = CHECKED) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root`."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(root: Path, packages: tuple[str, ...] = CHECKED) -> Iterator[Import]:
    """Every import statement of the packages that reaches one of their modules, wherever it stands."""
    known = modules(root, packages)

    def enclosing(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = enclosing(alias.name)
                    if target is not None and target != module:
                        yield Import(module, target, None)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: `from . import x`, `from ..y import z`
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    if full in known:  # `from package import submodule`
                        if full != module:
                            yield Import(module, full, None)
                        continue
                    target = enclosing(base)
                    if target is not None and target != module:
                        yield Import(module, target, alias.name)


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the module count (a few hundred)
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def offences(root: Path, packages: tuple[str, ...] = CHECKED) -> set[str]:
    """Each circle, cross-module private import and import of a command from below, as one line."""
    found: set[str] = set()
    graph: dict[str, set[str]] = {}
    for imp in imports(root, packages):
        graph.setdefault(imp.importer, set()).add(imp.target)
        if imp.name is not None and _private(imp.name):
            found.add(f"private: {imp.importer} imports {imp.target}.{imp.name}")
        leaf = imp.target.rpartition(".")[2]
        if imp.name is None and _private(leaf) and not _inside(imp.importer, imp.target.rpartition(".")[0]):
            found.add(f"private: {imp.importer} imports {imp.target}")
        if _inside(imp.target, COMMANDS) and not any(_inside(imp.importer, top) for top in ABOVE_COMMANDS):
            found.add(f"upward: {imp.importer} imports {imp.target}")
    found.update(f"circle: {' -> '.join(component)}" for component in circles(graph))
    return found


def test_no_circles_private_imports_or_commands_imported_from_below() -> None:
    assert sorted(offences(REPO)) == []


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "webhook/__init__.py": "",
        "webhook/policy.py": "def defaults():\n    from webhook.rules import CATALOGUE\n    return CATALOGUE\n",
        "webhook/rules/__init__.py": "from webhook.rules import meta\nCATALOGUE = {}\n",
        "webhook/rules/meta.py": "from webhook.policy import defaults\n",
    })
    assert offences(root, ("webhook",)) == {"circle: webhook.policy -> webhook.rules -> webhook.rules.meta"}


def test_a_type_checking_import_and_a_relative_import_count(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "celext/__init__.py": "",
        "celext/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from celext.b import B\n",
        "celext/b.py": "from . import a\nB = 1\n",
    })
    assert offences(root, ("celext",)) == {"circle: celext.a -> celext.b"}


def test_a_submodule_importing_its_package_init_is_not_a_circle(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "webhook/__init__.py": "",
        "webhook/rules/__init__.py": "from webhook.rules import numa as numa\nfrom webhook.rules.base import Rule\n",
        "webhook/rules/base.py": "Rule = object\n",
        "webhook/rules/numa.py": "from webhook.rules.base import Rule\n",
    })
    assert offences(root, ("webhook",)) == set()


def test_private_names_across_modules_are_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "webhook/__init__.py": "",
        "webhook/lint.py": "from webhook.manifests import _expand, __version__\nfrom webhook.rules import _shared\n",
        "webhook/manifests.py": "def _expand(): ...\n__version__ = '1'\n",
        "webhook/rules/__init__.py": "from webhook.rules import _shared\n",
        "webhook/rules/_shared.py": "",
        "webhook/rules/numa.py": "from webhook.rules._shared import *\n",
    })
    assert offences(root, ("webhook",)) == {
        "private: webhook.lint imports webhook.manifests._expand",
        "private: webhook.lint imports webhook.rules._shared",
    }


def test_commands_imported_from_below_are_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "webhook/__init__.py": "",
        "webhook/cli.py": "from webhook import commands\nfrom webhook.commands import validate\n",
        "webhook/commands/__init__.py": "",
        "webhook/commands/validate.py": "from webhook.commands.common import flags\n",
        "webhook/commands/common.py": "flags = 1\n",
        "webhook/topology/__init__.py": "",
        "webhook/topology/checking.py": "def run():\n    from webhook.commands.validate import read_objects\n",
    })
    assert offences(root, ("webhook",)) == {"upward: webhook.topology.checking imports webhook.commands.validate"}
