"""Every report format read the way its consumer reads it, from one `draguard lint` run (the installed entry point,
as CI runs it) over real files with awkward names and findings: a name with a space, `%`, `,`, `:`, non-ASCII and an
emoji; a name that is not UTF-8; emoji before a finding's column; a finding quoting CR, LF, control characters, an
escape sequence and `]]>`; a finding thousands of characters long.

- json: strict UTF-8 and `json.loads`; the reference the other formats are compared with.
- sarif: the OASIS SARIF 2.1.0 schema, and what GitHub code scanning reads (rule metadata, levels, relative
  percent-encoded URIs, UTF-16 columns, the SARIF default `columnKind`).
- junit: an XML 1.0 parser; counts that add up.
- github: the Actions runner's own parsing and unescaping (actions/runner `ActionCommand.TryParseV2`).
- text: nothing but draguard's own colour codes reaches the terminal.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree as ET

import pytest

from webhook.wire import printable

DRAGUARD = Path(sys.executable).parent / "draguard"
SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
NOT_UTF8 = os.fsdecode(b"bytes \xff.yaml")  # how Python names it: a lone surrogate for the byte
AWKWARD = "a dir/x b%,:é😀.yaml"
CONTROL = "numa\r\n\x02\x1b[5m]]>%,:"  # what the constraint names once YAML read its escapes
LEVELS = {"deny": "error", "warn": "warning", "audit": "note"}


def claim(name: str, attribute: str) -> str:
    """A claim whose selector has two emoji before its findings, and a constraint on `attribute` (written with
    JSON's escapes, which YAML's double quotes read alike)."""
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {name}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: '"😀😀" != "" && device.attributes["resource.kubernetes.io"].numaNode == 0'
    constraints:
    - matchAttribute: {json.dumps(attribute)}
"""


@dataclass(frozen=True)
class Reports:
    root: Path  # the working directory of the run
    code: int
    stdout: bytes
    stderr: str
    raw: dict[str, bytes]  # format -> the file it wrote

    def lines(self, file: str, line: int) -> str:
        return (self.root / file).read_text(encoding="utf-8").split("\n")[line - 1]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    root = tmp_path_factory.mktemp("consumers")
    (root / "a dir").mkdir()
    (root / AWKWARD).write_text(claim("awkward", "example.com/numa"), encoding="utf-8")
    (root / "control.yaml").write_text(claim("control", CONTROL), encoding="utf-8")
    (root / "long.yaml").write_text(claim("long", "x" * 5000), encoding="utf-8")
    with open(os.fsencode(root / NOT_UTF8), "w", encoding="utf-8") as file:
        file.write(claim("bytes", "example.com/numa"))
    out = root.parent / f"{root.name}-out"
    out.mkdir()
    formats = {"json": "r.json", "sarif": "r.sarif", "junit": "r.xml", "github": "r.txt"}
    argv = [str(DRAGUARD), "lint", ".", "--jobs", "1", "--color", "always"]
    argv += [f"--format={name}={out / file}" for name, file in formats.items()] + ["--format=text"]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_WORKSPACE")}
    done = subprocess.run(argv, cwd=root, capture_output=True, env=env, check=False)
    raw = {name: (out / file).read_bytes() if (out / file).exists() else b"" for name, file in formats.items()}
    return Reports(root, done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"), raw)


@pytest.fixture(scope="module")
def findings(reports: Reports) -> list[dict[str, Any]]:
    """The run's findings from the JSON report: the reference for the other formats."""
    assert (reports.code, reports.stderr) == (1, "")
    document = json.loads(reports.raw["json"].decode("utf-8"))  # RFC 8259: JSON text is UTF-8
    found: list[dict[str, Any]] = document["findings"]
    return found


def full_text(finding: dict[str, Any]) -> str:
    return finding["message"] + (f"\nhelp: {finding['hint']}" if finding["hint"] else "")


def test_json_names_every_file_exactly_and_quotes_what_the_input_holds(findings: list[dict[str, Any]]) -> None:
    assert {f["file"] for f in findings} == {AWKWARD, "control.yaml", "long.yaml", NOT_UTF8}
    assert any(CONTROL in full_text(f) for f in findings)
    assert max(len(f["message"]) for f in findings) > 5000


# --- SARIF ---------------------------------------------------------------------------------------------------------

def utf16_column(line: str, column: int) -> int:
    """SARIF's default column: 1 + the UTF-16 code units before the character at code point `column`."""
    return len(line[:column - 1].encode("utf-16-le")) // 2 + 1


def test_sarif_is_valid_and_what_github_code_scanning_reads(reports: Reports, findings: list[dict[str, Any]]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    log = json.loads(reports.raw["sarif"].decode("utf-8"))
    jsonschema.validate(log, SCHEMA)
    (run,) = log["runs"]
    assert run.get("columnKind", "utf16CodeUnits") == "utf16CodeUnits"  # the default GitHub (JavaScript) counts in
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == reports.root.as_uri() + "/"
    for rule in run["tool"]["driver"]["rules"]:  # what GitHub requires of a rule
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert len(rule["shortDescription"]["text"]) <= 1024
    assert len(run["results"]) == len(findings)
    for result, finding in zip(run["results"], findings, strict=True):
        assert (result["ruleId"], result["level"]) == (finding["rule"], LEVELS[finding["action"]])
        assert result["message"]["text"] == full_text(finding)
        location = result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert re.fullmatch(r"[A-Za-z0-9._~/%-]+", uri) and not urlsplit(uri).scheme  # relative, percent-encoded
        assert unquote(uri, errors="surrogateescape") == finding["file"]
        region = location["region"]
        line = reports.lines(finding["file"], finding["line"])
        assert (region["startLine"], region["startColumn"]) == (finding["line"], utf16_column(line, finding["column"]))


def test_sarif_columns_count_utf16_code_units_after_emoji(reports: Reports) -> None:
    log = json.loads(reports.raw["sarif"].decode("utf-8"))
    regions = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]):
               r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]}
    line = reports.lines(AWKWARD, 13)
    at = line.index("==")  # 0-based code points; two emoji before it, two UTF-16 code units each
    assert regions[("list-fragile-compare", "a%20dir/x%20b%25%2C%3A%C3%A9%F0%9F%98%80.yaml")] == {
        "startLine": 13, "startColumn": at + 3, "endLine": 13, "endColumn": at + 5}


# --- JUnit ---------------------------------------------------------------------------------------------------------

def test_junit_is_well_formed_and_its_counts_add_up(reports: Reports, findings: list[dict[str, Any]]) -> None:
    root = ET.fromstring(reports.raw["junit"])  # an XML 1.0 parser, from the bytes as a CI server reads them
    suites = root.findall("testsuite")
    cases = root.findall("testsuite/testcase")
    failing = [f for f in findings if f["action"] in ("deny", "warn")]
    assert int(root.get("tests", "")) == sum(int(s.get("tests", "")) for s in suites) == len(cases) == len(findings)
    assert int(root.get("failures", "")) == len(root.findall("testsuite/testcase/failure")) == len(failing)
    for suite in suites:
        assert int(suite.get("failures", "")) == len(suite.findall("testcase/failure"))
    texts = [case.findtext("failure") for case in cases if case.find("failure") is not None]
    # What cannot be in XML 1.0 is spelled as Go's %q would; CR LF is a line break to an XML parser.
    assert any("numa\n\\x02\\x1b[5m]]>%,:" in (text or "") for text in texts)
    assert {suite.get("name") for suite in suites} == {AWKWARD, "control.yaml", "long.yaml", "bytes \\udcff.yaml"}


# --- GitHub Actions ------------------------------------------------------------------------------------------------

def unescape(text: str, tokens: dict[str, str]) -> str:
    """The runner's Unescape: each replacement back to its token, in its table's order (`%25` last)."""
    for replacement, token in tokens.items():
        text = text.replace(replacement, token)
    return text


DATA = {"%0D": "\r", "%0A": "\n", "%25": "%"}
PROPERTY = {"%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ",", "%25": "%"}


def parse_command(line: str) -> tuple[str, dict[str, str], str] | None:
    """actions/runner's ActionCommand.TryParseV2: `::name k=v,k=v::data`."""
    line = line.lstrip()
    if not line.startswith("::"):
        return None
    end = line.find("::", 2)
    if end < 0:
        return None
    info = line[2:end]
    name, _, props = info.partition(" ")
    properties = {}
    for prop in filter(None, props.strip().split(",")):
        key, eq, value = prop.partition("=")
        if eq and key and value:
            properties[key] = unescape(value, PROPERTY)
    return name, properties, unescape(line[end + 2:], DATA)


def test_github_annotations_read_back_as_the_findings(reports: Reports, findings: list[dict[str, Any]]) -> None:
    text = reports.raw["github"].decode("utf-8")
    commands = [parse_command(line) for line in text.split("\n")[:-1]]
    annotations = [c for c in commands if c is not None and "file" in c[1]]
    assert len(annotations) == len(findings)
    kinds = {"deny": "error", "warn": "warning", "audit": "notice"}
    for (name, props, data), finding in zip(annotations, findings, strict=True):
        file = finding["file"].replace("\udcff", "\\udcff")  # a name that is not UTF-8, spelled visibly
        assert name == kinds[finding["action"]]
        assert (props["file"], props["line"], props["col"], props["title"]) == (
            file, str(finding["line"]), str(finding["column"]), finding["rule"])
        # line breaks kept (the runner's own %0D%0A); any other control character of the input spelled as the text
        # format spells it, so no escape sequence reaches the log
        text = f"{finding['path']}: {full_text(finding)}"
        assert data == "".join(c if c in "\r\n" else printable(c) for c in text)
        assert ("\x1b" in text) == ("\r\n\\x02\\x1b[5m]]>" in data)


# --- text ----------------------------------------------------------------------------------------------------------

def test_text_lets_no_escape_sequence_from_the_input_reach_the_terminal(reports: Reports) -> None:
    text = reports.stdout.decode("utf-8")
    plain = re.sub(r"\x1b\[(?:3[1-6]|0)m", "", text)  # draguard's own colours (--color always)
    assert plain != text
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]", plain)
    assert "numa\\r\\n\\x02\\x1b[5m]]>%,:" in plain
    assert re.search(r"^bytes \\udcff\.yaml:13:", plain, re.MULTILINE)
