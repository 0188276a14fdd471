# Two commands set everything up from nothing: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint screenshots bench captures clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tether demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/ruff format --check .

screenshots: $(STAMP)
	$(BIN)/python -m tests.make_screenshots

bench: $(STAMP)
	$(BIN)/python -m bench

# Record the replay fixtures again from the pinned agents (tests/e2e/agents.py), then their
# tmux reference screens. `make captures CAPTURES="cx171-clear cc332-crash"` does only those.
captures: $(STAMP)
	$(BIN)/python -m tests.e2e.record_captures $(CAPTURES)
	$(BIN)/python -m tests.make_replay_screens $$($(BIN)/python -m tests.e2e.record_captures --names $(CAPTURES))

clean:
	rm -rf $(VENV) .pytest_cache .import_linter_cache .grimp_cache .mypy_cache
