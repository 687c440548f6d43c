"""Comment generators: the protocol, a tiny GRU encoder-decoder and a Hugging Face backend.

A generator is a ``torch.nn.Module`` with ``generate(codes) -> list[str]`` (greedy, one comment
per code) and ``loss(codes, comments) -> Tensor (B,)`` (per-example mean token cross-entropy,
differentiable). :class:`Adacom` needs nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, describe
from ._validation import check_pairs, check_texts
from .metrics import comment_words
from .retrieval import code_tokenize

__all__ = ["CommentGenerator", "GRUCommentGenerator", "HFCommentGenerator", "train_generator"]

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"


@runtime_checkable
class CommentGenerator(Protocol):
    """``generate(codes) -> list[str]``, ``loss(codes, comments) -> Tensor (B,)``."""

    def generate(self, codes: Sequence[str]) -> list[str]: ...

    def loss(self, codes: Sequence[str], comments: Sequence[str]) -> torch.Tensor: ...


def check_comment_generator(value: Any, name: str = "generator") -> nn.Module:
    if not isinstance(value, nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(value)}")
    for meth in ("generate", "loss"):
        if not callable(getattr(value, meth, None)):
            raise TypeError(f"{name} must have a {meth} method, got {describe(value)}")
    return value


class _Vocab:
    def __init__(self, tokens: list[str]):
        self.itos = [PAD, BOS, EOS, UNK, *sorted(set(tokens) - {PAD, BOS, EOS, UNK})]
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    def ids(self, toks: list[str]) -> list[int]:
        return [self.stoi.get(t, 3) for t in toks]

    def __len__(self) -> int:
        return len(self.itos)


class GRUCommentGenerator(nn.Module):
    """A small GRU encoder-decoder over word vocabularies built from a corpus.

    Code is tokenised by :func:`code_tokenize`, comments by
    :func:`adacom.metrics.comment_words` (lower-cased words); out-of-vocabulary tokens map to
    ``<unk>``. The decoder starts from the encoder's last state and also sees the mean of the
    encoder states at every step. Generation is greedy, at most ``max_len`` words.
    """

    def __init__(
        self,
        codes: Sequence[str],
        comments: Sequence[str],
        *,
        embed: int = 64,
        hidden: int = 128,
        max_len: int = 16,
        generator: torch.Generator | None = None,
    ):
        super().__init__()
        codes, comments = check_pairs(codes, comments)
        embed = check_int(embed, "embed", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        self.max_len = check_int(max_len, "max_len", minimum=1)
        generator = check_generator(generator)
        self.src_vocab = _Vocab([t for c in codes for t in code_tokenize(c)])
        self.tgt_vocab = _Vocab([t for c in comments for t in comment_words(c)])
        g = generator if generator is not None else torch.Generator().manual_seed(0)
        self.src_emb = nn.Embedding(len(self.src_vocab), embed, padding_idx=0)
        self.tgt_emb = nn.Embedding(len(self.tgt_vocab), embed, padding_idx=0)
        self.encoder = nn.GRU(embed, hidden, batch_first=True)
        self.decoder = nn.GRU(embed + hidden, hidden, batch_first=True)
        self.out = nn.Linear(2 * hidden, len(self.tgt_vocab))
        with torch.no_grad():
            for p in self.parameters():
                if p.dim() > 1:
                    bound = 1.0 / (p.shape[1] ** 0.5)
                    p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
                else:
                    p.zero_()

    def _device(self) -> torch.device:
        return self.out.weight.device

    def _encode(self, codes: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        seqs = [self.src_vocab.ids(code_tokenize(c)) or [3] for c in codes]
        width = max(len(s) for s in seqs)
        x = torch.zeros(len(seqs), width, dtype=torch.long, device=self._device())
        for i, s in enumerate(seqs):
            x[i, : len(s)] = torch.tensor(s)
        lengths = torch.tensor([len(s) for s in seqs])
        packed = nn.utils.rnn.pack_padded_sequence(
            self.src_emb(x), lengths, batch_first=True, enforce_sorted=False
        )
        states, h = self.encoder(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True)
        mask = (x[:, : states.shape[1]] != 0).unsqueeze(-1).float()
        ctx = (states * mask).sum(1) / mask.sum(1)
        return h, ctx

    def _step(self, tok, h, ctx):
        inp = torch.cat([self.tgt_emb(tok), ctx.unsqueeze(1).expand(-1, tok.shape[1], -1)], -1)
        out, h = self.decoder(inp, h)
        return self.out(torch.cat([out, ctx.unsqueeze(1).expand_as(out)], -1)), h

    def loss(self, codes: Sequence[str], comments: Sequence[str]) -> torch.Tensor:
        """Per-example mean token cross-entropy (nats) of ``comments`` given ``codes``, ``(B,)``."""
        codes, comments = check_pairs(codes, comments)
        tgt = [self.tgt_vocab.ids(comment_words(c))[: self.max_len] + [2] for c in comments]
        width = max(len(t) for t in tgt)
        y = torch.zeros(len(tgt), width, dtype=torch.long, device=self._device())
        for i, t in enumerate(tgt):
            y[i, : len(t)] = torch.tensor(t)
        inp = torch.cat([torch.ones_like(y[:, :1]), y[:, :-1]], 1)
        h, ctx = self._encode(codes)
        logits, _ = self._step(inp, h, ctx)
        ce = nn.functional.cross_entropy(logits.transpose(1, 2), y, reduction="none")
        mask = (y != 0).float()
        return (ce * mask).sum(1) / mask.sum(1)

    @torch.no_grad()
    def generate(self, codes: Sequence[str]) -> list[str]:
        """Greedy comments for ``codes``."""
        codes = check_texts(codes, "codes")
        h, ctx = self._encode(codes)
        tok = torch.ones(len(codes), 1, dtype=torch.long, device=self._device())
        words: list[list[str]] = [[] for _ in codes]
        done = [False] * len(codes)
        for _ in range(self.max_len):
            logits, h = self._step(tok, h, ctx)
            logits[..., :2] = -torch.inf  # never <pad>/<bos>
            tok = logits.argmax(-1)
            for i, t in enumerate(tok[:, 0].tolist()):
                if done[i]:
                    continue
                if t == 2:
                    done[i] = True
                else:
                    words[i].append(self.tgt_vocab.itos[t])
            if all(done):
                break
        return [" ".join(w) for w in words]


class HFCommentGenerator(nn.Module):
    """A Hugging Face causal LM as a comment generator (e.g. a papershelf-tinylm model).

    The LM reads ``prompt.format(code=code)`` and writes the comment after it, ended by the
    tokenizer's EOS. ``loss`` is the mean token cross-entropy of ``" " + comment + EOS`` after
    the prompt (prompt tokens carry no loss); ``generate`` is greedy decoding of at most
    ``max_new_tokens`` tokens, stopped at EOS and cut at the first newline. ``tokenizer`` needs
    ``encode(text, add_special_tokens=...)``, ``decode(ids, skip_special_tokens=True)`` and
    ``eos_token_id`` (``pad_token_id`` optional).
    """

    def __init__(
        self,
        model: nn.Module,
        tokenizer: Any,
        *,
        prompt: str = "{code}\n# summary:",
        max_new_tokens: int = 24,
    ):
        super().__init__()
        if not isinstance(model, nn.Module) or not callable(getattr(model, "generate", None)):
            raise TypeError(f"model must be a torch causal LM with generate, got {describe(model)}")
        for meth in ("encode", "decode"):
            if not callable(getattr(tokenizer, meth, None)):
                raise TypeError(f"tokenizer must have {meth}, got {describe(tokenizer)}")
        if getattr(tokenizer, "eos_token_id", None) is None:
            raise ValueError("tokenizer must have an eos_token_id")
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, got {describe(prompt)}")
        if "{code}" not in prompt:
            raise ValueError(f"prompt must contain '{{code}}', got {prompt!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.prompt = prompt
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
        self.eos = int(tokenizer.eos_token_id)
        pad = getattr(tokenizer, "pad_token_id", None)
        self.pad = self.eos if pad is None else int(pad)

    def _device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _prompt_ids(self, code: str) -> list[int]:
        return list(self.tokenizer.encode(self.prompt.format(code=code), add_special_tokens=True))

    def loss(self, codes: Sequence[str], comments: Sequence[str]) -> torch.Tensor:
        """Per-example mean token cross-entropy of each comment after its prompt, ``(B,)``."""
        codes, comments = check_pairs(codes, comments)
        rows, labels = [], []
        for code, comment in zip(codes, comments, strict=True):
            p = self._prompt_ids(code)
            t = list(self.tokenizer.encode(" " + comment, add_special_tokens=False)) + [self.eos]
            rows.append(p + t)
            labels.append([-100] * len(p) + t)
        width = max(len(r) for r in rows)
        dev = self._device()
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long, device=dev)
        lab = torch.full((len(rows), width), -100, dtype=torch.long, device=dev)
        att = torch.zeros((len(rows), width), dtype=torch.long, device=dev)
        for i, (r, lb) in enumerate(zip(rows, labels, strict=True)):
            ids[i, : len(r)] = torch.tensor(r)
            lab[i, : len(lb)] = torch.tensor(lb)
            att[i, : len(r)] = 1
        logits = self.model(input_ids=ids, attention_mask=att).logits[:, :-1].float()
        tgt = lab[:, 1:]
        ce = nn.functional.cross_entropy(logits.transpose(1, 2), tgt.clamp(min=0), reduction="none")
        mask = (tgt != -100).float()
        return (ce * mask).sum(1) / mask.sum(1)

    @torch.no_grad()
    def generate(self, codes: Sequence[str]) -> list[str]:
        """Greedy comments for ``codes`` (one ``model.generate`` call per code)."""
        codes = check_texts(codes, "codes")
        out = []
        for code in codes:
            ids = torch.tensor([self._prompt_ids(code)], device=self._device())
            gen = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                eos_token_id=self.eos,
                pad_token_id=self.pad,
            )
            text = self.tokenizer.decode(gen[0, ids.shape[1] :].tolist(), skip_special_tokens=True)
            out.append(text.split("\n")[0].strip())
        return out


def train_generator(
    model: nn.Module,
    codes: Sequence[str],
    comments: Sequence[str],
    *,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 3e-3,
    generator: torch.Generator | None = None,
    callback: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Fit ``model`` (any comment generator) on the pairs with Adam; returns the mean loss of
    each epoch. Batches are shuffled with ``generator`` (None: a fresh seed-0 generator)."""

    model = check_comment_generator(model, "model")
    codes, comments = check_pairs(codes, comments)
    epochs = check_int(epochs, "epochs", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    generator = check_generator(generator)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {describe(callback)}")
    g = generator if generator is not None else torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    history = []
    for epoch in range(epochs):
        perm = torch.randperm(len(codes), generator=g).tolist()
        total = 0.0
        for s in range(0, len(perm), batch_size):
            idx = perm[s : s + batch_size]
            loss = model.loss([codes[i] for i in idx], [comments[i] for i in idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        history.append(total / len(codes))
        if callback is not None:
            callback(epoch, history[-1])
    return history
