"""What `draguard lint` imports before it needs it: nothing of cel-python, lark or pendulum (msgspec is not
among them: its Structs are draguard's records, in every module).

celext's engines come in with the first selector analysed or compiled (celext's module `__getattr__`, the
selector rules' function-level imports); each check runs in a fresh interpreter, since this one has them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.builders import claim_with_selector
from tests.conftest import REPO
from webhook.forks import can_fork

HEAVY = ("celpy", "lark", "pendulum")
EXAMPLES = REPO / "examples" / "manifests"
needs_fork = pytest.mark.skipif(not can_fork(), reason="needs fork (Linux)")


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


def test_the_first_compile_imports_no_reference_engine_and_keeps_the_api() -> None:
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
    # the compiled engine parses into celext.syntax.nodes and computes with celext.values: cel-python, lark and
    # pendulum are the reference engine's alone
    assert found["heavy"] == []


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


def _imported(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], Counter[str]]:
    """Run `python -X importtime -m webhook ARGV`: the run, and how often each module was imported (forked
    workers print their own imports to the same stderr)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "webhook", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)
    names = Counter(line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:") and "|" in line)
    return done, names


@needs_fork
def test_workers_import_nothing_of_celext_again(tmp_path: Path) -> None:
    """With --jobs 2 the parent imports and builds celext's engines before the fork; a module a worker imports
    itself is imported (and paid for) once per process."""
    for i in range(4):
        (tmp_path / f"claim{i}.yaml").write_text(yaml.safe_dump(claim_with_selector(
            f'device.attributes["gpu.example.com"].memory{i} > 0', name=f"claim{i}")))
    files = sorted(p.name for p in tmp_path.glob("claim*.yaml"))
    done, names = _imported(["lint", *files, "--slices", str(EXAMPLES / "slices.yaml"), "--jobs", "2"], tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]  # warnings: the attributes are missing on the devices
    # (-X importtime logs the modules import statements load: celext's module __getattr__ loads its own quietly)
    assert names["celext.plan"] == 1
    assert names["celext.analysis"] == 1
    assert [name for name, count in names.items() if count > 1 and name.startswith(("celext", "celpy", "lark"))] == []


def test_a_run_without_selectors_imports_no_engine(tmp_path: Path) -> None:
    (tmp_path / "class.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                         "metadata: {name: plain}\nspec: {}\n")
    done, names = _imported(["lint", "class.yaml", "class.yaml", "--jobs", "2"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [m for m in HEAVY if names[m]] == []


COMPILED_PATH_ONLY = ("lark", "celpy", "pendulum")  # the reference engine's; the compiled path needs none


@pytest.mark.parametrize("inventory", [[], ["--slices", str(EXAMPLES / "slices.yaml")]], ids=["alone", "slices"])
def test_a_lint_run_on_the_compiled_path_never_imports_lark_celpy_or_pendulum(tmp_path: Path,
                                                                             inventory: list[str]) -> None:
    """`draguard lint` in a fresh interpreter, as the command runs it: the selector is parsed, checked, compiled
    and (with --slices) evaluated on the devices, and at exit none of the reference engine's packages is loaded."""
    claim = tmp_path / "claim.yaml"
    claim.write_text(yaml.safe_dump(claim_with_selector('device.attributes["gpu.example.com"].model == "A100"')))
    argv = ["lint", str(claim), "--jobs", "1", "--color", "never", *inventory]
    found = _loaded(
        "import contextlib, io\n"
        "from webhook.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as shown:\n"
        f"    out['code'] = main({argv!r})\n"
        "out['stdout'] = shown.getvalue()\n"
        f"out['heavy'] = sorted(m for m in {COMPILED_PATH_ONLY!r} if m in sys.modules)\n"
        "print(__import__('json').dumps(out))\n"
        "raise SystemExit(0)\n"
    )
    assert found["code"] == 1
    assert "warn list-fragile-compare:" in str(found["stdout"])
    assert found["heavy"] == []
