#!/usr/bin/env bash
# Install the Debian packages that the tests and the demo need; a no-op when they are present.
# Without root it names what to install and fails, so nothing runs half-equipped.
set -euo pipefail

# podman+runc: the agent sandbox; chromium: browser tests and screenshots; golang-go, rustc, cargo, g++:
# the toolchains agent tasks use (the offline sandbox image mounts the host's /usr read-only).
# git, patch: the agent sandbox's diff and [repo] tasks.
# python3-pytest: the `pytest` runner of agent tasks (the sandbox runs the hidden tests with Debian's python3).
packages=(podman runc chromium golang-go rustc cargo g++ python3 python3-pytest git patch)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# Node.js and npm run the Pi coding agent (the Makefile's `pi` target checks for Node >= 20.6). A Node
# installed outside Debian's packages (e.g. with its own npm) counts: install Debian's only when absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

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
