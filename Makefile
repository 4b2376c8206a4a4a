# The two commands of the README: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv test lint typecheck unit demo golden deploy-bundle bench clean e2e

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# PYTHONWARNINGS=ignore: setuptools tells every editable install that a folder named like a
	# package may shadow it; that is what editable means here, and make demo should not print it.
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/vulture compiler webhook vulture_whitelist.py --min-confidence 60

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

# The live federation (tests/e2e/README.md): etcd, kube-apiservers and Karmada built from Go
# modules into $$FEDGATE_E2E_CACHE, fedgate serve registered with it; says so and runs nothing
# without Go.
e2e: $(STAMP)
	tests/e2e/run.sh

demo: $(STAMP)
	$(BIN)/python examples/demo.py

# Rewrite tests/golden/ (the rendered examples and their plan); review the diff before committing.
golden: $(STAMP)
	FEDGATE_REGENERATE_GOLDEN=1 $(BIN)/pytest tests/compiler/test_golden.py tests/compiler/plan/test_plan.py tests/compiler/plan/test_failover_pages.py -q

# Rewrite the policy bundle ConfigMap the webhook Deployment mounts, after editing policies/.
deploy-bundle: $(STAMP)
	$(BIN)/python deploy/bundle_configmap.py > deploy/webhook/policies.yaml

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python bench/review.py
	$(BIN)/python bench/compile.py
	$(BIN)/python bench/check.py
	$(BIN)/python bench/plan.py
	$(BIN)/python bench/plan_tree.py
	$(BIN)/python bench/live_index.py
	$(BIN)/python bench/webhook.py
	$(BIN)/python bench/worker_memory.py

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
