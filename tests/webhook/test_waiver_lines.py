"""`# draguard: ignore[rule] reason` applies to the line it is on as the YAML reader counts lines (at `\\n` alone, the
reader having read `\\r\\n` and `\\r` as `\\n`), not as `str.splitlines` does (which also breaks at VT, FF, FS, GS, RS,
NEL, LS and PS): a file holding one of those keeps its waivers on the findings' lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from webhook.fieldpath import FieldPath
from webhook.manifests import load_text, parse

DRAGUARD = Path(sys.executable).with_name("draguard")
CLAIM = (REPO / "examples" / "manifests" / "claim.yaml").read_text(encoding="utf-8")
PINNED = 'expression: device.attributes["resource.kubernetes.io"].numaNode == 1'
# Characters str.splitlines breaks at and YAML does not (YAML 1.2 breaks at LF and CR only).
NOT_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
YAML_TEXT = ["\x85", "\u2028", "\u2029"]  # the ones YAML allows in a scalar (the rest are refused anywhere)


def lint(path: Path) -> tuple[int, dict[str, object]]:
    done = subprocess.run([str(DRAGUARD), "lint", str(path), "--format", "json"], capture_output=True,
                          text=True, encoding="utf-8", timeout=120, check=False)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("char", YAML_TEXT, ids=repr)
def test_a_waiver_after_such_a_character_waives_the_finding_on_its_line(tmp_path: Path, char: str) -> None:
    text = CLAIM.replace("namespace: ml", f'namespace: "m{char}l"').replace(
        PINNED, f"{PINNED}  # draguard: ignore[list-fragile-compare] single-socket nodes only")
    path = tmp_path / "claim.yaml"
    path.write_text(text, encoding="utf-8")
    _code, report = lint(path)
    findings: list[dict[str, object]] = report["findings"]  # type: ignore[assignment]
    assert [(f["rule"], f["line"]) for f in findings] == [
        ("list-fragile-compare", 16), ("selector-numa-pinned", 25)]  # the one on line 25 waived
    assert report["summary"]["suppressed"] == 1  # type: ignore[index]


@pytest.mark.parametrize("char", NOT_BREAKS, ids=repr)
def test_a_waiver_problem_is_placed_on_its_own_line(tmp_path: Path, char: str) -> None:
    """A waiver without a reason is reported where it is written, even after a character YAML refuses."""
    text = f"# a{char}b\n" + CLAIM.replace(PINNED, f"{PINNED}  # draguard: ignore[list-fragile-compare]")
    path = tmp_path / "claim.yaml"
    path.write_text(text, encoding="utf-8")
    _code, report = lint(path)
    missing = [(f["line"], f["column"]) for f in report["findings"]  # type: ignore[attr-defined]
               if f["rule"] == "suppression-reason-missing"]
    assert missing == [(26, len(PINNED) + 17)]


@pytest.mark.parametrize("char", YAML_TEXT, ids=repr)
@pytest.mark.parametrize("quote", ['"', "'", ""])
def test_places_after_such_a_character_are_yaml_1_2_lines(char: str, quote: str) -> None:
    """libyaml (YAML 1.1) counts NEL, LS and PS as line breaks in its marks; the reference reader (ruamel, YAML 1.2)
    and the findings' tokens do not, so such a text is placed by the reference."""
    text = f"kind: A\nname: {quote}m{char}l{quote}\nspec:\n  x: 1\n"
    (doc,) = parse(text, "a.yaml", [])
    (reference,) = load_text(text, "a.yaml").manifests
    where = FieldPath.root("spec", "x")
    assert str(doc.position(where)) == str(reference.position(where)) == "a.yaml:4:6"
    assert doc.obj == reference.obj
