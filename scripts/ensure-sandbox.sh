#!/usr/bin/env bash
# Chapter 18 runs the agent's commands inside bubblewrap (bwrap) when it is installed, and its
# sandbox tests (no network, read-only outside the workspace, a private /tmp) must run for real in
# CI (.ci/run). This installs Debian's bubblewrap when it is missing (needs root). Without it the
# agent still works: commands run with approval only, and the tests say they were skipped.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  echo "ensure-sandbox: $(command -v bwrap) is present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-sandbox: bwrap is missing; run as root: apt-get update && apt-get install -y bubblewrap" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null
echo "ensure-sandbox: installed $(bwrap --version 2>/dev/null | head -n 1)"
