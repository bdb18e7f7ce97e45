# The two commands a fresh clone needs: `make run` and `make test`. Everything else is a convenience.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test check lint typecheck pytest bench clean

install: $(STAMP)

# Re-install when the project metadata changes; a fresh clone builds the venv from scratch.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The webhook on https://127.0.0.1:8443 with a self-signed CA and the default policy; Ctrl-C stops it.
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

bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info

# Mutation testing, not part of `make test` (minutes to hours per package, see docs/testing.md): mutmut per
# package, each mutant against the tests that reach it; prints the score per package. MUTATION="fix certs-issue"
# runs only those; results are kept in build/mutation/, so a second run re-tests only what changed.
.PHONY: mutation
MUTATION ?=
mutation: $(STAMP)
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	$(BIN)/python tests/mutation/run.py $(MUTATION)
