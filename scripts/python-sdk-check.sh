#!/usr/bin/env bash
# The Python SDK (packages/python): builds its wheel, type-checks it with mypy --strict and runs its
# tests (which install that wheel into a fresh virtual environment and start the built service:
# run `npm run build` first). Python and its packages come from the machine: pip installs pytest,
# mypy and hatchling into a temporary tools environment, without retrying an index it cannot reach.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT

"$PYTHON" -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install --quiet --retries 0 pytest mypy hatchling httpx cryptography

echo "-- wheel"
"$tools/venv/bin/python" -m pip wheel --quiet --no-deps --no-build-isolation --retries 0 -w "$tools/dist" packages/python
ls "$tools/dist"
echo "-- the async client is the generated one"
"$tools/venv/bin/python" packages/python/scripts/gen_async.py --check
echo "-- mypy --strict -p agentry"
(cd packages/python && "$tools/venv/bin/python" -m mypy --strict --cache-dir "$tools/mypy-cache" -p agentry)
echo "-- pytest against a started service"
(cd packages/python && "$tools/venv/bin/python" -m pytest -q)
