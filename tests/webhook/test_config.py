"""webhook.config: `.draguard.yaml` discovery and ignore globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook import config
from webhook.errors import DraguardError


def test_the_nearest_file_wins(tmp_path: Path) -> None:
    (tmp_path / ".draguard.yaml").write_text("rules: {}\n", encoding="utf-8")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / ".draguard.yml").write_text("ignore: ['gen/*']\n", encoding="utf-8")
    found = config.find(inner)
    assert found == (tmp_path / "a" / ".draguard.yml").resolve()
    cfg = config.load(cwd=inner)
    assert cfg.policy.ignore == ("gen/*",)
    assert cfg.root == (tmp_path / "a").resolve()


def test_a_directory_named_as_the_configuration_is_an_error_not_passed_over(tmp_path: Path) -> None:
    (tmp_path / ".draguard.yaml").write_text("rules: {}\n", encoding="utf-8")  # the parent's: must not apply
    inner = tmp_path / "a"
    (inner / ".draguard.yaml").mkdir(parents=True)
    with pytest.raises(DraguardError, match="a directory where draguard looks for its configuration file"):
        config.find(inner)


def test_ignore_matches_relative_to_the_config_and_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".draguard.yaml").write_text("ignore: ['vendor/', '*.gen.yaml']\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cfg = config.load()
    assert cfg.ignored("vendor/x/y.yaml")
    assert cfg.ignored(str(tmp_path / "vendor" / "z.yaml"))
    assert cfg.ignored("a/b.gen.yaml")
    assert not cfg.ignored("claims/c.yaml")


def test_no_file_means_defaults(tmp_path: Path) -> None:
    if config.find(tmp_path) is not None:
        pytest.skip(f"a .draguard.yaml above {tmp_path} would be found")
    cfg = config.load(cwd=tmp_path)
    assert (cfg.path, cfg.policy.actions, cfg.ignored("x.yaml")) == (None, {}, False)


def test_explicit_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(DraguardError, match="no such file"):
        config.load(str(tmp_path / "absent.yaml"))
