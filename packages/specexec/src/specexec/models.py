"""Model adapters: Hugging Face causal LMs (tree attention, pruned KV caches) and plain callables.

SpecExec (https://arxiv.org/abs/2406.02532), Sec. 3 and App. (implementation): a whole draft tree
is scored in one forward by appending its nodes after the prefix with a 4-D attention mask
(node -> prefix, ancestors, itself) and explicit position ids ``P - 1 + depth``; after
verification both KV caches are pruned to prefix + accepted path by a gather over
non-contiguous positions (not a suffix crop).

Two kinds of model are accepted wherever a ``target`` / ``draft`` is expected:

* a Hugging Face causal LM (``transformers.PreTrainedModel``, batch size 1) whose attention takes
  a custom 4-D additive mask and ``position_ids`` (Llama, Mistral, Qwen2, ... with eager or sdpa
  attention; transformers >= 4.46 passes a 4-D mask through unchanged);
* a callable ``lm(prefixes: int[B, T]) -> float[B, V]`` of next-token log-probabilities (or
  logits), e.g. :class:`specexec.MarkovLM` -- the convention of the sibling package
  spectr-decode. Tree nodes are batched by depth; exact, for statistical tests with toy models.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._checks import check_array, describe
from .tree import ROOT, DraftTree


def is_hf_model(model) -> bool:
    """True for a torch ``nn.Module`` with a ``config`` (a Hugging Face model), without importing torch."""
    return hasattr(model, "config") and hasattr(model, "parameters") and hasattr(model, "forward")


def prune_cache(cache, keep) -> None:
    """Keep only positions ``keep`` (sorted, any subset) of every layer of a ``DynamicCache``, in place.

    Works across transformers versions: ``cache.layers[i].keys/values`` (>= 4.56) and the older
    ``cache.key_cache/value_cache`` lists.

    Args:
        cache: a ``transformers.DynamicCache`` holding (B, heads, T, head_dim) tensors per layer.
        keep: (T',) positions to keep, in order (torch or numpy integer array, or list).
    """
    import torch

    if type(keep).__module__.startswith("torch"):
        keep = keep.detach().cpu().numpy()
    keep = check_array(keep, "keep", ndim=1, dtype="int", allow_empty=True).astype(np.int64)
    n = cache_length(cache) if hasattr(cache, "get_seq_length") else None
    if keep.size and (keep.min() < 0 or (n is not None and keep.max() >= n)):
        raise ValueError(
            f"keep must hold cache positions in [0, {n}), got {keep.min()}..{keep.max()}"
        )
    layers = getattr(cache, "layers", None)
    if layers is not None:
        for layer in layers:
            keys = getattr(layer, "keys", None)
            if keys is None or keys.numel() == 0:
                continue
            idx = torch.as_tensor(np.asarray(keep, dtype=np.int64), device=keys.device)
            layer.keys = keys.index_select(-2, idx)
            layer.values = layer.values.index_select(-2, idx)
        return
    if hasattr(cache, "key_cache"):  # transformers <= 4.55
        for i, k in enumerate(cache.key_cache):
            if k is None or k.numel() == 0:
                continue
            idx = torch.as_tensor(np.asarray(keep, dtype=np.int64), device=k.device)
            cache.key_cache[i] = k.index_select(-2, idx)
            cache.value_cache[i] = cache.value_cache[i].index_select(-2, idx)
        if hasattr(cache, "_seen_tokens"):
            cache._seen_tokens = len(keep)
        return
    raise TypeError(f"cache must be a transformers DynamicCache, got {describe(cache)}")


def cache_length(cache) -> int:
    """Number of cached positions (0 for a fresh cache)."""
    return int(cache.get_seq_length()) if cache is not None else 0


class LMSession:
    """One model following a growing sequence; scores tree nodes below its last token.

    The committed sequence is ``seq``; the last token of ``seq`` is the root of the current tree.
    Implementations may cache context (HF: a KV cache holding at most ``seq[:-1]`` plus the
    tree nodes fed since the last commit).
    """

    def __init__(self, model, seq):
        self.model = model
        self.seq: list[int] = [int(t) for t in seq]

    def score(self, tree: DraftTree, node_ids) -> object:
        """(len(node_ids), V) next-token logits after the path to each node (-1 = root).

        Every ancestor of a requested node must have been requested before (or in the same call,
        listed earlier) since the last :meth:`commit`.
        """
        raise NotImplementedError

    def commit(self, new_tokens, fed_path=()) -> None:
        """Append ``new_tokens`` to ``seq``. ``fed_path`` = tree node ids, in path order, whose
        tokens are ``new_tokens[:len(fed_path)]`` and that were scored (their cache is kept)."""
        raise NotImplementedError

    def vocab_size(self) -> int:
        """Size V of the model's next-token distribution (the width of :meth:`score`'s rows)."""
        raise NotImplementedError


class CallableSession(LMSession):
    """A plain callable ``lm(prefixes: int[B, T]) -> float[B, V]`` of next-token log-probs (or
    logits); the convention of the sibling package spectr-decode. Nodes are batched by depth
    (equal prefix lengths); no caching."""

    def __init__(self, model, seq):
        super().__init__(model, seq)
        self._root: tuple[int, np.ndarray] | None = None  # (len(seq), root row) from vocab_size

    def _call(self, ctx: np.ndarray) -> np.ndarray:
        """(B, V) float64 rows of the model for (B, T) prefixes, shape-checked."""
        lp = self.model(ctx)
        if hasattr(lp, "detach"):
            lp = lp.detach().float().cpu().numpy()
        lp = np.asarray(lp, dtype=np.float64)
        if lp.ndim == 1 and ctx.shape[0] == 1:
            lp = lp[None]
        if lp.ndim != 2 or lp.shape[0] != ctx.shape[0]:
            raise ValueError(
                f"model must return float[B, V] log-probs for int[B, T] prefixes; got shape "
                f"{lp.shape} for B = {ctx.shape[0]}"
            )
        return lp

    def vocab_size(self) -> int:
        """V: the model's integer ``vocab_size`` attribute if it has one (no call, so the prompt
        is checked against it before the model sees it), else the width of the root's row
        (computed once and reused by the next :meth:`score`)."""
        v = getattr(self.model, "vocab_size", None)
        if isinstance(v, int | np.integer) and not isinstance(v, bool):
            return int(v)
        if self._root is None or self._root[0] != len(self.seq):
            row = self._call(np.asarray([self.seq], dtype=np.int64))[0]
            self._root = (len(self.seq), row)
        return int(self._root[1].shape[0])

    def score(self, tree, node_ids):
        seq = np.asarray(self.seq, dtype=np.int64)
        node_ids = np.asarray(node_ids, dtype=np.int64)
        out = [None] * node_ids.shape[0]
        by_len: dict[int, list[int]] = {}
        for j, node in enumerate(node_ids.tolist()):
            by_len.setdefault(0 if node == ROOT else int(tree.depths[node]), []).append(j)
        for depth, rows in by_len.items():
            if depth == 0 and self._root is not None and self._root[0] == len(self.seq):
                lp = np.broadcast_to(self._root[1], (len(rows), self._root[1].shape[0]))
            else:
                ctx = np.empty((len(rows), seq.shape[0] + depth), dtype=np.int64)
                ctx[:, : seq.shape[0]] = seq
                for r, j in enumerate(rows):
                    if depth:
                        ctx[r, seq.shape[0] :] = tree.path_tokens(int(node_ids[j]))
                lp = self._call(ctx)
            for r, j in enumerate(rows):
                out[j] = lp[r]
        if len({r.shape[0] for r in out}) > 1:
            raise ValueError("model returned rows of different vocabulary sizes")
        return np.stack(out) if out else np.zeros((0, 0))

    def commit(self, new_tokens, fed_path=()):
        self.seq.extend(int(t) for t in new_tokens)


class HFSession(LMSession):
    """A Hugging Face causal LM with a ``DynamicCache`` and tree attention (4-D mask, position ids).

    Cache layout between commits: ``[0, c)`` committed positions (``c <= len(seq) - 1`` before the
    root is fed), then one slot per tree node fed since the last commit, in feeding order.
    """

    def __init__(self, model, seq):
        super().__init__(model, seq)
        from transformers import DynamicCache

        impl = str(getattr(model.config, "_attn_implementation", "") or "")
        if "flash" in impl:
            raise ValueError(
                f"attention implementation {impl!r} ignores custom 4-D masks, so tree attention "
                "would be wrong; load the model with attn_implementation='sdpa' or 'eager'"
            )

        self.window, self.mixed = sliding_window_layout(model)
        # a cache without the model's config keeps every position in every layer (transformers'
        # sliding-window cache layers drop old positions, which a tree gather cannot undo); the
        # window is applied by position in the mask instead
        self.cache = DynamicCache()
        self.committed = 0  # cached positions that belong to seq
        self.slots: dict[int, int] = {}  # node id -> cache position
        self.slot_pos: list[int] = []  # position id of every cached slot
        self.device = next(model.parameters()).device
        self.dtype = next(model.parameters()).dtype
        self.forwards = 0
        # transformers >= 5.2x renamed `past_key_values` to `cache`
        params = inspect.signature(model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        n_vocab = _embedding_rows(model, "get_input_embeddings")
        if self.seq and max(self.seq) >= n_vocab:
            raise ValueError(
                f"input_ids contains token id {max(self.seq)}, outside the model's vocabulary "
                f"of {n_vocab} tokens"
            )

    def vocab_size(self) -> int:
        """V = rows of the output embedding (``config.vocab_size`` if the model has none)."""
        return _embedding_rows(self.model, "get_output_embeddings")

    def _additive(self, allowed: np.ndarray):
        """(1, 1, n, kv) additive mask: 0 where ``allowed``, the dtype's minimum elsewhere."""
        import torch

        mask = torch.zeros((1, 1, *allowed.shape), dtype=self.dtype, device=self.device)
        return mask.masked_fill_(
            ~torch.from_numpy(allowed).to(self.device)[None, None], torch.finfo(self.dtype).min
        )

    def score(self, tree, node_ids):
        import torch

        node_ids = [int(i) for i in np.asarray(node_ids, dtype=np.int64).tolist()]
        L = len(self.seq)
        past = cache_length(self.cache)
        # uncommitted prefix tokens first (they include the root on the first call of a tree)
        pre = self.seq[self.committed :] if self.committed < L else []
        if ROOT in node_ids and not pre:
            raise RuntimeError("the root is already cached; its logits are gone (internal error)")
        nodes = [i for i in node_ids if i != ROOT]
        n_in = len(pre) + len(nodes)
        if n_in == 0:
            raise ValueError("nothing to score")
        kv = past + n_in
        allowed = np.zeros((n_in, kv), dtype=bool)
        # prefix rows: causal over committed positions [0, L)
        base = self.committed
        for r in range(len(pre)):
            allowed[r, : base + r + 1] = True
        # node rows: all of seq (positions [0, L)), ancestors' slots, itself
        new_slot = {}
        for j, node in enumerate(nodes):
            r = len(pre) + j
            allowed[r, :L] = True
            p = int(tree.parents[node])
            while p != ROOT:
                s = self.slots.get(p, new_slot.get(p))
                if s is None:
                    raise RuntimeError(f"ancestor {p} of node {node} was never scored")
                allowed[r, s] = True
                p = int(tree.parents[p])
            slot = past + r
            allowed[r, slot] = True
            new_slot[node] = slot
        if pre and self.committed + len(pre) != L:
            raise RuntimeError("cache layout broken (internal error)")
        if pre and past != self.committed:
            raise RuntimeError("uncommitted tree slots present while prefix is uncached")
        pos = [self.committed + r for r in range(len(pre))]
        pos += [L - 1 + int(tree.depths[i]) for i in nodes]
        toks = pre + [int(tree.tokens[i]) for i in nodes]
        ids = torch.tensor([toks], dtype=torch.long, device=self.device)
        position_ids = torch.tensor([pos], dtype=torch.long, device=self.device)
        if self.window is None:
            attention_mask = self._additive(allowed)
        else:
            # sliding-window layers see a key only if it is fewer than W positions back
            k_pos = np.asarray(self.slot_pos + pos, dtype=np.int64)
            local = allowed & (k_pos[None, :] > np.asarray(pos)[:, None] - self.window)
            if self.mixed:
                attention_mask = {
                    "full_attention": self._additive(allowed),
                    "sliding_attention": self._additive(local),
                }
            else:
                attention_mask = self._additive(local)
        out = self.model(
            input_ids=ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            use_cache=True,
            **{self._cache_kw: self.cache},
        )  # the DynamicCache is updated in place
        self.forwards += 1
        self.slot_pos.extend(pos)
        logits = out.logits[0]  # (n_in, V)
        if pre:
            self.committed = L
        self.slots.update(new_slot)
        rows = []
        for i in node_ids:
            rows.append(len(pre) - 1 if i == ROOT else len(pre) + nodes.index(i))
        return logits[torch.tensor(rows, device=logits.device)]

    def commit(self, new_tokens, fed_path=()):
        L = len(self.seq)
        keep_slots = []
        for node in fed_path:
            s = self.slots.get(int(node))
            if s is None:
                break
            keep_slots.append(s)
        self.seq.extend(int(t) for t in new_tokens)
        # never cache the new root: its logits are needed by the next pass
        keep_slots = keep_slots[: max(0, len(self.seq) - 1 - self.committed)]
        keep = list(range(self.committed)) + keep_slots
        if self.committed != L and keep_slots:
            raise RuntimeError("cannot keep tree slots without the root cached (internal error)")
        if len(keep) != cache_length(self.cache) or keep_slots != list(
            range(self.committed, self.committed + len(keep_slots))
        ):
            prune_cache(self.cache, keep)
        self.slot_pos = [self.slot_pos[i] for i in keep]
        self.committed = len(keep)
        self.slots = {}


_LAYER_KINDS = ("full_attention", "sliding_attention")


def sliding_window_layout(model) -> tuple[int | None, bool]:
    """``(W, mixed)``: the sliding window of ``model``'s local attention layers (``None`` if it
    has none) and whether global (full) layers are mixed in (Gemma2/3, Qwen2 with
    ``max_window_layers``).

    Tree attention applies the window by position: a node at position i sees a key at position j
    of the prefix or of its own path only if ``j > i - W``. Mixed models get one mask per layer
    type. Models whose layouts this cannot express are refused before any forward: layer types
    other than full / sliding (chunked attention), and transformers releases without
    ``masking_utils`` (< 4.53), whose models re-apply the window to a custom mask by column.
    """
    cfg = model.config
    if hasattr(cfg, "get_text_config"):
        cfg = cfg.get_text_config()
    window = getattr(cfg, "sliding_window", None)
    if window is None or getattr(cfg, "use_sliding_window", True) is False:
        return None, False
    types = getattr(cfg, "layer_types", None)
    types = ["sliding_attention"] * int(cfg.num_hidden_layers) if types is None else list(types)
    unknown = sorted(set(types) - set(_LAYER_KINDS))
    if unknown:
        raise ValueError(
            f"model has attention layer types {unknown}; tree attention supports only "
            f"{list(_LAYER_KINDS)}"
        )
    if "sliding_attention" not in types:
        return None, False
    import importlib.util

    if importlib.util.find_spec("transformers.masking_utils") is None:
        raise ValueError(
            f"model uses sliding-window attention (window {window}); with this transformers "
            "release a custom tree mask cannot carry the window: upgrade to transformers >= 4.53"
        )
    window = int(window)
    if window < 1:
        raise ValueError(f"model config has sliding_window = {window}; it must be >= 1")
    return window, "full_attention" in types


def _embedding_rows(model, getter: str) -> int:
    """Token rows of ``model.<getter>()`` (an embedding or output projection); falls back to
    ``config.vocab_size`` when the model does not expose one."""
    try:
        module = getattr(model, getter)()
    except (AttributeError, NotImplementedError):
        module = None
    weight = getattr(module, "weight", None)
    if weight is not None and getattr(weight, "ndim", 0) == 2:
        return int(weight.shape[0])
    return int(model.config.vocab_size)


def make_session(model, seq, name: str = "model") -> LMSession:
    """Wrap ``model`` (HF causal LM or callable) in the matching :class:`LMSession`."""
    if is_hf_model(model):
        return HFSession(model, seq)
    if callable(model):
        return CallableSession(model, seq)
    raise TypeError(
        f"{name} must be a Hugging Face causal LM or a callable prefix -> log-probs, "
        f"got {describe(model)}"
    )
