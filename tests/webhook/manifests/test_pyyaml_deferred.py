"""PyYAML imported through `webhook.manifests.pyyaml`: its pure-Python modules' regular expressions are compiled
on first use, and PyYAML's own loaders read exactly as with a plain `import yaml` (run in fresh interpreters:
the test session may have imported yaml already)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from webhook.manifests.pyyaml import LazyPattern

# YAML 1.1 implicit types (the resolver's regular expressions, re.X ones included), a timestamp (the
# constructor's), and a non-printable character (the reader's).
PROBE = r"""
import json, sys
IMPORT
import yaml
out = {}
for text in ["a: yes", "a: Off", "a: 0x1F", "a: 0b101", "a: 1_000", "a: 190:20:30", "a: 6.8523015e+5", "a: .NaN",
             "a: ~", "a: 2001-12-14", "a: 2001-12-14t21:59:43.10-05:00", "a: y", "a: text"]:
    out[text] = repr(yaml.safe_load(text)["a"])
for bad in ["a: \x07", "a: \ufffe", "a: <<", "a: ="]:
    try:
        yaml.safe_load(bad)
    except yaml.YAMLError as err:
        out[bad] = str(err)
out["deferred"] = type(yaml.reader.Reader.NON_PRINTABLE).__name__
print(json.dumps(out))
"""


def _run(import_line: str) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", PROBE.replace("IMPORT", import_line)], capture_output=True,
                          text=True, check=True)
    loaded: dict[str, str] = json.loads(done.stdout)
    return loaded


def test_pyyaml_s_loaders_read_as_with_a_plain_import() -> None:
    plain = _run("")
    deferred = _run("import webhook.manifests.libyaml")
    assert plain.pop("deferred") == "Pattern"
    assert deferred.pop("deferred") == "LazyPattern"
    assert deferred == plain
    assert plain["a: yes"] == "True" and plain["a: 0b101"] == "5" and plain["a: 2001-12-14"].startswith("datetime.date")
    assert plain["a: \x07"].startswith("unacceptable character #x0007: special characters are not allowed")


def test_the_draguard_reader_imports_pyyaml_without_compiling_its_regular_expressions() -> None:
    probe = ("import webhook.manifests.libyaml, yaml\n"
             "patterns = [yaml.reader.Reader.NON_PRINTABLE, yaml.constructor.SafeConstructor.timestamp_regexp]\n"
             "patterns += [r for rs in yaml.resolver.Resolver.yaml_implicit_resolvers.values() for _t, r in rs]\n"
             "print(len(patterns), sum(p._compiled is None for p in patterns))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    total, uncompiled = map(int, done.stdout.split())
    assert total == uncompiled > 10


def test_a_lazy_pattern_compiles_once_with_its_flags() -> None:
    pattern = LazyPattern(r"""^(?: a | b )$""", 64)  # re.X
    assert pattern._compiled is None
    assert pattern.match("b") is not None and pattern.match(" b ") is None
    compiled = pattern._compiled
    assert compiled is not None and compiled.flags & 64
    assert pattern.fullmatch("a") is not None and pattern._compiled is compiled
    with pytest.raises(AttributeError):
        pattern.no_such_method  # noqa: B018
