"""ctypes binding to llama.cpp's C API as shipped inside the xllamacpp wheel: no compiler needed.

The xllamacpp wheel carries a complete llama.cpp build in one shared library that exports the C API
(`llama_model_load_from_file`, `llama_decode`, `llama_get_logits_ith`, ...). Python's ctypes can call
it directly, which gives per-position logits without compiling llama-cpp-python (~8 minutes here).

The price is that ctypes cannot read `llama.h`: the two parameter structs passed by value
(`llama_model_params`, `llama_context_params`) are described below by byte offset, for llama.cpp
b11549 (xllamacpp 2026.10.11549, whose version ends in the llama.cpp build number). Rather than trust
that, every load checks the layout three ways and refuses to run on a mismatch:
  1. each described field holds its documented default in the struct `llama_*_default_params()` returns;
  2. after the context is made, llama.cpp's own getters report the sizes and thread counts we set
     (and, through `llama_n_ctx_seq`, whether several sequences share one unified KV cache);
  3. what no getter reports — flash attention off, f32 K/V types — is read from the whole log
     llama.cpp writes while it creates the context (about 1,000 lines for a 30-layer model).
We start from the library's defaults and only write the fields named here, so fields this file does
not know keep their defaults.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.metadata
import importlib.util
import logging
import os
import re
import struct
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.models.llamacpp import check_gguf

log = logging.getLogger("bananabench.llama")

LAYOUT_BUILD = 11549  # llama.cpp build whose llama.h the offsets below were read from
GGML_TYPE_F32 = 0
LLAMA_MAX_SEQ = 256
GGML_LOG_WARN, GGML_LOG_CONT = 3, 5
FLASH_ATTN_DISABLED = 0


@dataclass(frozen=True)
class Field:
    offset: int
    fmt: str  # struct module code: i int32, I uint32, f float, Q pointer/size_t, ? bool
    default: Any  # the value llama_*_default_params() returns (checked on load)


@dataclass(frozen=True)
class Layout:
    name: str
    size: int
    fields: dict[str, Field]

    def get(self, raw: Any, name: str) -> Any:
        f = self.fields[name]
        return struct.unpack_from("<" + f.fmt, raw, f.offset)[0]

    def set(self, raw: Any, name: str, value: Any) -> None:
        f = self.fields[name]
        struct.pack_into("<" + f.fmt, raw, f.offset, value)

    def mismatches(self, raw: Any) -> list[str]:
        bad = []
        for name, f in self.fields.items():
            got = self.get(raw, name)
            if got != f.default:
                bad.append(f"{name}@{f.offset:#x}: expected {f.default!r}, got {got!r}")
        return bad


# llama.h (b11549) `struct llama_model_params`: 80 bytes.
MODEL_PARAMS = Layout("llama_model_params", 80, {
    "devices": Field(0x00, "Q", 0),
    "tensor_buft_overrides": Field(0x08, "Q", 0),
    "n_gpu_layers": Field(0x10, "i", -1),
    "split_mode": Field(0x14, "i", 1),  # LLAMA_SPLIT_MODE_LAYER
    "load_mode": Field(0x18, "i", -1),  # LLAMA_LOAD_MODE_AUTO
    "lazy_mode": Field(0x1C, "i", 1),  # LLAMA_LAZY_MODE_AUTO
    "main_gpu": Field(0x20, "i", 0),
    "tensor_split": Field(0x28, "Q", 0),
    "progress_callback": Field(0x30, "Q", 0),
    "progress_callback_user_data": Field(0x38, "Q", 0),
    "kv_overrides": Field(0x40, "Q", 0),
    "vocab_only": Field(0x48, "?", False),
    "check_tensors": Field(0x49, "?", False),
    "use_extra_bufts": Field(0x4A, "?", True),
    "no_host": Field(0x4B, "?", False),
    "no_alloc": Field(0x4C, "?", False),
    "load_mtp": Field(0x4D, "?", False),
})

# llama.h (b11549) `struct llama_context_params`: 168 bytes. The 8 bytes at 0x80 (after
# abort_callback_data) are a field no header we could read names; it defaults to zero and we keep it.
CONTEXT_PARAMS = Layout("llama_context_params", 168, {
    "n_ctx": Field(0x00, "I", 512),
    "n_batch": Field(0x04, "I", 2048),
    "n_ubatch": Field(0x08, "I", 512),
    "n_seq_max": Field(0x0C, "I", 1),
    "n_rs_seq": Field(0x10, "I", 0),
    "n_outputs_max": Field(0x14, "I", 0),
    "n_outputs_max_per_seq": Field(0x18, "I", 1),
    "n_threads": Field(0x1C, "i", 4),
    "n_threads_batch": Field(0x20, "i", 4),
    "ctx_type": Field(0x24, "i", 0),
    "rope_scaling_type": Field(0x28, "i", -1),
    "pooling_type": Field(0x2C, "i", -1),
    "attention_type": Field(0x30, "i", -1),
    "flash_attn_type": Field(0x34, "i", -1),
    "rope_freq_base": Field(0x38, "f", 0.0),
    "rope_freq_scale": Field(0x3C, "f", 0.0),
    "yarn_ext_factor": Field(0x40, "f", -1.0),
    "yarn_attn_factor": Field(0x44, "f", -1.0),
    "yarn_beta_fast": Field(0x48, "f", -1.0),
    "yarn_beta_slow": Field(0x4C, "f", -1.0),
    "yarn_orig_ctx": Field(0x50, "I", 0),
    "defrag_thold": Field(0x54, "f", -1.0),
    "cb_eval": Field(0x58, "Q", 0),
    "cb_eval_user_data": Field(0x60, "Q", 0),
    "type_k": Field(0x68, "i", 1),  # GGML_TYPE_F16
    "type_v": Field(0x6C, "i", 1),
    "abort_callback": Field(0x70, "Q", 0),
    "abort_callback_data": Field(0x78, "Q", 0),
    "embeddings": Field(0x88, "?", False),
    "offload_kqv": Field(0x89, "?", True),
    "no_perf": Field(0x8A, "?", True),
    "op_offload": Field(0x8B, "?", True),
    "swa_full": Field(0x8C, "?", True),
    "kv_unified": Field(0x8D, "?", False),
    "samplers": Field(0x90, "Q", 0),
    "n_samplers": Field(0x98, "Q", 0),
    "ctx_other": Field(0xA0, "Q", 0),
})


class ModelParams(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_uint8 * MODEL_PARAMS.size)]


class ContextParams(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_uint8 * CONTEXT_PARAMS.size)]


class Batch(ctypes.Structure):
    """`struct llama_batch`: unchanged for years; the arrays are numpy buffers we own."""

    _fields_ = [
        ("n_tokens", ctypes.c_int32),
        ("token", ctypes.c_void_p),
        ("embd", ctypes.c_void_p),
        ("pos", ctypes.c_void_p),
        ("n_seq_id", ctypes.c_void_p),
        ("seq_id", ctypes.c_void_p),
        ("logits", ctypes.c_void_p),
    ]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_P = ctypes.c_void_p
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "llama_backend_init": (None, []),
    "llama_log_set": (None, [LOG_CALLBACK, _P]),
    "llama_model_default_params": (ModelParams, []),
    "llama_context_default_params": (ContextParams, []),
    "llama_model_load_from_file": (_P, [ctypes.c_char_p, ModelParams]),
    "llama_model_free": (None, [_P]),
    "llama_init_from_model": (_P, [_P, ContextParams]),
    "llama_free": (None, [_P]),
    "llama_model_get_vocab": (_P, [_P]),
    "llama_vocab_n_tokens": (ctypes.c_int32, [_P]),
    "llama_vocab_bos": (ctypes.c_int32, [_P]),
    "llama_tokenize": (ctypes.c_int32, [_P, ctypes.c_char_p, ctypes.c_int32, _P, ctypes.c_int32,
                                        ctypes.c_bool, ctypes.c_bool]),
    "llama_model_n_params": (ctypes.c_uint64, [_P]),
    "llama_model_n_ctx_train": (ctypes.c_int32, [_P]),
    "llama_model_meta_val_str": (ctypes.c_int32, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "llama_model_ftype": (ctypes.c_int, [_P]),
    "llama_ftype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "llama_model_has_encoder": (ctypes.c_bool, [_P]),
    "llama_model_is_recurrent": (ctypes.c_bool, [_P]),
    "llama_model_is_hybrid": (ctypes.c_bool, [_P]),
    "llama_n_ctx": (ctypes.c_uint32, [_P]),
    "llama_n_ctx_seq": (ctypes.c_uint32, [_P]),
    "llama_n_batch": (ctypes.c_uint32, [_P]),
    "llama_n_ubatch": (ctypes.c_uint32, [_P]),
    "llama_n_seq_max": (ctypes.c_uint32, [_P]),
    "llama_n_threads": (ctypes.c_int32, [_P]),
    "llama_n_threads_batch": (ctypes.c_int32, [_P]),
    "llama_get_memory": (_P, [_P]),
    "llama_memory_clear": (None, [_P, ctypes.c_bool]),
    "llama_memory_seq_rm": (ctypes.c_bool, [_P, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]),
    "llama_decode": (ctypes.c_int32, [_P, Batch]),
    "llama_get_logits": (_P, [_P]),
    "llama_get_logits_ith": (_P, [_P, ctypes.c_int32]),
}


def xllamacpp_version() -> str | None:
    try:
        return importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        return None


def llama_build(version: str | None) -> int | None:
    """xllamacpp versions are `YEAR.MONTH.BUILD`, BUILD being the llama.cpp release (b11549 -> 11549)."""
    if not version:
        return None
    last = version.split(".")[-1]
    return int(last) if last.isdigit() else None


class Library:
    """The loaded shared library with typed functions, a log capture, and a verified struct layout."""

    def __init__(self, path: Path):
        self.path = path
        self.version = xllamacpp_version()
        self.build = llama_build(self.version)
        try:
            self.lib = ctypes.CDLL(str(path))
        except OSError as exc:
            raise EvaluationFailure(f"cannot load llama.cpp from {path}: {exc}") from None
        missing = [name for name in _SIGNATURES if not hasattr(self.lib, name)]
        if missing:
            raise EvaluationFailure(
                f"{path} (xllamacpp {self.version}) lacks llama.cpp functions {', '.join(missing)}; "
                f"this binding was written for llama.cpp b{LAYOUT_BUILD}")
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(self.lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        self._check_defaults()
        self.logs: deque[tuple[int, str]] = deque(maxlen=400)  # (ggml log level, text), for error messages
        self._captured: list[str] | None = None  # every line while `capture` is active
        self._log_lock = threading.Lock()
        self._log_callback = LOG_CALLBACK(self._on_log)  # kept referenced: llama.cpp holds the pointer
        self.lib.llama_log_set(self._log_callback, None)
        self.lib.llama_backend_init()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lib, name)

    def _on_log(self, level: int, text: bytes | None, _user: Any) -> None:
        if text:
            line = text.decode("utf-8", "replace")
            with self._log_lock:
                if level == GGML_LOG_CONT and self.logs:
                    level = self.logs[-1][0]
                self.logs.append((level, line))
                if self._captured is not None:
                    self._captured.append(line)
            log.debug("llama.cpp: %s", line.rstrip())

    def recent_log(self, n: int = 4) -> str:
        """The last warnings and errors llama.cpp logged (else its last lines), for error messages."""
        with self._log_lock:
            entries = list(self.logs)
        serious = [text for level, text in entries if level >= GGML_LOG_WARN]
        lines = [line.strip() for line in (serious or [text for _, text in entries])[-n:] if line.strip()]
        return " | ".join(lines) or "(llama.cpp logged nothing)"

    def forget_log(self) -> None:
        """Start error messages afresh (before a load, so they quote only what that load logged)."""
        with self._log_lock:
            self.logs.clear()

    @contextlib.contextmanager
    def capture(self) -> Iterator[list[str]]:
        """Every line llama.cpp logs inside the block, however many (the ring buffer keeps only the last)."""
        lines: list[str] = []
        with self._log_lock:
            self._captured = lines
        try:
            yield lines
        finally:
            with self._log_lock:
                self._captured = None

    def _check_defaults(self) -> None:
        bad = (MODEL_PARAMS.mismatches(self.lib.llama_model_default_params().raw)
               + CONTEXT_PARAMS.mismatches(self.lib.llama_context_default_params().raw))
        if bad:
            raise EvaluationFailure(
                f"llama.cpp in xllamacpp {self.version} has a parameter layout this binding does not know "
                f"(written for llama.cpp b{LAYOUT_BUILD}); refusing to guess: " + "; ".join(bad[:6]))
        if self.build != LAYOUT_BUILD:
            log.info("xllamacpp %s: struct defaults match the b%d layout; proceeding", self.version, LAYOUT_BUILD)

    def model_params(self, **values: Any) -> ModelParams:
        params = self.lib.llama_model_default_params()
        for name, value in values.items():
            MODEL_PARAMS.set(params.raw, name, value)
        return params

    def context_params(self, **values: Any) -> ContextParams:
        params = self.lib.llama_context_default_params()
        for name, value in values.items():
            CONTEXT_PARAMS.set(params.raw, name, value)
        return params


_LIBRARY: Library | None = None
_LIBRARY_LOCK = threading.Lock()


def library() -> Library:
    """The process-wide library (llama.cpp's backend and log hook are global state)."""
    global _LIBRARY
    with _LIBRARY_LOCK:
        if _LIBRARY is None:
            spec = importlib.util.find_spec("xllamacpp")
            if spec is None or not spec.submodule_search_locations:
                raise EvaluationFailure(
                    "the gguf backend needs llama.cpp from the xllamacpp wheel: pip install 'bananabench[gguf]'")
            # llama.cpp's CPU threads are OpenMP threads; with the default (active) wait policy, idle
            # threads spin, and on a busy machine 2 threads ran 5x slower than 1 (measured, 2 cores,
            # load 3). Passive waiting fixes that; it is read once, when the runtime loads, and a value
            # the user set wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            folder = Path(next(iter(spec.submodule_search_locations)))
            candidates = sorted(folder.glob("xllamacpp*.so")) + sorted(folder.glob("xllamacpp*.pyd"))
            if not candidates:
                raise EvaluationFailure(f"no llama.cpp shared library in {folder}")
            _LIBRARY = Library(candidates[0])
        return _LIBRARY


_CONTEXT_LOG = re.compile(r"llama_context:\s+(\w+)\s+=\s+(\S+)")
_KV_TYPES = re.compile(r"llama_kv_cache: size = .*K \((\w+)\).*V \((\w+)\)")


class Model:
    """A loaded GGUF model plus one context configured for exact scoring.

    `n_batch` tokens at most per `decode` call (also the micro-batch: llama.cpp does not split a call
    further); `n_seq_max` sequences, sharing one unified KV cache when there are several.
    """

    def __init__(self, path: Path, *, n_ctx: int | None, n_batch: int, n_seq_max: int, threads: int,
                 n_gpu_layers: int):
        for name, value in (("n_ctx", n_ctx or 1), ("n_batch", n_batch), ("n_seq_max", n_seq_max), ("threads", threads)):
            if value < 1:
                raise BadInput(f"{name} must be at least 1, got {value}")
        self.path = check_gguf(path)
        self.lib = library()
        self.lib.forget_log()
        self.model = self.lib.llama_model_load_from_file(
            str(path).encode(), self.lib.model_params(n_gpu_layers=n_gpu_layers))
        if not self.model:
            raise BadInput(f"{path}: llama.cpp could not load this GGUF: {self.lib.recent_log()}")
        self.ctx = None
        try:
            if self.lib.llama_model_has_encoder(self.model):
                raise BadInput(f"{path}: encoder-decoder models are not supported for log-likelihood scoring")
            self.vocab = self.lib.llama_model_get_vocab(self.model)
            self.n_vocab = self.lib.llama_vocab_n_tokens(self.vocab)
            self.n_ctx_train = self.lib.llama_model_n_ctx_train(self.model)
            self.recurrent = bool(self.lib.llama_model_is_recurrent(self.model)
                                  or self.lib.llama_model_is_hybrid(self.model))
            want_ctx = n_ctx or min(self.n_ctx_train, 4096)
            batch = min(n_batch, want_ctx)
            # llama.cpp reserves one logits row per sequence and asserts (aborting the process) when
            # that exceeds its per-batch output limit, which is n_batch here
            n_seq_max = min(n_seq_max, batch, LLAMA_MAX_SEQ)
            params = self.lib.context_params(
                n_ctx=want_ctx, n_batch=batch, n_ubatch=batch, n_seq_max=n_seq_max,
                n_threads=threads, n_threads_batch=threads, flash_attn_type=FLASH_ATTN_DISABLED,
                type_k=GGML_TYPE_F32, type_v=GGML_TYPE_F32, kv_unified=n_seq_max > 1,
                offload_kqv=n_gpu_layers != 0)
            self.lib.forget_log()
            with self.lib.capture() as lines:
                self.ctx = self.lib.llama_init_from_model(self.model, params)
            if not self.ctx:
                raise EvaluationFailure(f"{path}: llama.cpp could not create a context: {self.lib.recent_log()}")
            self._verify_context(lines, want_ctx, batch, n_seq_max, threads)
        except BaseException:
            self.close()
            raise
        self.n_ctx = self.lib.llama_n_ctx(self.ctx)
        self.n_batch = self.lib.llama_n_batch(self.ctx)
        self.n_seq_max = self.lib.llama_n_seq_max(self.ctx)
        self.memory = self.lib.llama_get_memory(self.ctx)

    def _verify_context(self, lines: list[str], n_ctx: int, n_batch: int, n_seq_max: int, threads: int) -> None:
        """Refuse to score unless llama.cpp reports exactly the exact-scoring settings we asked for.

        Sizes, threads and KV sharing come from llama.cpp's getters; flash attention and the K/V types,
        which no getter reports, from `lines`: everything llama.cpp logged while creating the context.
        """
        lib, ctx = self.lib, self.ctx
        got = {"n_ctx": lib.llama_n_ctx(ctx), "n_batch": lib.llama_n_batch(ctx), "n_ubatch": lib.llama_n_ubatch(ctx),
               "n_seq_max": lib.llama_n_seq_max(ctx), "n_threads": lib.llama_n_threads(ctx),
               "n_threads_batch": lib.llama_n_threads_batch(ctx)}
        want = {"n_ctx": n_ctx, "n_batch": n_batch, "n_ubatch": n_batch, "n_seq_max": n_seq_max, "n_threads": threads,
                "n_threads_batch": threads}
        # llama.cpp pads the context up to a multiple of 256 cells
        problems = [f"{k}={got[k]} (asked {want[k]})" for k in want
                    if got[k] != want[k] and not (k == "n_ctx" and got[k] > want[k])]
        # a unified cache gives every sequence the whole context; split caches give each a share
        if not self.recurrent and n_seq_max > 1 and lib.llama_n_ctx_seq(ctx) != got["n_ctx"]:
            problems.append(f"kv_unified=false (per-sequence context {lib.llama_n_ctx_seq(ctx)}, asked unified)")
        text = "".join(lines)
        reported = dict(_CONTEXT_LOG.findall(text))
        if reported.get("flash_attn") != "disabled":
            problems.append(f"flash_attn={reported.get('flash_attn', 'unreported')} (asked disabled)")
        kv = _KV_TYPES.search(text)
        if not self.recurrent and (kv is None or kv.groups() != ("f32", "f32")):
            problems.append(f"KV cache types={kv.groups() if kv else 'unreported'} (asked f32/f32)")
        if problems:
            raise EvaluationFailure(
                f"llama.cpp (xllamacpp {lib.version}) did not apply the exact-scoring context settings: "
                + ", ".join(problems))

    def tokenize(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        cap = len(data) + 16
        while True:
            buf = np.empty(cap, dtype=np.int32)
            n = self.lib.llama_tokenize(self.vocab, data, len(data), buf.ctypes.data, cap, False, False)
            if n >= 0:
                return buf[:n].tolist()
            cap = -n

    def meta(self, key: str) -> str | None:
        buf = ctypes.create_string_buffer(512)
        n = self.lib.llama_model_meta_val_str(self.model, key.encode(), buf, len(buf))
        if n < 0:
            return None
        if n >= len(buf):
            buf = ctypes.create_string_buffer(n + 1)
            self.lib.llama_model_meta_val_str(self.model, key.encode(), buf, len(buf))
        return buf.value.decode("utf-8", "replace")

    @property
    def bos(self) -> int | None:
        bos = self.lib.llama_vocab_bos(self.vocab)
        return bos if bos >= 0 else None

    def clear(self) -> None:
        self.lib.llama_memory_clear(self.memory, True)

    def cut(self, seq: int, start: int) -> None:
        """Drop sequence `seq`'s cells from position `start` on (llama.cpp frees them for the next decode)."""
        if not self.lib.llama_memory_seq_rm(self.memory, seq, start, -1):
            raise EvaluationFailure(f"llama.cpp cannot cut sequence {seq} back to position {start}")

    def decode(self, tokens: np.ndarray, pos: np.ndarray, n_seq_id: np.ndarray, seq_ptrs: np.ndarray,
               outputs: np.ndarray) -> np.ndarray:
        """Run one `llama_decode`; return the float32 logits rows of the output positions, in order.

        The arrays must be contiguous int32 (tokens, pos, n_seq_id), uint64 addresses (seq_ptrs) and
        int8 (outputs); the returned view is valid until the next decode.
        """
        n = len(tokens)
        batch = Batch(n, tokens.ctypes.data, None, pos.ctypes.data, n_seq_id.ctypes.data, seq_ptrs.ctypes.data,
                      outputs.ctypes.data)
        rc = self.lib.llama_decode(self.ctx, batch)
        if rc != 0:
            raise EvaluationFailure(f"llama_decode failed with code {rc}: {self.lib.recent_log()}")
        rows = np.flatnonzero(outputs)
        n_out = len(rows)
        if n_out == 0:
            return np.empty((0, self.n_vocab), dtype=np.float32)
        base = self.lib.llama_get_logits(self.ctx)
        first = self.lib.llama_get_logits_ith(self.ctx, int(rows[0]))
        last = self.lib.llama_get_logits_ith(self.ctx, int(rows[-1]))
        row_bytes = 4 * self.n_vocab
        if base and first == base and last == base + (n_out - 1) * row_bytes:
            return np.ctypeslib.as_array(ctypes.cast(base, ctypes.POINTER(ctypes.c_float)),
                                         shape=(n_out, self.n_vocab))
        out = np.empty((n_out, self.n_vocab), dtype=np.float32)  # logits not contiguous: copy row by row
        for k, i in enumerate(rows):
            ptr = self.lib.llama_get_logits_ith(self.ctx, int(i))
            if not ptr:
                raise EvaluationFailure(f"llama.cpp returned no logits for batch row {i}")
            out[k] = np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(self.n_vocab,))
        return out

    def close(self) -> None:
        if getattr(self, "ctx", None):
            self.lib.llama_free(self.ctx)
            self.ctx = None
        if getattr(self, "model", None):
            self.lib.llama_model_free(self.model)
            self.model = None


def seq_pointer_array(pool: np.ndarray, offsets: Sequence[int] | np.ndarray) -> np.ndarray:
    """Addresses of `pool[offset]` (int32) as the `llama_seq_id **` array llama_batch wants."""
    return (pool.ctypes.data + 4 * np.asarray(offsets, dtype=np.uint64)).astype(np.uint64)
