#!/usr/bin/env bash
# The site's browser test (test/site/browser.test.ts) drives the machine's Chrome or Chromium with
# playwright-core; it never downloads a browser of its own. In CI (.ci/run) it must run, so this
# installs Debian's chromium when it is missing (needs root).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "ensure-chromium: /usr/bin/chromium is present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing; run as root: apt-get update && apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
echo "ensure-chromium: installed $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
