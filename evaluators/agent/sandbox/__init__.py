"""Where an attempt runs: podman, the sandbox image and volumes, limits, hosts, the filtering proxy and Pi."""
