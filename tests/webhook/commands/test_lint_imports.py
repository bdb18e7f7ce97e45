"""What `draguard lint` imports before it needs it: nothing of cel-python, lark, pendulum or msgspec.

celext's engines come in with the first selector analysed or compiled (celext's module `__getattr__`, the
selector rules' function-level imports); each check runs in a fresh interpreter, since this one has them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("celpy", "lark", "pendulum", "msgspec")


def _loaded(code: str) -> dict[str, object]:
    """Run `code` in a fresh interpreter; it sets `out` (a dict), printed back as JSON, with the heavy
    packages it left loaded."""
    probe = (f"import sys\nout = {{}}\n{code}\n"
             f"out['heavy'] = sorted(m for m in {HEAVY!r} if m in sys.modules)\nprint(__import__('json').dumps(out))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("modules", [
    "webhook.cli",
    "webhook.lint, webhook.check_run, webhook.commands.lint, webhook.commands.reporting",
    "webhook.rules, webhook.inventory, webhook.manifests",
    "celext, celext.vocabulary, celext.errors, celext.quantity, celext.semver",
])
def test_the_lint_path_imports_no_engine(modules: str) -> None:
    assert _loaded(f"import {modules}")["heavy"] == []


def test_the_first_compile_imports_the_engine_and_keeps_the_api() -> None:
    found = _loaded(
        "import celext\n"
        "out['before'] = [m for m in ('celpy', 'lark') if m in sys.modules]\n"
        "selector = celext.compile('device.driver == \"a\"')\n"
        "out['matches'] = selector.matches({'name': 'd'}, driver='a')\n"
        "out['selector'] = type(selector) is celext.Selector\n"
        "from celext.compile import prepare\n"  # the submodule celext.compile, now imported, keeps not its name
        "out['compile'] = callable(celext.compile) and celext.compile('true') is celext.compile('true')\n"
        "out['cache'] = type(celext._CACHE).__name__\n"
        "try:\n"
        "    celext.no_such_name\n"
        "except AttributeError as err:\n"
        "    out['missing'] = str(err)\n"
        "try:\n"
        "    celext.compile('device.driver ==')\n"
        "except celext.CompileError as err:\n"
        "    out['error'] = type(err).__name__\n"
    )
    assert found["before"] == []
    assert found["matches"] is True
    assert found["selector"] is True
    assert found["compile"] is True
    assert found["cache"] == "ByteBudgetCache"
    assert found["missing"] == "module 'celext' has no attribute 'no_such_name'"
    assert found["error"] == "CompileError"
    assert "celpy" in found["heavy"] and "lark" in found["heavy"]


def test_lazy_names_are_the_modules_own() -> None:
    found = _loaded(
        "import celext, celext.analysis, celext.compile, celext.reference.values, celext.selector\n"
        "out['same'] = [celext.analyze is celext.analysis.analyze,\n"
        "               celext.parse is sys.modules['celext.compile'].parse,\n"
        "               celext.to_device is celext.reference.values.to_device,\n"
        "               celext.Device is celext.reference.values.Device,\n"
        "               celext.Selector is celext.selector.Selector]\n"
    )
    assert found["same"] == [True, True, True, True, True]
