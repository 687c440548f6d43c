"""ContextBank: learnable perceptual and spurious prompt contexts, one set per class."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import torch
from torch import nn

from ._checks import check_bool, check_callable, check_generator, check_int, check_option, describe
from ._validation import check_classnames

PERTURB_METHODS = ("neg", "zero", "randn", "randn_add", "swap")


class ContextBank(nn.Module):
    """Per-class prompt contexts of CATEX.

    ``ctx`` [C, M, d_tok] is the perceptual context of each class (CoOp class-specific style) and
    ``spurious_ctx`` [C, N_s, M, d_tok] its spurious contexts, both initialised N(0, 0.02^2).
    ``classnames`` (a list of C strings) is passed to the text encoder with each context.
    """

    def __init__(
        self,
        classnames: Sequence[str],
        *,
        n_ctx: int = 16,
        token_dim: int = 512,
        n_spurious: int = 1,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        names = check_classnames(classnames, "classnames")
        if len(set(names)) != len(names):
            dup = sorted({c for c in names if names.count(c) > 1})
            raise ValueError(f"classnames must be unique, got duplicates {dup}")
        n_ctx = check_int(n_ctx, "n_ctx", minimum=1)
        token_dim = check_int(token_dim, "token_dim", minimum=1)
        n_spurious = check_int(n_spurious, "n_spurious", minimum=1)
        generator = check_generator(generator, "generator")
        C = len(names)
        self.classnames = names
        self.ctx = nn.Parameter(0.02 * torch.randn(C, n_ctx, token_dim, generator=generator))
        self.spurious_ctx = nn.Parameter(
            0.02 * torch.randn(C, n_spurious, n_ctx, token_dim, generator=generator)
        )

    @property
    def n_classes(self) -> int:
        return len(self.classnames)

    @property
    def n_ctx(self) -> int:
        return self.ctx.shape[1]

    @property
    def token_dim(self) -> int:
        return self.ctx.shape[2]

    @property
    def n_spurious(self) -> int:
        return self.spurious_ctx.shape[1]

    def extra_repr(self) -> str:
        return (
            f"n_classes={self.n_classes}, n_ctx={self.n_ctx}, token_dim={self.token_dim}, "
            f"n_spurious={self.n_spurious}"
        )

    def _encode(self, encoder: Callable, ctx: torch.Tensor) -> torch.Tensor:
        out = encoder(ctx, list(self.classnames))
        if not isinstance(out, torch.Tensor) or out.ndim != 2 or out.shape[0] != ctx.shape[0]:
            got = tuple(out.shape) if isinstance(out, torch.Tensor) else describe(out)
            raise ValueError(
                f"encoder must return a [C, d] tensor with C = {ctx.shape[0]}, got {got}"
            )
        return nn.functional.normalize(out, dim=-1)

    def text_features(self, encoder: Callable) -> tuple[torch.Tensor, torch.Tensor]:
        """``(T [C, d], T_sp [C, N_s, d])``, unit rows; ``encoder(ctx [C, M, d_tok],
        classnames) -> [C, d]`` is called once for the perceptual contexts and once per
        spurious context."""
        check_callable(encoder, "encoder")
        T = self._encode(encoder, self.ctx)
        T_sp = torch.stack(
            [self._encode(encoder, self.spurious_ctx[:, j]) for j in range(self.n_spurious)],
            dim=1,
        )
        return T, T_sp

    def perturb(self, method: str, *, generator: torch.Generator | None = None) -> ContextBank:
        """A detached copy whose perceptual context has one random token per class replaced:
        ``"neg"`` (negated), ``"zero"``, ``"randn"`` (N(0, I)), ``"randn_add"`` (plus N(0, I)),
        ``"swap"`` (another class's chosen token; needs C >= 2). Spurious contexts are kept."""
        method = check_option(method, "method", PERTURB_METHODS)
        generator = check_generator(generator, "generator")
        C, M, d = self.ctx.shape
        if method == "swap" and C < 2:
            raise ValueError("method='swap' needs at least 2 classes, got 1")
        new = copy.deepcopy(self)
        with torch.no_grad():
            ctx = new.ctx.detach().clone()
            rows = torch.arange(C)
            cols = torch.randint(0, M, (C,), generator=generator)
            src = ctx[rows, cols].clone()
            if method == "neg":
                rep = -src
            elif method == "zero":
                rep = torch.zeros_like(src)
            elif method == "randn":
                rep = torch.randn(C, d, generator=generator).to(src)
            elif method == "randn_add":
                rep = src + torch.randn(C, d, generator=generator).to(src)
            else:  # swap: a derangement of the classes' chosen tokens
                perm = _derangement(C, generator)
                rep = src[perm]
            ctx[rows, cols] = rep
            new.ctx = nn.Parameter(ctx, requires_grad=False)
            new.spurious_ctx = nn.Parameter(new.spurious_ctx.detach().clone(), requires_grad=False)
        return new

    def merge(self, other: ContextBank, *, allow_duplicates: bool = False) -> ContextBank:
        """A new bank with this bank's classes followed by ``other``'s (contexts concatenated,
        detached copies). Duplicate class names raise ``ValueError`` unless
        ``allow_duplicates``; the shapes (n_ctx, token_dim, n_spurious) must agree."""
        if not isinstance(other, ContextBank):
            raise TypeError(f"other must be a ContextBank, got {describe(other)}")
        allow_duplicates = check_bool(allow_duplicates, "allow_duplicates")
        for attr in ("n_ctx", "token_dim", "n_spurious"):
            if getattr(self, attr) != getattr(other, attr):
                raise ValueError(
                    f"other has {attr}={getattr(other, attr)} but this bank has "
                    f"{attr}={getattr(self, attr)}"
                )
        dup = sorted(set(self.classnames) & set(other.classnames))
        if dup and not allow_duplicates:
            raise ValueError(
                f"other repeats class names {dup}; pass allow_duplicates=True to keep both"
            )
        new = copy.deepcopy(self)
        new.classnames = list(self.classnames) + list(other.classnames)
        with torch.no_grad():
            new.ctx = nn.Parameter(torch.cat([self.ctx.detach(), other.ctx.detach().to(self.ctx)]))
            new.spurious_ctx = nn.Parameter(
                torch.cat([self.spurious_ctx.detach(), other.spurious_ctx.detach().to(self.ctx)])
            )
        return new


def _derangement(n: int, generator: torch.Generator | None) -> torch.Tensor:
    ar = torch.arange(n)
    while True:
        perm = torch.randperm(n, generator=generator)
        if bool((perm != ar).all()):
            return perm
