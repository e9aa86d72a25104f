#!/usr/bin/env bash
# Set up a virtual environment with every extra and run all checks and tests:
# ruff (lint + format), mypy --strict, pytest on every CPU (pytest-xdist) with branch coverage
# combined from the workers, and the quick benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'echo "== checks FAILED"' ERR
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
if [ -f .ci/npm-install.sh ] && command -v npm >/dev/null 2>&1; then
  bash .ci/npm-install.sh
fi
echo "== ruff"; .venv/bin/ruff check src tests benchmarks examples
.venv/bin/ruff format --check src tests benchmarks examples
echo "== mypy"; .venv/bin/mypy
echo "== pytest"; .venv/bin/pytest -q -p no:cacheprovider -n auto --cov=agent_skills --cov-branch --cov-report=term:skip-covered --cov-fail-under=90
if [ -f benchmarks/run.py ]; then
  echo "== benchmark (quick)"; .venv/bin/python benchmarks/run.py --quick
fi
if [ -f benchmarks/load_http.py ]; then
  echo "== HTTP load (smoke)"; .venv/bin/python benchmarks/load_http.py --smoke
fi
echo "== all checks passed"
