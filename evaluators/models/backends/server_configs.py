"""Server configurations in the store: each one kept by fingerprint, a model's history of them, and a
warning when a model's server changed since its last run.

Runs record `runs.extra.server_fingerprint` and attempts `attempts.extra.server_fingerprint`, so a
server restarted with other flags in the middle of a run shows up too.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from evaluators.models.backends.discovery import ServerInfo, strip_volatile
from evaluators.store import lookups
from evaluators.store.store import Store

log = logging.getLogger("bananabench")


def record_server_config(store: Store, info: ServerInfo) -> None:
    """Keep the configuration (by fingerprint) in the store's `server_configs` table."""
    store.record_server_config(info.fingerprint, info.config())


def server_history(store: Store, model_name: str) -> list[dict[str, Any]]:
    """Every server configuration a model's runs and attempts used, oldest first.

    Reads `runs.extra.server_fingerprint` and `attempts.extra.server_fingerprint`, so a server
    restarted with other flags in the middle of a run shows up too.
    """
    rows = lookups.server_configs_seen(store, model_name)
    return [{"fingerprint": fp, "first_seen": first, "last_seen": last, "runs": list(runs),
             "config": json.loads(config) if isinstance(config, str) else config}
            for fp, first, last, runs, config in rows]


def config_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """Readable names of what differs between two configuration records."""
    if not old:
        return []
    changes = []
    for key in ("model_id", "mode", "ctx", "n_slots", "args", "preset"):
        if old.get(key) != new.get(key):
            changes.append(f"{key}: {old.get(key)!r} -> {new.get(key)!r}")
    old_props, new_props = strip_volatile(old.get("props") or {}), strip_volatile(new.get("props") or {})
    for key in sorted(set(old_props) | set(new_props)):
        if old_props.get(key) != new_props.get(key):
            changes.append(f"props.{key} changed")
    return changes


def note_server_change(store: Store, model_name: str, info: ServerInfo) -> list[str]:
    """Log (and return) how the server configuration differs from the one this model last used."""
    history = server_history(store, model_name)
    if not history:
        return []
    previous = max(history, key=lambda h: h["last_seen"])
    if previous["fingerprint"] == info.fingerprint:
        return []
    changes = config_changes(previous.get("config"), info.config()) or ["fingerprint"]
    log.warning("server configuration for %s changed since %s (%s -> %s): %s", model_name,
                previous["last_seen"], previous["fingerprint"], info.fingerprint, "; ".join(changes))
    return changes
