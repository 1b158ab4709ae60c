#!/usr/bin/env bash
# Makes sure `promtool` is on the PATH: installs Debian's prometheus package (which ships it) when it
# is missing. The observability integration tests fail without it. Idempotent and quiet; run as root.
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then
  exit 0
fi
echo "promtool is missing: installing Debian's prometheus"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# No recommends: only promtool is needed, not the exporters and web assets the package suggests.
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
if ! command -v promtool >/dev/null 2>&1; then
  echo "prometheus installed but promtool is still not on the PATH" >&2
  exit 1
fi
echo "promtool: $(promtool --version 2>&1 | head -n 1)"
