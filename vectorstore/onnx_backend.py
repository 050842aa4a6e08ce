"""ONNX Runtime encoder for local sentence-transformers models (Transformer + mean/CLS pooling + Normalize).

The ONNX graph is exported once per model and precision from the local weights, never downloaded:
``torch.onnx.export`` of the Hugging Face model, ONNX Runtime's BERT graph fusions, and for int8
``onnxruntime.quantization.quantize_dynamic`` of that graph. The result is cached in
``<data_dir>/cache/onnx/<sha256 of the weights>/<precision>/`` with the tokenizer and pooling configs
beside it. Exports are written to a temporary folder and renamed into place, so a killed export leaves
no half file, and two processes exporting at once both end with the same complete folder.

(sentence-transformers' own ``backend="onnx"`` exports through ``optimum-onnx``, whose only release
pins ``transformers<4.58``; this module needs nothing beyond torch, onnx and onnxruntime.)
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np

RECIPE = 1  # the export recipe's version, part of the cache folder name: bump it when the export changes
EXPORT_RECIPE = f"torch.onnx opset 17, ORT BERT fusions; int8: dynamic, per-channel MatMul+Attention (v{RECIPE})"
PRECISIONS = ("fp32", "int8")
# Rows x padded length per ``session.run``: batches cut by tokens keep the activations in cache. int8, 3,225 chunk
# texts of 400 ICML 2024 papers, 2 cores (`python -m benchmarks.encoder --batching`, best of 3): 64 texts a batch
# 155 texts/s; 256 / 512 / 768 / 1,024 / 2,048 tokens 1.06 / 1.24 / 1.44 / 1.35 / 1.06x that (a first run: 512
# 1.81x, 768 1.71x). fp32 gains 1.0-1.2x. The vectors stay as close to fp32 (int8 mean cosine 0.9938 vs 0.9936).
TOKEN_BUDGET = 768
EXPORTS = 0  # exports run by this process (the tests check that a second load does not export again)
_SUPPORTED_MODULES = {"sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                      "sentence_transformers.models.Normalize"}
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
_lock = threading.RLock()  # re-entrant: an int8 export first exports fp32 under the same lock


def runtime_available() -> bool:
    """onnxruntime (inference) and onnx (export, quantisation) are importable."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def unsupported_reason(model_dir: str | Path) -> str | None:
    """Why this model cannot run on the ONNX backend, or None when it can."""
    folder = Path(model_dir)
    if not folder.is_dir():
        return f"{model_dir} is not a local model folder"
    if not any((folder / w).is_file() for w in _WEIGHTS):
        return f"no {' or '.join(_WEIGHTS)} in {folder}"
    try:
        modules = json.loads((folder / "modules.json").read_text())
        types = {m["type"] for m in modules}
        pooling = next(m for m in modules if m["type"].endswith(".Pooling"))
        pool = json.loads((folder / pooling["path"] / "config.json").read_text())
    except (OSError, ValueError, KeyError, StopIteration):
        return "not a sentence-transformers folder with modules.json and a Pooling module"
    if not types <= _SUPPORTED_MODULES:
        return f"modules {sorted(types - _SUPPORTED_MODULES)} are not supported"
    modes = [k for k, v in pool.items() if k.startswith("pooling_mode_") and v]
    if modes not in (["pooling_mode_mean_tokens"], ["pooling_mode_cls_token"]):
        return f"pooling {modes} is not supported (mean or CLS only)"
    if not (folder / "tokenizer.json").is_file():
        return "no tokenizer.json (fast tokenizer) in the model folder"
    return None


def weights_checksum(model_dir: Path, cache_root: Path) -> str:
    """sha256 of the model's weights file, remembered per (path, size, mtime) so it is hashed once."""
    weights = next(model_dir / w for w in _WEIGHTS if (model_dir / w).is_file())
    stat = weights.stat()
    key = f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_file = cache_root / "checksums.json"
    try:
        memo = json.loads(memo_file.read_text())
    except (OSError, ValueError):
        memo = {}
    if key in memo:
        return str(memo[key])
    digest = hashlib.sha256()
    with open(weights, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    memo[key] = digest.hexdigest()
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        tmp = memo_file.with_name(f".{memo_file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo, indent=1))
        os.replace(tmp, memo_file)
    except OSError:
        pass  # a read-only cache only costs hashing again
    return digest.hexdigest()


def exported_model(model_dir: str | Path, precision: str, cache_root: Path) -> Path:
    """The cached export folder for (model, precision), exporting it first if needed."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r} is not one of {PRECISIONS}")
    model_dir = Path(model_dir)
    checksum = weights_checksum(model_dir, cache_root)
    base = cache_root / checksum[:32]
    target = base / f"{precision}-v{RECIPE}"
    if (target / "export.json").is_file():
        return target
    with _lock:  # one export at a time in this process; other processes race harmlessly (see _publish)
        if (target / "export.json").is_file():
            return target
        source = exported_model(model_dir, "fp32", cache_root) / "model.onnx" if precision == "int8" else None
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=base, prefix=f".tmp-{precision}-"))
        try:
            _copy_configs(model_dir, tmp)
            with _quiet_logging():
                if source is None:
                    _export_fp32(model_dir, tmp / "model.onnx")
                else:
                    _quantize_int8(source, tmp / "model.onnx")
            (tmp / "export.json").write_text(json.dumps({
                "weights_sha256": checksum, "precision": precision, "recipe": EXPORT_RECIPE,
                "source": str(model_dir), **_versions(),
            }, indent=1))
            _publish(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        global EXPORTS
        EXPORTS += 1
    return target


def _publish(tmp: Path, target: Path) -> None:
    """Rename the finished export into place; if another process got there first, keep theirs."""
    try:
        os.rename(tmp, target)
    except OSError:
        if not (target / "export.json").is_file():  # a stale, incomplete folder (cannot normally happen)
            shutil.rmtree(target, ignore_errors=True)
            os.rename(tmp, target)


def _copy_configs(model_dir: Path, dest: Path) -> None:
    """Everything but the weights: tokenizer, configs, pooling folders."""
    for item in model_dir.iterdir():
        if item.name in _WEIGHTS or item.suffix in (".onnx", ".bin", ".safetensors", ".h5", ".msgpack", ".ot"):
            continue
        if item.is_dir():
            if item.name not in ("onnx", "openvino"):
                shutil.copytree(item, dest / item.name)
        else:
            shutil.copy2(item, dest / item.name)


def _versions() -> dict[str, str]:
    import onnxruntime
    import torch

    return {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__}


def _export_fp32(model_dir: Path, out: Path) -> None:
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager").eval()
    inputs = tokenizer(["paperchat exports this model once.", "A second, longer sentence so both axes vary in size."],
                       padding=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in inputs]

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: torch.Tensor) -> torch.Tensor:
            return self.model(**dict(zip(names, args))).last_hidden_state

    raw = out.with_name("raw.onnx")
    axes = {n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notes about shape-dependent Python branches: axes are dynamic
        torch.onnx.export(Hidden(), tuple(inputs[n] for n in names), str(raw), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
    config = AutoConfig.from_pretrained(str(model_dir), local_files_only=True)
    _fuse(raw, out, config)
    raw.unlink(missing_ok=True)


def _fuse(raw: Path, out: Path, config: Any) -> None:
    """ONNX Runtime's transformer fusions (attention, layer norm, GELU): same maths, fewer kernels."""
    heads, hidden = getattr(config, "num_attention_heads", 0), getattr(config, "hidden_size", 0)
    if getattr(config, "model_type", "") not in ("bert", "roberta", "xlm-roberta", "mpnet", "distilbert", "electra"):
        shutil.copyfile(raw, out)
        return
    from onnxruntime.transformers.optimizer import optimize_model

    model_type = "bert" if config.model_type in ("roberta", "xlm-roberta", "mpnet", "electra") else config.model_type
    optimized = optimize_model(str(raw), model_type=model_type, num_heads=heads, hidden_size=hidden, opt_level=1)
    optimized.save_model_to_file(str(out))


def _quantize_int8(source: Path, out: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # per-channel weights: mean cosine to torch 0.993 (per-tensor: 0.947). The fused graph has contrib ops
    # that shape inference cannot type: their outputs are float.
    quantize_dynamic(str(source), str(out), weight_type=QuantType.QInt8, per_channel=True, reduce_range=False,
                     op_types_to_quantize=["MatMul", "Attention"],
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


@contextlib.contextmanager
def _quiet_logging() -> Iterator[None]:
    """The exporter, fusion and quantiser log advice on the root logger and may reconfigure it: undo that."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)


class OnnxEncoder:
    """Tokenize, run the ONNX graph, pool and normalize: what ``SentenceTransformer.encode`` does, on ONNX Runtime.

    ``encode`` takes sentence-transformers' keyword arguments, so it can stand in for the model object.
    ONNX Runtime's ``run`` is thread safe: one encoder serves concurrent requests.
    """

    def __init__(self, folder: Path, threads: int = 0) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.folder = folder
        self.info = json.loads((folder / "export.json").read_text())
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.inter_op_num_threads = 1
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # no busy-waiting between kernels: on a shared 2-core machine spinning threads cost other work more
        # than they save (single query p50 33 ms with spinning vs 20 ms without, measured with load average 8)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.token_budget = TOKEN_BUDGET

        st_config = json.loads((folder / "sentence_bert_config.json").read_text()) if (folder / "sentence_bert_config.json").is_file() else {}
        modules = json.loads((folder / "modules.json").read_text())
        pooling = next(m for m in modules if m["type"].endswith(".Pooling"))
        pool = json.loads((folder / pooling["path"] / "config.json").read_text())
        self.cls_pooling = bool(pool.get("pooling_mode_cls_token"))
        self.normalize = any(m["type"].endswith(".Normalize") for m in modules)
        self.dimension = int(pool.get("word_embedding_dimension") or 0)
        self.max_seq_length = int(st_config.get("max_seq_length") or 512)

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        self.lowercase = bool(st_config.get("do_lower_case"))

    def get_embedding_dimension(self) -> int:
        return self.dimension

    get_sentence_embedding_dimension = get_embedding_dimension

    def _batch(self, encodings: list[Any]) -> np.ndarray:
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros((len(encodings), length), dtype=np.int64)
        types = np.zeros((len(encodings), length), dtype=np.int64)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self.session.run(None, {name: feeds[name] for name in self.input_names})[0]
        if self.cls_pooling:
            pooled = hidden[:, 0]
        else:
            weights = mask[..., None].astype(hidden.dtype)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        if self.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32, copy=False)

    def encode(self, texts: str | list[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False, **_: Any) -> np.ndarray:
        """Embeddings in input order. Texts run longest first, in batches of at most ``batch_size`` texts and
        ``self.token_budget`` padded tokens (one text at least; ``TOKEN_BUDGET`` by default)."""
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        items = [str(t).strip() for t in items]
        if self.lowercase:
            items = [t.lower() for t in items]
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(items)
        lengths = [len(e.ids) for e in encodings]
        order = np.argsort([-n for n in lengths], kind="stable")  # like sentence-transformers: less padding
        out = np.empty((len(items), self.dimension), dtype=np.float32)
        start = 0
        while start < len(order):
            rows = order[start : start + max(1, min(batch_size, self.token_budget // max(1, lengths[order[start]])))]
            out[rows] = self._batch([encodings[i] for i in rows])
            start += len(rows)
        if normalize_embeddings and not self.normalize:
            out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out[0] if single else out
