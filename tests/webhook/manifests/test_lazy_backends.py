"""The JSON and ruamel backends are imported only for texts that need them (start-up of every command)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import io, contextlib, sys
from webhook.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
print(sorted(m for m in sys.modules if m in ("webhook.manifests.jsontext", "webhook.manifests.roundtrip")))
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu.example.com}
"""


def _imported(tmp_path: Path, text: str, *flags: str) -> str:
    path = tmp_path / "claim.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, "lint", *flags, str(path)], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.strip()


def test_linting_plain_yaml_imports_neither_backend(tmp_path: Path) -> None:
    assert _imported(tmp_path, CLAIM, "--jobs", "1") == "[]"


def test_a_text_the_fast_path_declines_imports_ruamel_s_backend(tmp_path: Path) -> None:
    tagged = CLAIM.replace("metadata: {name: c}", "metadata: {name: !!str c}")
    assert _imported(tmp_path, tagged, "--jobs", "1") == "['webhook.manifests.roundtrip']"


def test_an_inventory_read_values_first_imports_the_json_backend(tmp_path: Path) -> None:
    slices = tmp_path / "slices.json"
    slices.write_text('{"apiVersion": "v1", "kind": "List", "items": []}', encoding="utf-8")
    assert _imported(tmp_path, CLAIM, "--jobs", "1", "--slices", str(slices)) == "['webhook.manifests.jsontext']"


def test_the_reference_backend_s_names_are_still_the_package_s() -> None:
    import webhook.manifests
    from webhook.manifests import roundtrip

    assert webhook.manifests.load_text is roundtrip.load_text
    assert webhook.manifests.Loaded is roundtrip.Loaded
    try:
        webhook.manifests.no_such_name  # noqa: B018
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
