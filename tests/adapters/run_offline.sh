#!/bin/sh
# Run the adapter tests inside a network namespace with no route out.
#   tests/adapters/run_offline.sh [PYTEST ARGS...]     e.g. PYTHON=/work/venv-adapters/bin/python tests/adapters/run_offline.sh -q
# With no test path among the arguments it runs every tests/adapters/test_*.py; with one, only what it names.
# `unshare -n` as root (CI); `unshare -rn` (a user namespace mapped to root) otherwise. Inside, only a loopback
# device exists; it is brought up (the service adapters' tests start real servers on 127.0.0.1) and there is no
# other route, so any connect out fails at once with ENETUNREACH and any lookup fails: nothing hangs.
# MEMRECALL_NO_NETWORK=1 makes tests/network_guard.py (via tests/conftest.py) refuse to start if the namespace still has a route out;
# its audit hook fails any test whose Python code tried to connect, even when the stack swallowed the error.
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
root=$(CDPATH= cd -- "$here/../.." && pwd)
python=${PYTHON:-python}
if [ "$(id -u)" = 0 ]; then isolate="unshare -n"; else isolate="unshare -rn"; fi
command -v unshare >/dev/null || { echo "run_offline.sh: unshare (util-linux) is not installed" >&2; exit 2; }
command -v ip >/dev/null || { echo "run_offline.sh: ip (iproute2) is not installed" >&2; exit 2; }
cd "$root"
target=$here
for arg in "$@"; do
  case $arg in -*) ;; *) [ -e "${arg%%::*}" ] && target= ;; esac
done
exec $isolate -- sh -c 'ip link set lo up && exec "$@"' sh env MEMRECALL_NO_NETWORK=1 \
    PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest $target -p no:cacheprovider "$@"
