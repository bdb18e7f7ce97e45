"""`make mutation`: mutmut, one package at a time, each mutant against only the tests that can reach it.

    python tests/mutation/run.py                 every package below
    python tests/mutation/run.py certs-issue fix run those packages only
    python tests/mutation/run.py --report        print the scores of the last runs, run nothing
    python tests/mutation/run.py --survivors fix re-test only last run's survivors (after adding tests)
    python tests/mutation/run.py rules --only webhook/rules/k8s/names.py   a scoped run: those files only
    python tests/mutation/run.py rules --sample 7   a sample: only mutants whose number ends in 7 (one in ten)

Each package runs in its own scratch copy (build/mutation/<package>/) whose pyproject.toml carries that
package's `only_mutate` and test selection, so runs never share or clobber results. The copy's `mutants/`
folder is kept between runs: mutmut re-tests only mutants of functions (or tests) that changed. mutmut then maps each
test to the functions it calls and runs, for each mutant, only the selected tests that reach the mutated
function, in a forked child of one warm pytest process (no pytest-xdist; a run uses both cores).

Score = killed / (mutants - equivalent listed in tests/mutation/equivalent.md). A mutant no test reaches
("no tests") counts as surviving: an untested line is a gap, not a pass.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

try:
    from mutmut.stats import status_by_exit_code
except ImportError:  # run directly rather than through `make mutation`, which installs it
    sys.exit("run.py: mutmut is not installed; run `make mutation` (it installs the `mutation` extra)")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import BUDGET, CPU_LOG, CUT_SHORT, FIRST  # run.py is a script: its own folder is not a package on the path
from scoring import wilson

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "mutation"
EQUIVALENT = REPO / "tests" / "mutation" / "equivalent.md"
LAUNCH = REPO / "tests" / "mutation" / "launch.py"
SOURCES = ("celext", "webhook", "certs")
# Files some selected tests read from the checkout (the README's rule catalogue, docs, examples, deploy/):
# copied into the scratch copy and on into mutmut's mutants/ folder (its `also_copy`).
ALSO_COPY = ("README.md", "Makefile", "Dockerfile", ".dockerignore", "docs", "examples", "deploy", "bench")
TARGET = 0.90
TIMEOUT_CONSTANT = 30.0  # seconds added to each mutant's estimated test time before mutmut's multipliers
CHILD_RAISED = 255  # mutmut's exit code when its forked child raised before reporting a test result
KILLED = frozenset({"killed", "timeout", "caught by type check", "segfault"})  # mutmut's words for a caught mutant


@dataclass(frozen=True)
class Package:
    name: str
    mutate: tuple[str, ...]  # globs relative to the repo (mutmut's only_mutate)
    tests: tuple[str, ...]  # the tests that exercise it (files or folders; missing ones are dropped)
    # Tests left out (pytest node ids): minutes-long ones that reach every function of the package and kill
    # nothing the faster ones miss; every survivor would pay for them in full.
    deselect: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # set for the run (e.g. fewer hypothesis examples per mutant)
    budget: float = 1.0  # seconds of each mutant's tests (by measured duration), see launch.py; --budget overrides
    first: tuple[str, ...] = ()  # test files each mutant runs right after its module's own (its fastest killers)


_CELEXT_EVALUATING = ("tests/celext/lib", "tests/celext/conformance", "tests/celext/check", "tests/celext/cost",
                      "tests/celext/test_macros.py", "tests/celext/test_values.py", "tests/celext/test_selector.py",
                      "tests/celext/test_oracles.py", "tests/celext/test_quantity.py", "tests/celext/test_semver.py",
                      "tests/celext/test_compile.py", "tests/celext/test_fuzz.py", "tests/celext/test_corpus_sweep.py",
                      "tests/celext/test_engine_tables.py", "tests/celext/test_engine_device_verdicts.py",
                      "tests/limits/test_selector_limits.py")
PACKAGES = (
    Package("certs-issue", ("certs/issue.py",), ("tests/certs/test_issue.py", "tests/certs/test_issue_extensions.py",
                                                 "tests/certs/test_issue_mutants.py",
                                                 "tests/limits/test_cert_limits.py",
                                                 "tests/limits/test_cert_time_limits.py")),
    Package("fix", ("webhook/fix.py",), ("tests/webhook/test_fix.py", "tests/webhook/test_fix_readback.py",
                                         "tests/webhook/test_fix_spelling.py", "tests/webhook/test_fix_edges.py",
                                         "tests/webhook/test_fix_rewrites.py",
                                         "tests/webhook/commands/test_lint.py",
                                         "tests/webhook/rules/test_selectors_fix_semantics.py")),
    Package("admission", ("webhook/admission/*",), ("tests/webhook/admission", "tests/webhook/test_app.py",
                                                     "tests/webhook/test_json_logs.py",
                                                     "tests/webhook/reliability/test_fail_closed.py",
                                                     "tests/limits/test_admission_limits.py",
                                                     "tests/limits/test_warning_limits.py")),
    # The golden `lint`/`validate` cases (in-process CLI runs) are the only tests that read every hint.
    Package("rules", ("webhook/rules/*",), ("tests/webhook/rules", "tests/limits/test_slice_limits.py",
                                             "tests/limits/test_numa_limits.py",
                                             "tests/limits/test_selector_limits.py",
                                             "tests/webhook/commands/test_lint.py",
                                             "tests/webhook/commands/test_validate.py"),
            deselect=("tests/webhook/rules/test_fuzz.py",)),
    # celext's libraries: their own tests, cel-spec's conformance suite and the tests that evaluate selectors.
    # The compiled engine's tests (tests/celext/plan) and the parser's are left to `celext-engine`: both engines
    # call the same library functions, so the differential test cannot tell a library mutant from the original.
    Package("celext-lib", ("celext/lib/*",), _CELEXT_EVALUATING),
    Package("celext-engine", ("celext/plan/*", "celext/runtime/*"),
            ("tests/celext/plan", *_CELEXT_EVALUATING, "tests/celext/test_verdict_fast_pass.py",
             "tests/celext/test_device_paths.py", "tests/celext/test_memo_converted.py",
             "tests/celext/test_plan_forms.py", "tests/celext/test_emit_relations.py",
             "tests/celext/test_cache_budget.py"),
            deselect=("tests/celext/plan/test_plan.py::test_nested_comprehensions_past_pythons_block_limit",
                      "tests/celext/plan/test_plan.py::test_nesting_as_deep_as_the_front_end_accepts_compiles_"
                      "into_flat_functions"),
            # Its differential tests took 2 to 9 s each at 150 examples per function, past a 1 s budget: most of the
            # package's survivors were budget survivors. At 30 examples each takes well under a second, so a 2.5 s
            # budget reaches them after a mutant's fast tests (docs/testing.md).
            env=(("DRAGUARD_FUZZ_EXAMPLES", "30"),), budget=2.5,
            # The engine tables before the thousands of faster tests that reach every planner function.
            first=("tests/celext/test_engine_tables.py", "tests/celext/test_engine_device_verdicts.py")),
)


def present(package: Package) -> bool:
    return any(any(REPO.glob(pattern)) for pattern in package.mutate)


def prepare(package: Package) -> Path:
    """A fresh scratch copy holding the sources, the tests and a pyproject.toml configured for `package`."""
    work = BUILD / package.name
    work.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in (*SOURCES, "tests", *ALSO_COPY):
        source, target = REPO / folder, work / folder
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, target)
    # tests/conftest.py finds ../shared/corpus next to the checkout; mutmut runs in work/mutants.
    shared = REPO.parent / "shared"
    if shared.exists() and not (work / "shared").exists():
        (work / "shared").symlink_to(shared)
    tests = [t for t in package.tests if (REPO / t).exists()]
    base = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]
    deselect = [f"--deselect={node}" for node in package.deselect]
    # A mutant's tests run in a child of a fork server that has only collected them (not of the process that ran
    # them all for the statistics), and start with celext's and draguard's caches emptied (tests/mutation/fresh.py).
    # mutmut's timeout is wall-clock ((estimate + constant) x multiplier x 2 seconds): on a shared machine a child
    # that runs one fast test can take 20 s, which a constant of 1 s reports as a "timeout" (scored as killed).
    settings = {**base, "only_mutate": list(package.mutate), "process_isolation": "forkserver",
                "also_copy": [name for name in ALSO_COPY if (REPO / name).exists()],
                "timeout_constant": TIMEOUT_CONSTANT,
                "pytest_add_cli_args": [*base.get("pytest_add_cli_args", []), "-p", "tests.mutation.fresh"],
                "pytest_add_cli_args_test_selection": [*tests, *deselect,
                                                       *base.get("pytest_add_cli_args_test_selection", [])]}
    text = (REPO / "pyproject.toml").read_text()
    head = text.split("[tool.mutmut]")[0]
    (work / "pyproject.toml").write_text(head + "[tool.mutmut]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in settings.items()))
    return work


def equivalent() -> set[str]:
    """Mutant names listed (in backticks, first column) in the reviewed equivalent-mutant file; a name ending in
    `__mutmut_*` stands for every mutant of that function (code that runs only at import)."""
    if not EQUIVALENT.exists():
        return set()
    return set(re.findall(r"^\| `([\wǁ.]+__mutmut_(?:\d+|\*))`", EQUIVALENT.read_text(), re.MULTILINE))


def listed(name: str, skip: set[str]) -> bool:
    return name in skip or f"{name.rpartition('__mutmut_')[0]}__mutmut_*" in skip


def sample_pattern(digits: str) -> str:
    """mutmut's name filter for the mutants whose number ends in `digits` (one in ten per digit given)."""
    return f"*__mutmut_*{digits}"


def tally(package: Package, sample: str | None = None) -> tuple[int, int, int, list[str]] | None:
    """(killed, counted, not checked, surviving names) from a package's last run, or None when it has not run.
    With `sample`, only the mutants of that sample are counted."""
    metas = sorted((BUILD / package.name / "mutants").rglob("*.py.meta"))
    if not metas:
        return None
    skip = equivalent()
    killed, counted, unchecked, surviving = 0, 0, 0, []
    for meta in metas:
        codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
        for name, code in codes.items():
            if listed(name, skip) or (sample and not fnmatch.fnmatchcase(name, sample_pattern(sample))):
                continue
            status = status_by_exit_code[code]
            if status == "skipped":
                continue
            if code == CHILD_RAISED:  # mutmut files these under "timeout": no test ran, so nothing was caught
                unchecked += 1
                continue
            if status == "not checked":  # an interrupted run: reported apart, not scored
                unchecked += 1
                continue
            counted += 1
            if status in KILLED:
                killed += 1
            elif code == CUT_SHORT:
                surviving.append(f"{name} (survived its tests within the budget; slower ones not run)")
            else:
                surviving.append(f"{name} ({status})")
    return killed, counted, unchecked, surviving


def kept_results(package: Package) -> dict[Path, dict[str, int | None]]:
    """Every mutant's exit code from the package's earlier runs, by meta file."""
    metas = (BUILD / package.name / "mutants").rglob("*.py.meta")
    return {meta: json.loads(meta.read_text())["exit_code_by_key"] for meta in metas}


def restore_results(before: dict[Path, dict[str, int | None]]) -> None:
    """Put back the earlier results a run by name wiped: mutmut rewrites each meta file with no result for the
    mutants it was not asked to run, which would drop a package's full run after a `--survivors` or `--sample`."""
    for meta, codes in before.items():
        if not meta.exists():
            continue
        data = json.loads(meta.read_text())
        now: dict[str, int | None] = data["exit_code_by_key"]
        for name, code in codes.items():
            if code is not None and name in now and now[name] is None:
                now[name] = code
        meta.write_text(json.dumps(data))


def cpu_summary(log: Path) -> str:
    """The CPU its forked child spent on each mutant tested in this run (launch.py's log)."""
    seconds = [float(line.split("\t")[1]) for line in log.read_text().splitlines()] if log.exists() else []
    if not seconds:
        return "no mutant was tested in a warm session this run"
    mean = sum(seconds) / len(seconds)
    return (f"{len(seconds)} mutants tested: {sum(seconds):.0f} CPU-s in their children, {mean:.3f} CPU-s per mutant "
            f"(max {max(seconds):.2f})")


def report(packages: list[Package], sample: str | None = None) -> int:
    worst = 1.0
    for package in packages:
        result = tally(package, sample)
        if result is None:
            print(f"{package.name:14} not run")
            continue
        killed, counted, unchecked, surviving = result
        score = killed / counted if counted else 1.0
        worst = min(worst, score) if not unchecked else 0.0
        note = f", {unchecked} not checked (run stopped, or mutmut's child raised)" if unchecked else ""
        scope = ""
        if sample:
            low, high = wilson(killed, counted)
            scope = f", sample of mutants numbered *{sample}: package score {low:.1%} to {high:.1%} at 95 %"
        print(f"{package.name:14} {score:6.1%} killed ({killed}/{counted}, {len(surviving)} surviving{note}{scope})")
        for name in surviving:
            print(f"    survived: {name}")
    return 0 if worst >= TARGET else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help=f"any of: {', '.join(p.name for p in PACKAGES)}")
    parser.add_argument("--report", action="store_true", help="print the last scores, run nothing")
    parser.add_argument("--survivors", action="store_true",
                        help="re-test only the mutants that survived the last run (after adding tests)")
    parser.add_argument("--only", nargs="+", metavar="FILE",
                        help="mutate only these files of the chosen package (a scoped run; scores say so)")
    parser.add_argument("--sample", metavar="DIGITS",
                        help="run and score only the mutants whose number ends in DIGITS (e.g. 7: one in ten, "
                             "37: one in a hundred); a quick estimate, reported as a sample")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="run each mutant's tests (its module's own first, then fastest first) up to this much "
                             "of their measured duration (default: the package's, 1 s; "
                             "0: every test that reaches the mutant)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants tested at once (default: cores)")
    args = parser.parse_args(argv)
    if args.sample is not None and not args.sample.isdigit():
        parser.error("--sample takes digits, e.g. --sample 7")
    if args.sample and args.survivors:
        parser.error("--sample and --survivors cannot be combined")
    by_name = {p.name: p for p in PACKAGES}
    unknown = [n for n in args.packages if n not in by_name]
    if unknown:
        parser.error(f"unknown package {', '.join(unknown)}")
    chosen = [by_name[n] for n in args.packages] or [p for p in PACKAGES if present(p)]
    if not args.report:
        os.nice(19)  # mutmut (inherited by every child) takes only the CPU the machine's other work leaves idle
        for package in chosen:
            if not present(package):
                print(f"{package.name}: nothing to mutate yet ({', '.join(package.mutate)})")
                continue
            print(f"== {package.name}", flush=True)
            work = prepare(replace(package, mutate=tuple(args.only)) if args.only else package)
            budget = package.budget if args.budget is None else args.budget
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **dict(package.env), BUDGET: str(budget),
                   FIRST: ",".join(package.first)}
            last = tally(package) if args.survivors else None
            names = [n.split(" ")[0] for n in last[3]] if last else []
            if args.sample:
                names = [sample_pattern(args.sample)]
            if args.survivors and not names:
                print(f"{package.name}: no surviving mutants to re-test")
                continue
            before = kept_results(package) if names else {}
            (work / CPU_LOG).unlink(missing_ok=True)
            subprocess.run([sys.executable, str(LAUNCH), "run", "--max-children", str(args.jobs), *names],
                           cwd=work, env=env, check=False)
            restore_results(before)
            print(cpu_summary(work / CPU_LOG))
    return report(chosen, args.sample)


if __name__ == "__main__":
    sys.exit(main())
