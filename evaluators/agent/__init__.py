"""The banana-benchmark: the Pi coding agent works on tasks in a locked-down podman sandbox.

Layout: `datasets` (task format, discovery, selection, content hash) → `run` (attempts in
containers, resumable) → `metrics` (per-attempt numbers from Pi's events, per-run scores).
The sandbox pieces are `podman`, `image`, `proxy` (host side of the model socket), `pi`
(driving Pi in RPC mode), `monitor` (stuck detection) and `containers` (diff, verification,
screenshots in fresh containers).
"""
