"""The Dockerfile, checked statically (there is no Docker engine here): stages, user, contents, entrypoint."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from dockerfile_parse import DockerfileParser

from tests.conftest import REPO
from tests.deploy.kustomize import BASE, load_files, one

BUILD_TOOLS = re.compile(
    r"\b(gcc|g\+\+|cc|clang|make|build-essential|python3?-dev|libc6?-dev|cargo|rustc|pip wheel|python -m build)\b"
)


def _instructions() -> list[dict[str, str]]:
    parser = DockerfileParser(path=str(REPO / "Dockerfile"))  # read only: nothing here sets its content
    return [i for i in parser.structure if i["instruction"] != "COMMENT"]


def _stages() -> list[list[dict[str, str]]]:
    stages: list[list[dict[str, str]]] = []
    for instruction in _instructions():
        if instruction["instruction"] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _final() -> list[dict[str, str]]:
    return _stages()[-1]


def _values(stage: list[dict[str, str]], name: str) -> list[str]:
    return [i["value"] for i in stage if i["instruction"] == name]


def test_two_stages_from_a_slim_python_image() -> None:
    stages = _stages()
    assert len(stages) == 2
    assert _values(stages[0], "FROM") == ["${PYTHON_IMAGE} AS build"]
    assert _values(stages[1], "FROM") == ["${PYTHON_IMAGE}"]
    (default,) = [i["value"] for i in _instructions() if i["instruction"] == "ARG"]
    name, _, image = default.partition("=")
    assert name == "PYTHON_IMAGE"
    assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", image), image


def test_build_stage_makes_a_wheel_and_installs_it_into_a_virtualenv() -> None:
    (run,) = _values(_stages()[0], "RUN")
    assert "pip wheel --no-deps --wheel-dir /wheels ." in run
    assert "python -m venv /opt/draguard" in run
    # The virtualenv is what the final image gets: the installers Python 3.11's venv seeds go before it is copied.
    assert "/opt/draguard/bin/pip uninstall --yes setuptools pip" in run
    # ... and the build fails if the runtime then misses a module the webhook and the cert commands import.
    smoke = run.rsplit("&&", 1)[1].strip()
    assert smoke.startswith("/opt/draguard/bin/python -c ")
    assert run.index("uninstall") < run.index(smoke)
    assert "/opt/draguard/bin/pip install /wheels/*.whl" in run


def test_final_stage_runs_as_the_non_root_user_the_deployment_expects() -> None:
    (user,) = _values(_final(), "USER")
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) != 0  # numeric, so the kubelet can enforce runAsNonRoot
    pod = one(load_files([BASE / "deployment.yaml"]), "Deployment")["spec"]["template"]["spec"]
    assert (int(uid), int(gid)) == (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"])
    # USER comes after every RUN, so nothing of the image is built as a user the runtime does not have.
    order = [i["instruction"] for i in _final()]
    assert order.index("USER") > max(i for i, name in enumerate(order) if name == "RUN")


def test_final_stage_has_no_build_tools_and_copies_only_the_virtualenv() -> None:
    for run in _values(_final(), "RUN"):
        assert not BUILD_TOOLS.search(run), run
        assert "apt-get install" not in run and "pip install" not in run
    assert _values(_final(), "COPY") == ["--from=build /opt/draguard /opt/draguard"]


def test_entrypoint_is_draguard_serve_and_cmd_matches_the_deployment_mounts() -> None:
    assert json.loads(_values(_final(), "ENTRYPOINT")[0]) == ["draguard", "serve"]
    cmd = dict(arg.split("=", 1) for arg in json.loads(_values(_final(), "CMD")[0]))
    container = one(load_files([BASE / "deployment.yaml"]), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    deployment_args = dict(arg.split("=", 1) for arg in container["args"])
    for flag, value in cmd.items():
        assert deployment_args[flag] == value, flag
    assert set(_values(_final(), "EXPOSE")[0].split()) == {str(p["containerPort"]) for p in container["ports"]}


def test_the_entrypoint_command_is_the_packaged_console_script() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["draguard"] == scripts["kubectl-draguard"] == "webhook.entry:main"


def test_build_context_holds_what_the_build_stage_copies_and_nothing_else() -> None:
    copied = {source for value in _values(_stages()[0], "COPY") for source in value.split()[:-1]}
    assert copied == {"pyproject.toml", "README.md", "celext", "certs", "webhook"}
    packages = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    assert {p.rstrip("*") for p in packages["find"]["include"]} <= copied
    lines = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*"  # exclude everything (.git, .venv, tests, deploy, caches) ...
    assert {line[1:].rstrip("/") for line in lines if line.startswith("!")} == copied  # ... but the sources
    for source in copied:
        assert (REPO / source).exists(), source


@pytest.mark.parametrize("path", ["Dockerfile", ".dockerignore"])
def test_files_sit_at_the_repository_root(path: str) -> None:
    assert Path(REPO / path).is_file()


def test_default_command_serves_on_the_exposed_ports() -> None:
    from webhook import cli

    parsed = cli.build_parser().parse_args(["serve", *json.loads(_values(_final(), "CMD")[0])])
    assert {str(parsed.port), str(parsed.metrics_port)} == set(_values(_final(), "EXPOSE")[0].split())
