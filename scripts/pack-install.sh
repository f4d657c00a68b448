#!/usr/bin/env bash
# Installing svc as a package, the way a user would (CI runs this from .ci/run):
#   1. `npm pack` makes the tarball (its prepare script builds dist/ here, on the packing side);
#   2. `npm install -g --omit=dev` installs that tarball into a temp prefix: no build step and no
#      development dependency at install time (a tarball install never runs `prepare`);
#   3. from another directory, with only the prefix's bin/ added to PATH: `svc --version`, a sandbox
#      (`svc sandbox --port 0`), `svc --profile sandbox me` against it; then the sandbox is stopped.
# Everything lives in one temp directory, removed at the end (also on failure or Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/svc-pack-install.XXXXXX")
sandbox_pid=
cleanup() {
  if [ -n "$sandbox_pid" ] && kill -0 "$sandbox_pid" 2>/dev/null; then
    kill "$sandbox_pid" 2>/dev/null || true
    wait "$sandbox_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "pack-install: $*" >&2; exit 1; }

version=$(node -p 'require("./package.json").version')
echo "== npm pack"
tarball=$(npm pack --silent --pack-destination "$work" </dev/null | tail -n 1)
[ -f "$work/$tarball" ] || fail "npm pack made no tarball"
# The tarball carries the built CLI, not the sources.
listing=$(tar -tzf "$work/$tarball")
for file in package/bin/svc.js package/dist/cli.cjs package/dist/openapi.json; do
  grep -qx "$file" <<<"$listing" || fail "$file is not in $tarball"
done
if grep -q '^package/src/' <<<"$listing"; then fail "$tarball carries src/"; fi

echo "== npm install -g --omit=dev $tarball (prefix $work/prefix)"
npm install -g --prefix "$work/prefix" --omit=dev --prefer-offline --no-audit --no-fund "$work/$tarball" </dev/null >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "npm install -g failed"; }
installed="$work/prefix/lib/node_modules/svc"
[ -d "$installed/dist" ] || fail "the installed package has no dist/"
# Development-only dependencies (those no runtime dependency also needs, such as ajv for conf) must
# be absent: a build tool or test runner in the install would mean something asked for it.
for dev in $(node -p 'Object.keys(require("./package.json").devDependencies).join(" ")'); do
  if npm ls "$dev" --omit=dev --all --parseable 2>/dev/null </dev/null | grep -q .; then continue; fi
  [ ! -e "$installed/node_modules/$dev" ] || fail "development dependency $dev was installed"
done

# From another directory, with nothing of the checkout on PATH or in the environment.
elsewhere="$work/elsewhere"
mkdir -p "$elsewhere" "$work/config"
cd "$elsewhere"
export PATH="$work/prefix/bin:$PATH" SVC_CONFIG_DIR="$work/config" NO_COLOR=1
unset SVC_API_KEY SVC_BASE_URL SVC_PROFILE
[ "$(command -v svc)" = "$work/prefix/bin/svc" ] || fail "svc on PATH is $(command -v svc), not the installed one"

echo "== svc --version"
got=$(svc --version)
[ "$got" = "$version" ] || fail "svc --version printed '$got', expected '$version'"

echo "== svc sandbox --port 0"
svc sandbox --port 0 >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 1 150); do
  [ -s "$work/sandbox.out" ] && break
  kill -0 "$sandbox_pid" 2>/dev/null || { cat "$work/sandbox.err" >&2; fail "the sandbox exited"; }
  sleep 0.1
done
[ -s "$work/sandbox.out" ] || fail "the sandbox printed no ready line in 15 s"
base_url=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).baseUrl)' "$work/sandbox.out")

echo "== svc --profile sandbox me (against $base_url)"
me=$(svc --profile sandbox me -o json)
node -e 'const me = JSON.parse(process.argv[1]); if (!me.tenant || !Array.isArray(me.brands)) process.exit(1)' "$me" || fail "svc me printed no account: $me"
# A runtime dependency loaded on demand (jq, WebAssembly) works from the install too.
brands=$(svc --profile sandbox me --jq '.brands | length')
[ "$brands" -gt 0 ] 2>/dev/null || fail "svc me --jq printed '$brands'"

kill "$sandbox_pid"
wait "$sandbox_pid" || true
sandbox_pid=
cd "$root"
echo "pack-install: ok (svc $version from $tarball, installed without dev dependencies, run from another directory)"
