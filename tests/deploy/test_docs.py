"""docs/deploy.md stays true: every draguard command it shows parses, every file it names exists."""

from __future__ import annotations

import re
import shlex

import pytest

from tests.conftest import REPO
from webhook import cli

DOC = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
SHELL_BLOCKS = re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)


def _draguard_commands() -> list[str]:
    commands = []
    for block in SHELL_BLOCKS:
        for line in block.splitlines():
            for part in re.split(r"\s*(?:\||&&|>)\s*", line.split("  #")[0]):
                if part.startswith("draguard "):
                    commands.append(part.strip())
    return commands


def test_the_doc_shows_draguard_commands() -> None:
    assert len(_draguard_commands()) >= 4


@pytest.mark.parametrize("command", _draguard_commands())
def test_every_draguard_command_in_the_doc_parses(command: str) -> None:
    cli.build_parser().parse_args(shlex.split(command)[1:])


@pytest.mark.parametrize("path", sorted(set(re.findall(r"\bdeploy/(?:base|overlays|vap)[\w./-]*\w", DOC))))
def test_every_deploy_path_in_the_doc_exists(path: str) -> None:
    assert (REPO / path).exists(), path


def _webhook_container() -> dict[str, object]:
    from tests.deploy.kustomize import BASE, manifests, one

    container: dict[str, object] = one(manifests(BASE), "Deployment", "draguard")["spec"]["template"]["spec"][
        "containers"][0]
    return container


def test_the_doc_states_the_requests_and_limits_the_deployment_sets() -> None:
    resources: dict[str, dict[str, str]] = _webhook_container()["resources"]  # type: ignore[assignment]
    requests, limits = resources["requests"], resources["limits"]
    stated = re.search(r"requests (\d+m?)/(\d+[KMG]i), limits\s+(\d+) CPUs?/(\d+[KMG]i)\b", DOC)
    assert stated, "docs/deploy.md no longer states the webhook's requests and limits"
    assert stated.groups() == (requests["cpu"], requests["memory"], limits["cpu"], limits["memory"])


def _webhook_names() -> set[str]:
    from tests.deploy.kustomize import BASE, manifests, one

    return {w["name"] for w in one(manifests(BASE), "ValidatingWebhookConfiguration", "draguard")["webhooks"]}


@pytest.mark.parametrize("doc", ["README.md", "docs/deploy.md", "docs/certs.md", "docs/webhook.md"])
def test_every_webhook_name_in_the_docs_is_one_the_configuration_registers(doc: str) -> None:
    # `<x>.draguard.io` is how a webhook of ValidatingWebhookConfiguration draguard is named (three segments,
    # as upstream requires); a name in an example the configuration does not have sends a reader looking for it.
    named = set(re.findall(r"\b[a-z0-9-]+\.draguard\.io\b", (REPO / doc).read_text(encoding="utf-8")))
    assert named <= _webhook_names()


def test_the_kustomization_table_names_every_kustomization_under_deploy() -> None:
    from tests.deploy.kustomize import KUSTOMIZATIONS

    table = DOC.split("\n## ", 1)[0]
    for name, directory in KUSTOMIZATIONS.items():
        assert f"`{directory.relative_to(REPO).as_posix()}`" in table, name
