#!/usr/bin/env bash
# npm run test:python — the Python client's checks: ruff (lint and format), mypy --strict, and pytest against
# the real service (tests/conftest.py starts it: node, npm install and redis-server as for `npm start`).
# The development tools (requirements-dev.txt, pinned) go into the repository's .venv (PYTHON_VENV to change it),
# created with python3 (PYTHON to change it) when missing and refreshed when requirements-dev.txt changes.
# Arguments go to pytest (e.g. npm run test:python -- -k webhooks).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
PKG="$ROOT/libs/python-client"
VENV="${PYTHON_VENV:-$ROOT/.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "test:python: creating $VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
fi
STAMP="$VENV/.rag-forensics-requirements"
if ! cmp -s "$PKG/requirements-dev.txt" "$STAMP" || ! "$VENV/bin/python" -c 'import rag_forensics' 2>/dev/null; then
  echo "test:python: installing the development tools and the package (editable) into $VENV"
  "$VENV/bin/python" -m pip install -q -r "$PKG/requirements-dev.txt"
  "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps -e "$PKG"
  cp "$PKG/requirements-dev.txt" "$STAMP"
fi
cd "$PKG"
echo "test:python: ruff"
EXAMPLES=("$ROOT/examples/python-rag" "$ROOT/examples/python-langchain" "$ROOT/examples/python-llamaindex")
"$VENV/bin/ruff" check . "${EXAMPLES[@]}"
"$VENV/bin/ruff" format --check . "${EXAMPLES[@]}"
echo "test:python: mypy --strict"
"$VENV/bin/mypy" --strict src tests scripts bench "${EXAMPLES[@]}"
echo "test:python: pytest"
exec "$VENV/bin/pytest" -p no:cacheprovider "$@"
