#!/usr/bin/env bash
# Runs before `npm test`: the tests drive real programs that npm does not provide. Debian's
# chromium (the viewer's browser test) and tmux (the `watch` terminal test); ffmpeg also comes from
# the optional npm installer packages, but the system one is preferred; make runs the
# run-pipeline example; bubblewrap, socat and ripgrep are what the sandbox tests run
# (@anthropic-ai/sandbox-runtime on Linux, docs/sandbox.md). When one is missing, this
# installs it with apt-get (as root), or says which command to run.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v make >/dev/null 2>&1 || missing+=(make) # the run-pipeline example's Makefile
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages the tests use: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y --no-install-recommends "${missing[@]}" >&2
else
  echo "the tests need: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
