"""Whether a llama.cpp server computes exact log-likelihoods: read from the server, never assumed.

Exact means what `--backend gguf` uses: flash attention off and a float32 K/V cache. llama.cpp's defaults
(flash attention on where it can, an f16 K/V cache) moved a 36-token continuation of SmolLM2 Q4_1 by up to
0.59 nats and changed a prediction. Teacher forcing also needs the prompt cache in host memory off (llama.cpp's
`--cache-ram 0`): it restores saved prompts into slots behind the request plan (`teacher_forcing`), which
moved a log-prob by 0.02 nats. llama.cpp's `/props` does not report these settings; a server started
by `bananabench models serve` (or `models.llamacpp.LlamaServer`) reports them under `ui_settings`, as it was
really configured. A server that reports nothing is not known to be exact, so its runs are non-official
too, with the reason and the one command that starts an exact server.
"""

from __future__ import annotations

from typing import Any

from evaluators.models.backends.discovery import ServerInfo
from evaluators.models.llamacpp_launcher import ATTENTION_KEY

EXACT = {"flash_attn": "disabled", "cache_type_k": "f32", "cache_type_v": "f32", "cache_ram_mib": "0"}
LLAMA_CPP_MODES = ("single", "router")
HINT = ("for exact log-likelihoods start the server with `bananabench models serve MODEL.gguf --exact` "
        "(flash attention off, f32 K/V cache, no prompt cache in host memory)")


def reported_settings(props: Any) -> dict[str, str] | None:
    """The settings of `EXACT` the server reports (a server started by an older bananabench lacks some),
    or None when it reports none."""
    ui = props.get("ui_settings") if isinstance(props, dict) else None
    settings = ui.get(ATTENTION_KEY) if isinstance(ui, dict) else None
    if not isinstance(settings, dict):
        return None
    return {k: settings[k] for k in EXACT if isinstance(settings.get(k), str)} or None


def inexact_reasons(info: ServerInfo) -> list[str]:
    """Why a llama.cpp server's log-likelihoods are not known to be exact (empty: they are, or it is no
    llama.cpp server: other servers are judged by their prompt log-probs' sanity gate alone)."""
    if info.mode not in LLAMA_CPP_MODES:
        return []
    settings = reported_settings(info.props)
    if settings is None:
        return ["the llama.cpp server does not report its attention, K/V cache and prompt cache settings, so "
                "exact log-likelihoods are not established"]
    wrong = [f"{key} {settings.get(key, 'not reported')} (exact: {value})" for key, value in EXACT.items()
             if settings.get(key) != value]
    return [f"the llama.cpp server is not exact: {', '.join(wrong)}"] if wrong else []


def record(info: ServerInfo) -> dict[str, Any]:
    """What a run stores about the server's exactness."""
    reasons = inexact_reasons(info)
    return {"settings": reported_settings(info.props), "exact": not reasons, "reasons": reasons}
