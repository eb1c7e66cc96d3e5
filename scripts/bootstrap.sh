#!/usr/bin/env bash
# Set up .venv with memrecall and its test tools; safe to run again (it skips what is done).
# The CPU build of torch is installed first, pinned, so sentence-transformers does not pull a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_VERSION="2.13.0"
PYTHON="${PYTHON:-python3}"
stamp=".venv/.memrecall-installed"
want="torch==${TORCH_VERSION} $(sha256sum pyproject.toml | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check "torch==${TORCH_VERSION}"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
echo "$want" > "$stamp"
echo "memrecall installed in .venv" >&2
