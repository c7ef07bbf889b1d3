"""A server's exactness is read from the server: `loglik run --backend server` on a real llama.cpp server started
exact and one started with llama.cpp's defaults (flash attention auto, f16 K/V cache)."""

from __future__ import annotations

import json

import pytest

from evaluators.models.backends.discovery import ServerInfo
from evaluators.models.backends.exactness import inexact_reasons, reported_settings
from evaluators.models.llamacpp import LlamaServer
from evaluators.store.store import Store
from tests.conftest import REPO, run_cli

SAMPLE = REPO / "tasks" / "samples" / "base-bench" / "data" / "test.jsonl"


def run_against(server: LlamaServer, results, name: str):
    proc = run_cli("loglik", "run", "--bench", "base-bench", "--data", str(SAMPLE), "--results", str(results),
                   "--backend", "server", "--base-url", server.base_url, "--name", name, "--limit", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    [run] = json.loads(proc.stdout)["runs"]
    return proc, run


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "defaults"])
def test_a_server_reports_its_attention_settings_and_an_inexact_one_makes_the_run_non_official(
        tiny_model, results, exact):
    with LlamaServer(tiny_model["gguf"], n_ctx=1024, parallel=1, exact=exact, threads=1) as server:
        proc, run = run_against(server, results, "tiny")
    reasons = run["official_reasons"]
    [stored] = Store(results).runs(model="tiny")
    artifact = stored.artifact
    assert artifact["extra"]["exactness"]["exact"] is exact
    if exact:
        assert artifact["extra"]["exactness"]["settings"] == {"flash_attn": "disabled", "cache_type_k": "f32",
                                                              "cache_type_v": "f32", "cache_ram_mib": "0"}
        assert not any("server" in r for r in reasons)
        assert "models serve" not in proc.stderr
    else:
        assert artifact["extra"]["exactness"]["settings"] == {"flash_attn": "auto", "cache_type_k": "f16",
                                                              "cache_type_v": "f16", "cache_ram_mib": "8192"}
        [why] = [r for r in reasons if "server" in r]
        assert "flash_attn auto (exact: disabled)" in why and "cache_type_k f16 (exact: f32)" in why
        assert "cache_ram_mib 8192 (exact: 0)" in why
        assert not stored.official and why in stored.extra["official_reasons"]
        hint = [line for line in proc.stderr.splitlines() if "bananabench models serve" in line]
        assert len(hint) == 1 and "--exact" in hint[0]
        site = results.parent / "site"
        published = run_cli("publish", "--results", str(results), "--out", str(site))
        assert published.returncode == 0, published.stderr
        page = (site / "runs" / f"{stored.run_id}.html")
        pages = [page] if page.exists() else [p for p in site.rglob("*.html") if stored.run_id in p.name]
        assert pages, "no run page"
        assert "flash_attn auto (exact: disabled)" in pages[0].read_text()


def test_a_server_that_reports_nothing_is_not_taken_as_exact():
    info = ServerInfo(base_url="http://x", mode="single", model_id="m", model_choice="the only model", ctx=1,
                      ctx_source="--ctx", n_slots=1, props={"build_info": "b1"})
    assert reported_settings(info.props) is None
    [why] = inexact_reasons(info)
    assert "does not report" in why
    vllm = ServerInfo(base_url="http://x", mode="openai", model_id="m", model_choice="the only model", ctx=1,
                      ctx_source="--ctx", n_slots=1)
    assert inexact_reasons(vllm) == []


def test_a_server_started_before_the_prompt_cache_setting_was_reported_is_not_taken_as_exact():
    from evaluators.models.llamacpp_launcher import ATTENTION_KEY

    older = {"flash_attn": "disabled", "cache_type_k": "f32", "cache_type_v": "f32"}
    info = ServerInfo(base_url="http://x", mode="single", model_id="m", model_choice="the only model", ctx=1,
                      ctx_source="--ctx", n_slots=1, props={"ui_settings": {ATTENTION_KEY: older}})
    assert reported_settings(info.props) == older
    assert inexact_reasons(info) == ["the llama.cpp server is not exact: cache_ram_mib not reported (exact: 0)"]
