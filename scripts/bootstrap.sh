#!/usr/bin/env bash
# Set up .venv with memrecall. `bootstrap.sh` installs what baseline, run and evaluate need; `bootstrap.sh test`
# adds the `test` extra (test tools, Ray, the adapters' stacks). Safe to run again: it skips what is done.
# It also installs bubblewrap (apt-get, when run as root and it is missing), the sandbox plug-ins run in.
# torch is installed first, pinned and CPU-only, so that sentence-transformers never pulls a CUDA build.
# Where it comes from: MEMRECALL_TORCH_INDEX, a pip index URL added beside pip's configured index. The
# default, "auto", uses a local torch wheel when pip's find-links (PIP_FIND_LINKS) holds one, and PyTorch's
# CPU wheel index (the one package URL written here) otherwise. Everything else comes from pip's configured index.
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_VERSION="2.13.0"
CPU_INDEX="https://download.pytorch.org/whl/cpu"
PYTHON="${PYTHON:-python3}"
case "${1:-}" in
  "") target="." ;;
  test) target=".[test]" ;;
  *) echo "usage: bash scripts/bootstrap.sh [test]" >&2; exit 2 ;;
esac
# bubblewrap: every plug-in worker and service process runs inside it (docs/verification.md)
if ! command -v bwrap > /dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "bubblewrap from apt-get" >&2
    apt-get install -y -qq bubblewrap > /dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap > /dev/null; }
  else
    echo "warning: bubblewrap (bwrap) is missing: plug-in runs are refused without --sandbox none;" \
      "install it as root (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap)" >&2
  fi
fi
stamp=".venv/.memrecall-installed"
sources="torch==${TORCH_VERSION} $(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
want="$sources $target"
# an install with the test extra also holds the default one
if [ -f "$stamp" ] && { [ "$(cat "$stamp")" = "$want" ] || [ "$(cat "$stamp")" = "$sources .[test]" ]; }; then
  exit 0
fi
torch_index="${MEMRECALL_TORCH_INDEX:-auto}"
if [ "$torch_index" = auto ]; then
  torch_index="$CPU_INDEX"
  for folder in ${PIP_FIND_LINKS:-}; do
    if compgen -G "$folder/torch-${TORCH_VERSION}*.whl" > /dev/null; then torch_index=""; fi
  done
fi
pip_install() { .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt "$@"; }
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
if [ -n "$torch_index" ]; then
  echo "torch ${TORCH_VERSION} (CPU) from $torch_index" >&2
  # an extra index beside pip's configured one(s): torch's own dependencies still come from there, and
  # the CPU build (2.13.0+cpu) sorts above a plain 2.13.0 under PEP 440, so pip takes it
  pip_install "torch==${TORCH_VERSION}" --extra-index-url "$torch_index"
else
  echo "torch ${TORCH_VERSION} from the local wheel source" >&2
  pip_install "torch==${TORCH_VERSION}"
fi
pip_install -e "$target"
[ "$target" = "." ] || npm install --prefix .venv/node --no-audit --no-fund --silent @modelcontextprotocol/server-memory@2026.8.31 >&2  # tests/adapters/test_mcp_service.py
echo "$want" > "$stamp"
echo "memrecall ($target) installed in .venv" >&2
