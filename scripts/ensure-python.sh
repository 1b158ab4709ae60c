#!/usr/bin/env bash
# Makes sure Debian's python3 is there with pip, setuptools, wheel and venv: the Python client's suite
# (clients/python) runs with it in npm run test:slow, and its pip install is tested offline into a throwaway venv.
# Installed when missing. Idempotent and quiet; run as root.
set -euo pipefail

python=/usr/bin/python3
has_all() {
  [ -x "$python" ] &&
    "$python" -c "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in ('pip', 'setuptools', 'wheel', 'venv')) else 1)" \
      2>/dev/null
}

if has_all; then
  exit 0
fi
echo "python3 (with pip, setuptools, wheel, venv) is missing: installing Debian's"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends python3 python3-pip python3-setuptools python3-wheel python3-venv >/dev/null
if ! has_all; then
  echo "python3 installed but pip, setuptools, wheel or venv is still missing" >&2
  exit 1
fi
echo "python3: $("$python" --version 2>&1)"
