"""The listing starts before the rules load: `pager.start()` requests the first page in its thread at once, and
`draguard audit` calls it before the rule catalogue and CEL are imported, so loading them overlaps the API
server's first answer."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.webhook.audit.apiserver import AuditAPIServer
from webhook.audit.client import Cluster
from webhook.audit.pager import start

WAIT = 10.0  # seconds: only a hung thread gets near it
PAGES = "/apis/resource.k8s.io/v1/resourceslices"


def test_start_requests_the_first_page_before_it_is_asked_for(api: AuditAPIServer) -> None:
    cluster = Cluster.connect(str(api.kubeconfig))
    pause = threading.Event()  # never set: a bounded wait between looks at the stand-in's log
    try:
        pages, listings = start(cluster, 2)
        with pages:
            for _ in range(int(WAIT * 100)):  # the thread's request reaches the stand-in without any next()
                if api.state.requests:
                    break
                pause.wait(0.01)
            assert [(r.method, r.path, r.query) for r in api.state.requests] == [("GET", PAGES, {"limit": ["2"]})]
            listed = [(resource.plural, len(page)) for resource, page in pages]
        assert listed == [("resourceslices", 2), ("resourceslices", 1), ("deviceclasses", 1),
                          ("resourceclaims", 2), ("resourceclaimtemplates", 1)]
        assert {plural: listing.objects for plural, listing in listings.items()} == {
            "resourceslices": 3, "deviceclasses": 1, "resourceclaims": 2, "resourceclaimtemplates": 1}
    finally:
        cluster.close()


CHILD = """
import sys
import webhook.audit.pager as pager
real = pager.start
def start(*args, **kwargs):
    print("rules loaded when the listing starts:", "webhook.run" in sys.modules, "celext" in sys.modules,
          file=sys.stderr)
    return real(*args, **kwargs)
pager.start = start
from webhook.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_audit_starts_listing_before_it_loads_the_rules(api: AuditAPIServer, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, "audit", "--kubeconfig", str(api.kubeconfig), "--quiet"],
                          cwd=tmp_path, capture_output=True, text=True, check=False, env={"PYTHONPATH": str(REPO)},
                          timeout=120)
    assert done.returncode == 1, done.stderr  # the synthetic cluster has findings
    assert "rules loaded when the listing starts: False False" in done.stderr
    assert "ResourceClaim/team-a/fragile:1:1: warn list-fragile-compare" in done.stdout


def test_a_policy_that_cannot_be_read_fails_in_one_line_once_the_listing_started(audit: Any, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("rules: [", encoding="utf-8")
    before = set(threading.enumerate())
    for args, message in ((("--config", "missing.yaml"), "missing.yaml"), (("--config", "bad.yaml"), "bad.yaml")):
        run = audit(*args)
        assert (run.code, run.out) == (2, "")
        assert len(run.err.splitlines()) == 1 and run.err.startswith("draguard: error: ") and message in run.err
    pages_threads = [t for t in threading.enumerate() if t.name == "draguard-audit-pages" and t not in before]
    for thread in pages_threads:  # told to stop: each ends after the request it had in flight
        thread.join(WAIT)
    assert not any(t.is_alive() for t in pages_threads)
