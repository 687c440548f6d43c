"""Train, cache and load small Llama-architecture causal LMs over bytes.

A model is fully determined by a *spec*: architecture config, training recipe, task (and the
``data_key`` of custom data), the SHA-256 of the training text, the seed, ``FORMAT_VERSION``
(bumped with any change to the training code) and the (major.minor) versions of torch,
transformers and numpy (whose ``Generator`` streams draw the batches). The spec's SHA-256 is the cache key: weights live in
``<cache>/<config_name>-<key[:16]>/`` as ``model.safetensors`` + ``config.json`` +
``spec.json``, written atomically, read back with ``use_safetensors=True`` only (no pickle).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch

from . import data as _data
from ._checks import check_bool, check_callable, check_float, check_int, check_option, describe
from .tokenizer import BOS_ID, EOS_ID, PAD_ID, VOCAB_SIZE, ByteTokenizer

FORMAT_VERSION = 1  # bump when training or storage changes meaning

_BASE = {
    "vocab_size": VOCAB_SIZE,
    "max_position_embeddings": 1024,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "bos_token_id": BOS_ID,
    "eos_token_id": EOS_ID,
    "pad_token_id": PAD_ID,
}

CONFIGS: dict[str, dict[str, Any]] = {
    # ~0.92 M parameters; about 45 s of training on 2 CPU cores
    "target": {
        "hidden_size": 128,
        "intermediate_size": 384,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
    },
    # ~0.28 M parameters, one layer; about 12 s
    "draft": {
        "hidden_size": 128,
        "intermediate_size": 384,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
    },
    # seconds-scale models for unit tests
    "micro-target": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
    },
    "micro-draft": {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
    },
}
"""Architecture of each named model (merged over the shared byte-vocabulary defaults)."""


@dataclass(frozen=True)
class TrainSpec:
    """Training recipe (AdamW, linear warm-up then cosine decay to 10 %).

    Attributes:
        steps: optimiser steps.
        batch_size: sequences per step.
        seq_len: tokens per sequence (BOS included).
        lr: peak learning rate.
        warmup: warm-up steps.
        weight_decay: AdamW weight decay.
    """

    steps: int = 300
    batch_size: int = 16
    seq_len: int = 128
    lr: float = 3e-3
    warmup: int = 20
    weight_decay: float = 0.01

    def __post_init__(self):
        # canonical Python ints and floats: the recipe enters the content key as JSON
        fields = {
            "steps": check_int(self.steps, "steps", minimum=1),
            "batch_size": check_int(self.batch_size, "batch_size", minimum=1),
            "seq_len": check_int(self.seq_len, "seq_len", minimum=2),
            "lr": check_float(self.lr, "lr", minimum=0.0, min_inclusive=False),
            "warmup": check_int(self.warmup, "warmup", minimum=0),
            "weight_decay": check_float(self.weight_decay, "weight_decay", minimum=0.0),
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)


DEFAULT_TRAIN: dict[str, TrainSpec] = {
    "target": TrainSpec(steps=300),
    "draft": TrainSpec(steps=300),
    "micro-target": TrainSpec(steps=60, batch_size=8, seq_len=64, lr=5e-3, warmup=5),
    "micro-draft": TrainSpec(steps=60, batch_size=8, seq_len=64, lr=5e-3, warmup=5),
}


def cache_dir() -> Path:
    """Cache root: ``$PAPERSHELF_TINYLM_CACHE`` or ``~/.cache/papershelf-tinylm``."""
    env = os.environ.get("PAPERSHELF_TINYLM_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "papershelf-tinylm"


def _minor(v: str) -> str:
    return ".".join(v.split("+")[0].split(".")[:2])


def model_config(config_name: str | dict, **overrides: Any) -> dict[str, Any]:
    """Full ``LlamaConfig`` keyword arguments of a named (or explicit) architecture."""
    if isinstance(config_name, dict):
        arch = dict(config_name)
    elif isinstance(config_name, str):
        arch = dict(CONFIGS[check_option(config_name, "config_name", sorted(CONFIGS))])
    else:
        raise TypeError(
            f"config_name must be one of {sorted(CONFIGS)} or a dict, got {describe(config_name)}"
        )
    cfg = {**_BASE, **arch, **overrides}
    if cfg["vocab_size"] != VOCAB_SIZE:
        raise ValueError(
            f"vocab_size must be {VOCAB_SIZE} (byte vocabulary), got {cfg['vocab_size']}"
        )
    return cfg


def model_spec(
    config_name: str | dict = "target",
    *,
    seed: int = 0,
    train: TrainSpec | None = None,
    task: str = "lm",
    data_key: str | None = None,
    **config_overrides: Any,
) -> dict[str, Any]:
    """The JSON-able spec that determines a trained model (see :func:`content_key`)."""
    import transformers

    seed = check_int(seed, "seed", minimum=0)
    if data_key is not None and not isinstance(data_key, str):
        raise TypeError(f"data_key must be a str or None, got {describe(data_key)}")
    if train is None:
        train = (
            DEFAULT_TRAIN.get(config_name, TrainSpec())
            if isinstance(config_name, str)
            else TrainSpec()
        )
    if not isinstance(train, TrainSpec):
        raise TypeError(f"train must be a TrainSpec, got {describe(train)}")
    if data_key is None:  # built-in data (with a data_key, task is only a label in the key)
        check_option(task, "task", sorted(_data.TASKS))
    elif not isinstance(task, str):
        raise TypeError(f"task must be a str, got {describe(task)}")
    name = config_name if isinstance(config_name, str) else "custom"
    return {
        "format": FORMAT_VERSION,
        "name": name,
        "config": model_config(config_name, **config_overrides),
        "train": asdict(train),
        "task": task,
        "data_key": data_key,
        "corpus_sha256": _data.corpus_digest(),
        "seed": seed,
        "versions": {
            "torch": _minor(torch.__version__),
            "transformers": _minor(transformers.__version__),
            "numpy": _minor(np.__version__),
        },
    }


def content_key(spec: dict[str, Any]) -> str:
    """SHA-256 hex digest of a spec's canonical JSON (sorted keys, no whitespace)."""
    if not isinstance(spec, dict):
        raise TypeError(f"spec must be a dict (see model_spec), got {describe(spec)}")
    blob = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _model_dir(spec: dict[str, Any], root: Path | None = None) -> Path:
    root = cache_dir() if root is None else Path(root)
    return root / f"{spec['name']}-{content_key(spec)[:16]}"


def _new_model(cfg: dict[str, Any], seed: int):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    model = LlamaForCausalLM(LlamaConfig(**cfg))
    return model


def _lr_at(step: int, spec: TrainSpec) -> float:
    if step < spec.warmup:
        return spec.lr * (step + 1) / spec.warmup
    frac = (step - spec.warmup) / max(1, spec.steps - spec.warmup)
    return spec.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))


def _fit(model, spec: TrainSpec, batch_fn, seed: int, log_every: int = 0) -> list[float]:
    rng = np.random.default_rng([seed, 1])
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": spec.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=spec.lr,
        betas=(0.9, 0.95),
    )
    model.train()
    losses = []
    for step in range(spec.steps):
        batch = np.asarray(batch_fn(rng, spec.batch_size, spec.seq_len))
        if batch.shape != (spec.batch_size, spec.seq_len):
            raise ValueError(
                f"batch_fn must return shape {(spec.batch_size, spec.seq_len)}, got {batch.shape}"
            )
        x = torch.from_numpy(batch.astype(np.int64))
        labels = x.masked_fill(x == PAD_ID, -100)
        for g in opt.param_groups:
            g["lr"] = _lr_at(step, spec)
        loss = model(input_ids=x, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == spec.steps - 1):
            print(f"step {step:5d}  loss {losses[-1]:.3f}", flush=True)
    model.eval()
    return losses


def _train(spec: dict[str, Any], batch_fn, *, verbose: bool = False):
    """A fresh model of ``spec``'s config trained on ``batch_fn`` with its recipe and seed."""
    seed = spec["seed"]
    model = _new_model(spec["config"], seed)
    losses = _fit(model, TrainSpec(**spec["train"]), batch_fn, seed, log_every=50 if verbose else 0)
    return model, losses


def save_model(model, path: str | os.PathLike, spec: dict[str, Any] | None = None) -> Path:
    """Write ``config.json`` + ``model.safetensors`` (+ ``spec.json``) atomically to ``path``."""
    from safetensors.torch import save_file

    if not (isinstance(model, torch.nn.Module) and hasattr(model, "config")):
        raise TypeError(f"model must be a transformers model, got {describe(model)}")
    path = _as_path(path, "path")
    if spec is not None and not isinstance(spec, dict):
        raise TypeError(f"spec must be a dict or None, got {describe(spec)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        model.config.save_pretrained(tmp)
        state = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
        save_file(state, tmp / "model.safetensors", metadata={"format": "pt"})
        if spec is not None:
            (tmp / "spec.json").write_text(json.dumps(spec, indent=1, sort_keys=True))
        try:
            os.replace(tmp, path)  # atomic; fails if another process already wrote it
        except OSError:
            if not (path / "model.safetensors").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def _as_path(path: Any, name: str) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"{name} must be a str or os.PathLike, got {describe(path)}")
    return Path(path)


def load_saved(path: str | os.PathLike):
    """Load a directory written by :func:`save_model` (safetensors only), in eval mode."""
    from transformers import LlamaForCausalLM

    path = _as_path(path, "path")
    if not (path / "model.safetensors").is_file():
        raise FileNotFoundError(f"no model.safetensors in {path}")
    model = LlamaForCausalLM.from_pretrained(path, use_safetensors=True, local_files_only=True)
    return model.eval()


def is_cached(config_name: str | dict = "target", *, seed: int = 0, **kwargs: Any) -> bool:
    """Whether :func:`train_model` with these arguments would load from the cache."""
    kwargs.pop("batch_fn", None)
    kwargs.pop("cache", None)
    kwargs.pop("verbose", None)
    spec = model_spec(config_name, seed=seed, **kwargs)
    return (_model_dir(spec) / "model.safetensors").is_file()


def train_model(
    config_name: str | dict = "target",
    *,
    seed: int = 0,
    train: TrainSpec | None = None,
    task: str = "lm",
    batch_fn: _data.BatchFn | None = None,
    data_key: str | None = None,
    cache: bool = True,
    verbose: bool = False,
    **config_overrides: Any,
):
    """Train (or load from the cache) a byte-level ``LlamaForCausalLM``.

    Args:
        config_name: a key of :data:`CONFIGS` (``"target"``, ``"draft"``, ``"micro-target"``,
            ``"micro-draft"``) or a dict of ``LlamaConfig`` arguments.
        seed: seeds the initialisation and the data order; same seed, same weights.
        train: training recipe; defaults to :data:`DEFAULT_TRAIN` for the name.
        task: built-in data: ``"lm"`` (stdlib text) or ``"header_recall"`` (a random key in a
            header that must be recalled at the end of a long sequence).
        batch_fn: custom data, ``batch_fn(rng, batch_size, seq_len) -> int64[batch_size, seq_len]``
            (``PAD_ID`` positions get no loss). Requires ``data_key`` naming it for the cache.
        data_key: string identifying ``batch_fn``'s data in the cache key (change it when the
            generator changes).
        cache: load from / save to :func:`cache_dir` under the content key.
        verbose: print the training loss every 50 steps.
        **config_overrides: ``LlamaConfig`` fields overriding the named architecture.

    Returns:
        ``LlamaForCausalLM`` in eval mode on CPU (fp32). ``model.tinylm_spec`` holds the spec.
    """
    cache = check_bool(cache, "cache")
    verbose = check_bool(verbose, "verbose")
    if batch_fn is not None:
        check_callable(batch_fn, "batch_fn")
        if data_key is None:
            raise ValueError(
                "data_key is required with batch_fn (it names the data in the cache key)"
            )
    elif data_key is not None:
        raise ValueError("data_key is only meaningful together with batch_fn")
    spec = model_spec(
        config_name, seed=seed, train=train, task=task, data_key=data_key, **config_overrides
    )
    if batch_fn is None:
        batch_fn = _data.TASKS[task]
    path = _model_dir(spec)
    if cache and (path / "model.safetensors").is_file():
        model = load_saved(path)
        model.tinylm_spec = spec
        return model
    t0 = time.perf_counter()
    model, losses = _train(spec, batch_fn, verbose=verbose)
    if cache:
        record = copy.deepcopy(spec)
        record["result"] = {
            "train_seconds": round(time.perf_counter() - t0, 2),
            "final_losses": losses[-10:],
        }
        save_model(model, path, record)
    model.tinylm_spec = spec
    return model


def load_model(config_name: str = "target", *, seed: int = 0, **kwargs: Any):
    """Alias of :func:`train_model` with caching on: the cached model, trained on first use."""
    return train_model(config_name, seed=seed, cache=True, **kwargs)


class Pair(NamedTuple):
    """What :func:`load_pair` returns; unpacks as ``target, draft, tok = load_pair()``."""

    target: Any
    """The larger model (``LlamaForCausalLM``, eval mode)."""
    draft: Any
    """The smaller model over the same vocabulary, data and seed."""
    tokenizer: ByteTokenizer


def load_pair(*, seed: int = 0, micro: bool = False, verbose: bool = False) -> Pair:
    """The cached target/draft pair and the tokenizer (trained on first use, then loaded).

    ``target`` has 4 layers, ``draft`` 1 layer, both 128 wide (a few minutes of training on 2
    cores); ``micro=True`` gives the seconds-scale ``micro-target`` (2 x 64) / ``micro-draft``
    (1 x 32) pair instead, for smoke tests and ``--quick`` runs. Both models are byte-level Llama
    models over the same vocabulary of :data:`VOCAB_SIZE` ids, trained on the same stdlib text
    with the same seed.
    """
    micro = check_bool(micro, "micro")
    names = ("micro-target", "micro-draft") if micro else ("target", "draft")
    target = train_model(names[0], seed=seed, verbose=verbose)
    draft = train_model(names[1], seed=seed, verbose=verbose)
    return Pair(target, draft, ByteTokenizer())


@torch.no_grad()
def heldout_loss(model, *, n_seqs: int = 32, seq_len: int = 128, seed: int = 1234) -> float:
    """Mean next-byte cross-entropy (nats) on held-out stdlib files (uniform = log 256 ≈ 5.55).

    Windows are drawn with a fixed seed, so two models are compared on identical text.
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module (a causal LM), got {describe(model)}")
    n_seqs = check_int(n_seqs, "n_seqs", minimum=1)
    seq_len = check_int(seq_len, "seq_len", minimum=2)
    seed = check_int(seed, "seed", minimum=0)
    x = torch.from_numpy(
        _data.lm_batch(np.random.default_rng(seed), n_seqs, seq_len, split="heldout")
    )
    was_training = model.training
    model.eval()
    loss = model(input_ids=x, labels=x).loss.item()
    model.train(was_training)
    return loss


def with_overrides(spec: TrainSpec, **kw: Any) -> TrainSpec:
    """A copy of ``spec`` with some fields changed (``TrainSpec`` is frozen)."""
    return replace(spec, **kw)
