#!/usr/bin/env bash
# Install the Debian packages that the tests and the demo need; a no-op when they are present.
# Without root it names what to install and fails, so nothing runs half-equipped.
set -euo pipefail

# podman+runc: the agent sandbox; chromium: browser tests and screenshots; golang-go, rustc, cargo, g++:
# the toolchains agent tasks use (the offline sandbox image mounts the host's /usr read-only).
packages=(podman runc chromium golang-go rustc cargo g++ python3)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "system-deps: missing Debian packages: ${missing[*]}" >&2
    echo "system-deps: run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "system-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
