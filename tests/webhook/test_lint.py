"""webhook.lint: the pipeline, in one process or spread over workers, gives the same answer."""

from __future__ import annotations

from pathlib import Path

from tests.builders import claim_with_selector
from webhook.lint import lint_paths, lint_text
from webhook.policy import Policy

NUMA = 'device.attributes["resource.kubernetes.io"].numaNode'


def _write(tmp_path: Path, files: int) -> None:
    import json

    for i in range(files):
        docs = [json.dumps(claim_with_selector(f"{NUMA} == {k}", name=f"c{i}-{k}")) for k in range(3)]
        (tmp_path / f"f{i}.yaml").write_text("\n---\n".join(docs) + "\n", encoding="utf-8")


def test_workers_give_the_same_findings_in_the_same_order(tmp_path: Path) -> None:
    _write(tmp_path, 6)
    serial = lint_paths([str(tmp_path)], Policy.default(), jobs=1)
    parallel = lint_paths([str(tmp_path)], Policy.default(), jobs=2)
    assert parallel.findings == serial.findings
    assert (parallel.objects, [f.source for f in parallel.files]) == (18, [f.source for f in serial.files])


def test_workers_fix_too(tmp_path: Path) -> None:
    _write(tmp_path, 3)
    parallel = lint_paths([str(tmp_path)], Policy.default(), fix=True, jobs=2)
    assert all(f.fixed is not None and f.fixed.applied == 3 for f in parallel.files)
    assert all(".includes(" in f.fixed.text for f in parallel.files if f.fixed is not None)


def test_objects_of_other_kinds_are_counted_as_skipped() -> None:
    result = lint_text("kind: ConfigMap\n---\nkind: DeviceClass\nmetadata: {name: x}\n", "x.yaml", Policy.default())
    assert (result.objects, result.skipped) == (1, {"ConfigMap": 1})
