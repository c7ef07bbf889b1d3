#!/usr/bin/env bash
# Install the Debian packages that the tests and the demo need; a no-op when they are present.
# Every package is named: nothing relies on Recommends (podman's leave out catatonit, which --init needs).
# Without root it names what to install and fails, so nothing runs half-equipped. `bananabench doctor`
# then checks that each part works the way the code uses it.
set -euo pipefail

packages=(
  # The agent sandbox: podman runs every container with --init (catatonit) under runc, which works on
  # cgroup v1 and v2 (crun, podman's first choice when present, fails on cgroup-v1 hosts, so it is left
  # out); conmon monitors containers, uidmap lets a non-root user run them, slirp4netns gives a
  # non-root `agent build-image` (the full image) its network.
  podman catatonit runc conmon uidmap slirp4netns
  # Chromium for Playwright (site tests, gallery screenshots in the sandbox) and a font to render text.
  chromium fonts-dejavu-core
  # Toolchains agent tasks use (the offline sandbox image mounts the host's /usr read-only); git and
  # patch for attempt diffs and [repo] tasks; python3-pytest for the `pytest` runner of agent tasks
  # (the sandbox runs the hidden tests with Debian's python3); librust-serde-dev, the one crate the Rust
  # real-issue tasks resolve offline, from Debian's registry (/usr/share/cargo/registry, wired in by each
  # task's .cargo/config.toml).
  golang-go rustc cargo g++ make python3 python3-venv python3-pytest librust-serde-dev git patch
  # llama.cpp in the xllamacpp wheel links OpenMP.
  libgomp1
  # `make venv` runs uv with the system's certificates (it reads no pip.conf, where a machine behind a
  # TLS-inspecting proxy names its CA); a minimal Debian has none, and no package above depends on them.
  ca-certificates
)
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
    echo "system-deps: run as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "system-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
