#!/usr/bin/env bash
# bash scripts/ensure-debian-package.sh PROGRAM PACKAGE
#
# Installs Debian's PACKAGE when PROGRAM is not on the PATH (needs root). CI (.ci/run) uses it
# for what its tests must run for real rather than skip: the site's browser test drives the
# machine's Chromium with playwright-core (never a downloaded browser), and chapter 23's sandbox
# tests run commands in bubblewrap. Without them `pnpm test` skips those tests and says why.
set -euo pipefail

program=${1:?usage: ensure-debian-package.sh PROGRAM PACKAGE}
package=${2:?usage: ensure-debian-package.sh PROGRAM PACKAGE}
if command -v "$program" >/dev/null 2>&1; then
  echo "ensure-debian-package: $(command -v "$program") is present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-debian-package: $program is missing; run as root: apt-get update && apt-get install -y $package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq "$package" >/dev/null
echo "ensure-debian-package: installed $package ($(command -v "$program"))"
