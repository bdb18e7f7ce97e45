"""`--jobs`: how many processes lint and validate check files with; the output never depends on it."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

import webhook.lint
from tests.builders import claim_with_selector
from tests.conftest import REPO
from webhook import cli
from webhook.check_run import read_ahead, read_listed
from webhook.forks import can_fork
from webhook.lint import PROCESS_MIN_CHARS, processes

needs_fork = pytest.mark.skipif(not can_fork(), reason="needs fork (Linux)")


@pytest.mark.parametrize(("value", "shown"), [("0", "'0'"), ("=-2", "'-2'"), ("two", "'two'"), ("=", "''")])
def test_a_bad_count_is_a_usage_error(value: str, shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["lint", "x.yaml", f"--jobs{value}"] if value.startswith("=") else ["lint", "x.yaml", "--jobs", value]
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err == (f"draguard lint: error: argument -j/--jobs: expected a positive number or "
                                       f"auto, not {shown}\nTry 'draguard lint --help'.\n")


@pytest.fixture
def four_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)


def _sources(total: int, files: int = 8) -> list[tuple[str, str]]:
    size = total // files
    return [(f"f{i}.yaml", "x" * (size + (1 if i < total - size * files else 0))) for i in range(files)]


@needs_fork
@pytest.mark.usefixtures("four_cpus")
@pytest.mark.parametrize(("total", "expected"), [
    (2 * PROCESS_MIN_CHARS - 1, 1), (2 * PROCESS_MIN_CHARS, 2), (2 * PROCESS_MIN_CHARS + 1, 2),
    (3 * PROCESS_MIN_CHARS, 3), (40 * PROCESS_MIN_CHARS, 4),
])
def test_auto_gives_each_process_enough_input_up_to_one_per_cpu(total: int, expected: int) -> None:
    assert processes(None, _sources(total)) == expected


@needs_fork
@pytest.mark.usefixtures("four_cpus")
def test_a_given_count_is_used_up_to_one_process_per_file() -> None:
    assert [processes(jobs, _sources(100, files=3)) for jobs in (1, 2, 3, 4, 9)] == [1, 2, 3, 3, 3]
    assert processes(None, _sources(40 * PROCESS_MIN_CHARS, files=1)) == 1


def _repository(root: Path) -> list[str]:
    """Files whose findings, positions and log lines all differ, so any reordering shows."""
    for i in range(9):
        docs = [json.dumps(claim_with_selector(
            f'device.attributes["resource.kubernetes.io"].numaNode == {k}' if k % 2 else f"device.include{i}({k})",
            name=f"c{i}-{k}")) for k in range(i % 3 + 1)]
        (root / f"f{i}.yaml").write_text("\n---\n".join(docs) + "\n", encoding="utf-8")
    (root / "broken.yaml").write_text("kind: [\n", encoding="utf-8")
    return [str(root)]


@needs_fork
@pytest.mark.parametrize("command", ["lint", "validate"])
def test_output_and_log_lines_are_the_same_in_any_number_of_processes(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run_rules = webhook.lint.run_rules

    def logging_run_rules(obj: Any, *args: Any, **kwargs: Any) -> Any:
        logging.getLogger("webhook.run").warning("checked %s", obj["metadata"]["name"])
        return run_rules(obj, *args, **kwargs)

    monkeypatch.setattr(webhook.lint, "run_rules", logging_run_rules)
    paths = _repository(tmp_path)
    inventory = ["--slices", str(REPO / "examples" / "manifests"), "--slices", str(tmp_path / "missing.yaml"),
                 "--classes", str(REPO / "examples" / "manifests" / "classes.yaml")]
    runs = []
    for jobs in ("1", "2", "3", "auto"):
        caplog.clear()
        code = cli.main([command, *paths, *inventory, "--jobs", jobs, "--summary"])
        out, err = capsys.readouterr()
        runs.append((code, out, err, [r.getMessage() for r in caplog.records if r.name == "webhook.run"]))
    assert runs[0][0] == 2  # broken.yaml is an input problem
    assert runs[0][3][:3] == ["checked c0-0", "checked c1-0", "checked c1-1"]
    assert "f8.yaml" in runs[0][1]
    assert f"draguard: {tmp_path / 'missing.yaml'}: no such file or directory\n" in runs[0][2]
    assert runs[1:] == [runs[0]] * 3


@needs_fork
@pytest.mark.parametrize(("slices", "classes", "jobs", "cpus"), [
    ([], [], None, 4), (["s.yaml"], [], 1, 4), (["-"], [], None, 4), ([], ["-"], None, 4), (["s.yaml"], [], None, 1),
])
def test_the_inventory_is_read_here_when_a_fork_cannot_pay(slices: list[str], classes: list[str], jobs: int | None,
                                                           cpus: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cpus)), raising=False)
    assert read_ahead(slices, classes, jobs) is None


@needs_fork
@pytest.mark.usefixtures("four_cpus")
def test_the_inventory_read_ahead_is_the_one_read_here(tmp_path: Path) -> None:
    examples = REPO / "examples" / "manifests"
    slices, classes = [str(examples), str(tmp_path / "missing.yaml")], [str(examples / "classes.yaml")]
    for jobs in (None, 2):
        ahead = read_ahead(slices, classes, jobs)
        assert ahead is not None
        assert ahead.result() == read_listed(slices, classes)
    objects, problems = read_listed(slices, classes)
    missing = f"{tmp_path / 'missing.yaml'}: no such file or directory"
    assert (len(objects), [str(p) for p in problems]) == (9, [missing])
