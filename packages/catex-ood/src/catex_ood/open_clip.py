"""Adapter: an ``open_clip`` CLIP text tower as a CATEX text encoder (extra ``open_clip``).

``OpenCLIPTextEncoder(model)`` maps ``(ctx [C, M, width], classnames) -> [C, embed_dim]`` by
tokenising ``"X X ... X <classname>."`` (M placeholders, as CoOp), replacing the placeholder
token embeddings with ``ctx`` and running the model's own text transformer, final layer norm,
end-of-text pooling and projection (what ``model.encode_text`` does for plain token ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from ._checks import describe
from ._validation import check_encoder_inputs


class OpenCLIPTextEncoder(nn.Module):
    """Wraps an ``open_clip.CLIP`` (any with ``token_embedding``, ``positional_embedding``,
    ``transformer``, ``ln_final``, ``text_projection``, ``attn_mask``). ``tokenizer``: a
    callable ``list[str] -> LongTensor [C, L]`` (default ``open_clip.get_tokenizer`` of the
    plain BPE tokenizer). ``token_dim`` is the model's text width."""

    def __init__(self, model: Any, *, tokenizer: Callable | None = None) -> None:
        super().__init__()
        needed = (
            "token_embedding",
            "positional_embedding",
            "transformer",
            "ln_final",
            "text_projection",
        )
        missing = [a for a in needed if not hasattr(model, a)]
        if missing:
            raise TypeError(
                f"model must be an open_clip CLIP with a text tower; it lacks {missing}"
            )
        if tokenizer is None:
            import open_clip

            tokenizer = open_clip.tokenize
        if not callable(tokenizer):
            raise TypeError(f"tokenizer must be callable, got {describe(tokenizer)}")
        self.model = model
        self.tokenizer = tokenizer
        self.token_dim = int(model.token_embedding.weight.shape[1])

    def tokens(self, classnames: Sequence[str], n_ctx: int) -> torch.Tensor:
        """Token ids of ``"X" * n_ctx + " <classname>."`` for each class."""
        prefix = " ".join(["X"] * n_ctx)
        return self.tokenizer([f"{prefix} {c}." for c in classnames])

    def forward(self, ctx: torch.Tensor, classnames: Sequence[str]) -> torch.Tensor:
        names = check_encoder_inputs(ctx, classnames, self.token_dim)
        C, M, _ = ctx.shape
        m = self.model
        tok = self.tokens(names, M).to(m.token_embedding.weight.device)
        emb = m.token_embedding(tok)
        x = torch.cat([emb[:, :1], ctx.to(emb), emb[:, 1 + M :]], dim=1)
        x = x + m.positional_embedding.to(x.dtype)
        mask = getattr(m, "attn_mask", None)
        batch_first = getattr(m.transformer, "batch_first", True)
        if not batch_first:
            x = x.permute(1, 0, 2)
        x = m.transformer(x, attn_mask=mask)
        if not batch_first:
            x = x.permute(1, 0, 2)
        x = m.ln_final(x)
        x = x[torch.arange(C, device=x.device), tok.argmax(dim=-1)]  # end-of-text token
        proj = m.text_projection
        return proj(x) if isinstance(proj, nn.Module) else x @ proj
