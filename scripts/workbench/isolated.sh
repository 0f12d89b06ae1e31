#!/usr/bin/env bash
# Runs a command in a private network namespace that has only loopback (127.0.0.1, ::1), so
# nothing started inside (code-server, its extension host, Chromium) can reach another address.
# Needs root (or CAP_SYS_ADMIN); where `unshare -n` is not permitted it warns and runs the
# command without isolation. BATON_NO_NETNS=1 skips the isolation on purpose.
#   usage: scripts/workbench/isolated.sh node test/harness/selftest/run.mjs
# Exit code = the command's exit code. Do not run install.sh inside it (it needs the registries).
set -euo pipefail
if [ $# -eq 0 ]; then echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; fi
if [ "${BATON_NO_NETNS:-}" = 1 ]; then exec "$@"; fi
if ! command -v ip >/dev/null; then
  # without `ip` the namespace's loopback stays down and 127.0.0.1 would be unreachable
  echo "isolated.sh: 'ip' (Debian package iproute2) not found; running WITHOUT network isolation" >&2
  exec "$@"
fi
if ! unshare -n true 2>/dev/null; then
  echo "isolated.sh: 'unshare -n' not permitted here; running WITHOUT network isolation" >&2
  exec "$@"
fi
exec unshare -n -- bash -c 'ip link set lo up || { echo "isolated.sh: cannot bring up loopback" >&2; exit 125; }; exec "$@"' isolated "$@"
