#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing (idempotent; CI starts from a
# fresh machine). Node and npm come with the machine. The VS Code workbench has its own installer
# (scripts/workbench/install.sh), called by the integration tests' setup.
set -euo pipefail
need=()
for p in git; do
	command -v "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO="sudo -n"
	echo "ensureSystemDeps: installing ${need[*]}" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
