"""Run llama.cpp's HTTP server (from the xllamacpp wheel) as its own process; started by `models.llamacpp`.

The wheel has no command-line entry point and its server lives inside the Python process that creates
it, so this module is that process. Protocol with the parent: one JSON argument with the settings; on
success one JSON line `{"base_url": ..., "pid": ...}` on stdout; then it serves until its stdin reaches
end-of-file (the parent stopped it, or died: no orphaned servers) or it gets SIGTERM/SIGINT.
Exit codes: 2 bad settings, 3 the model did not load.
"""

from __future__ import annotations

import enum
import json
import os
import signal
import sys
from typing import Any

ATTENTION_KEY = "bananabench_attention"  # under /props `ui_settings`: see `attention_settings`


def apply_setting(params: Any, name: str, text: str) -> None:
    """Set a (dotted) `CommonParams` field from text, converted to the field's current type."""
    *path, leaf = name.split(".")
    target = params
    for part in path:
        target = getattr(target, part)
    current = getattr(target, leaf)  # AttributeError names an unknown field
    value: Any
    if isinstance(current, bool):
        if text.lower() not in ("1", "0", "true", "false", "on", "off"):
            raise ValueError(f"{name}: expected true/false, got {text!r}")
        value = text.lower() in ("1", "true", "on")
    elif isinstance(current, enum.Enum):
        value = type(current)[text] if text in type(current).__members__ else type(current)(int(text))
    elif isinstance(current, int):
        value = int(text)
    elif isinstance(current, float):
        value = float(text)
    elif isinstance(current, str):
        value = text
    elif isinstance(current, (set, list)):
        value = type(current)(v for v in text.split(",") if v)
    else:
        raise ValueError(f"{name}: fields of type {type(current).__name__} cannot be set from text")
    setattr(target, leaf, value)


def build_params(config: dict[str, Any]) -> Any:
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = config["model"]
    params.n_ctx = config["n_ctx"]
    params.n_parallel = config["parallel"]
    params.hostnames = [config["host"]]
    params.port = config["port"]
    params.verbosity = config["verbosity"]
    if config.get("alias"):
        params.model_alias = {config["alias"]}
    if config.get("threads"):
        params.cpuparams.n_threads = config["threads"]
        params.cpuparams_batch.n_threads = config["threads"]
    if config.get("exact"):
        # Exact scoring: no flash attention, float32 K/V cache (defaults differ from float32 by ~3e-3), and no
        # prompt cache in host memory (it loads saved prompts into slots behind teacher forcing's plan).
        params.flash_attn_type = xlc.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.cache_type_k = xlc.ggml_type.GGML_TYPE_F32
        params.cache_type_v = xlc.ggml_type.GGML_TYPE_F32
        params.cache_ram_mib = 0
    for item in config.get("settings", []):
        name, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r}: expected NAME=VALUE")
        apply_setting(params, name.strip(), text.strip())
    params.ui_config_json = json.dumps({ATTENTION_KEY: attention_settings(params, xlc)})
    return params


def attention_settings(params: Any, xlc: Any) -> dict[str, str]:
    """The settings that decide whether log-probs are exact, as this server was really given them (--set
    included). llama.cpp's /props does not report them; the server shows them under `ui_settings`, which
    `evaluators.models.backends.exactness` reads."""
    return {"flash_attn": xlc.llama_flash_attn_type(int(params.flash_attn_type)).name.rsplit("_", 1)[-1].lower(),
            "cache_type_k": xlc.ggml_type(int(params.cache_type_k)).name.removeprefix("GGML_TYPE_").lower(),
            "cache_type_v": xlc.ggml_type(int(params.cache_type_v)).name.removeprefix("GGML_TYPE_").lower(),
            "cache_ram_mib": str(params.cache_ram_mib)}


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    try:
        params = build_params(config)
    except (AttributeError, KeyError, ValueError, TypeError) as exc:
        print(f"bad llama.cpp setting: {exc}", file=sys.stderr, flush=True)
        return 2
    import xllamacpp as xlc

    try:
        server = xlc.Server(params)
    except Exception as exc:  # the binding raises plain exceptions for every load failure
        print(f"llama.cpp could not load {config['model']}: {exc}", file=sys.stderr, flush=True)
        return 3

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(json.dumps({"base_url": server.listening_address, "pid": os.getpid()}), flush=True)
    try:
        while os.read(0, 4096):
            pass
    except SystemExit:
        pass
    # Leave without running the server's destructor: the process ends, the OS reclaims everything.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
