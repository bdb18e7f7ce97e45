"""The parser, the analysis and the planner use celext's own parse-tree nodes (celext.syntax.nodes): none of their
modules imports lark, and the Lark reference parser (celext.syntax.lalr) stays unloaded.

With celext's own value types (celext.values), nothing of lark is in memory after compiling and running a selector
on the compiled engine: cel-python (whose package imports lark) is the reference engine's alone
(tests/webhook/commands/test_lint_imports.py checks a whole `draguard lint` run)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

_PROGRAM = """
import builtins, json, sys
importers = set()
plain_import = builtins.__import__

def recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__", "")
    if level == 0 and (name == "lark" or name.startswith("lark.")) and not importer.startswith("lark"):
        importers.add(importer)
    return plain_import(name, globals, locals, fromlist, level)

builtins.__import__ = recording_import
import celext, celext.syntax, celext.analysis, celext.plan
selector = celext.compile("device.driver == 'a' && [1, 2].all(x, x < device.attributes['d'].n)")  # compiled engine
assert selector.matches({"name": "g", "attributes": {"d/n": {"int": 3}}}, driver="a") is True
loaded = {name: getattr(module, "__file__", None) for name, module in sys.modules.items()}
print(json.dumps({"importers": sorted(importers), "loaded": loaded}))
"""


def _imports_lark(source: Path) -> bool:
    """Whether a module's source imports lark anywhere (a function's lazy import included)."""
    for node in ast.walk(ast.parse(source.read_text())):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        if any(name == "lark" or name.startswith("lark.") for name in names):
            return True
    return False


def test_syntax_analysis_and_plan_load_no_lark() -> None:
    done = subprocess.run([sys.executable, "-c", _PROGRAM], cwd=REPO, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["importers"] == []
    ours = {name: file for name, file in found["loaded"].items() if name.split(".")[0] in ("celext", "webhook")}
    assert "celext.syntax.lalr" not in ours
    assert {"celext.syntax.nodes", "celext.syntax.parser", "celext.plan.closures", "celext.analysis.walk"} <= set(ours)
    assert [name for name, file in ours.items() if file and _imports_lark(Path(file))] == []
    assert [name for name in ("celpy", "lark", "pendulum") if name in found["loaded"]] == []


def test_only_the_reference_parser_imports_lark() -> None:
    sources = sorted((REPO / "celext").rglob("*.py")) + sorted((REPO / "webhook").rglob("*.py"))
    assert [str(p.relative_to(REPO)) for p in sources if _imports_lark(p)] == ["celext/syntax/lalr.py"]
