#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium: the console's browser tests drive it headless
# with playwright-core. Installed when missing. Idempotent and quiet; run as root.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "chromium is missing: installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x /usr/bin/chromium ]; then
  echo "chromium installed but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
