# The two commands a fresh clone needs: `make run` and `make test`. Everything else is a convenience.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test check lint typecheck pytest bench fuzz soak clean

install: $(STAMP)

# Re-install when the project metadata changes; a fresh clone builds the venv from scratch. The server extra
# (Flask, gunicorn, the Kubernetes client, ...) is what `make run` serves with; `pip install .` alone is the CLI.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server,dev]'
	touch $(STAMP)

# The webhook on https://127.0.0.1:8443 with a self-signed CA and the default policy; Ctrl-C stops it (within 2 s).
run: RUN_CERTS ?= $(or $(TMPDIR),/tmp)/draguard-run/certs
run: $(STAMP)
	@echo "draguard: serving https://127.0.0.1:8443 (default policy, self-signed CA in $(RUN_CERTS)). In another terminal:"
	@echo "  curl -sS --cacert $(RUN_CERTS)/ca.crt -H 'Content-Type: application/json' --data-binary @examples/admissionreview-resourceslice.json https://127.0.0.1:8443/validate/resourceslices | $(BIN)/python -m json.tool"
	$(BIN)/draguard serve --self-signed --cert-dir $(RUN_CERTS) --host 127.0.0.1 --port 8443

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -n 2 -q

# The reliability suite at soak size (more hostile connections, more reviews, a longer drip); minutes, not seconds.
soak: $(STAMP)
	DRAGUARD_SOAK=1 $(BIN)/pytest tests/webhook/reliability -q -p no:randomly

bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# The compiled-vs-reference differential test at 20,000 examples per function (about 20 minutes on 2 cores).
fuzz: FUZZ_EXAMPLES ?= 20000
fuzz: $(STAMP)
	DRAGUARD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -n 2 -q -p no:randomly tests/celext/plan/test_differential.py

clean:
	rm -rf $(VENV) build *.egg-info

# Mutation testing, not part of `make test` (see docs/testing.md): mutmut per package, each mutant against the
# tests that reach it, likely killers first, within a test budget; prints the score per package.
# MUTATION="fix certs-issue" runs only those; results are kept in build/mutation/, so a second run re-tests only
# what changed. `make mutation-full` gives every mutant every test that reaches it (no budget: hours).
# `make mutation-rescore` after a merge: the changed functions' mutants, then the last survivors against the new tests.
.PHONY: mutation mutation-full mutation-rescore
MUTATION ?=
mutation: $(STAMP)
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	$(BIN)/python tests/mutation/run.py $(MUTATION)

mutation-full: $(STAMP)
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	$(BIN)/python tests/mutation/run.py --budget 0 $(MUTATION)

mutation-rescore: $(STAMP)
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	-$(BIN)/python tests/mutation/run.py $(MUTATION)
	$(BIN)/python tests/mutation/run.py --survivors $(MUTATION)
