#!/usr/bin/env bash
# Set up a virtual environment and run the main job on the bundled example skills:
# discover them, show one, and resolve one of its resources (a confined, symlinked file).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
run() { echo "\$ agent-skills $*"; .venv/bin/agent-skills "$@"; echo; }
run list --preset none --root examples/skills
run show release-notes --preset none --root examples/skills
run path incident-report references/timeline.md --preset none --root examples/skills
run report --preset none --root examples/skills
