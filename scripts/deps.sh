#!/usr/bin/env bash
# Installs the Debian packages gcut needs, only those missing.
set -euo pipefail
need=()
for pkg in cmake make gcc libpng-dev libjpeg62-turbo-dev libstb-dev libcriterion-dev "$@"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "gcut: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The Python package's tests (scripts/test.sh) need a python3 that can make
# a venv and build an extension (Python.h); pip fetches the rest from PyPI.
if ! python3 -c 'import ensurepip, venv, sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  echo "gcut: installing python3-venv python3-dev" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv python3-dev >/dev/null
fi
