"""ESPACE's projected linear layer, model surgery, and the weight-factorisation baselines."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_int, check_option, check_tensor, describe
from ._validation import as_float_tensor, check_linear, check_module, linear_parts

__all__ = ["LowRankLinear", "ProjectedLinear", "apply_espace", "svd_linear", "whitened_svd"]

MODES = ("train", "inference")


def _check_projection(P: Any, K: int, name: str = "P") -> torch.Tensor:
    P = as_float_tensor(P, name, ndim=2)
    if P.shape[0] != K or not 1 <= P.shape[1] <= K:
        raise ValueError(
            f"{name} must have shape (K, L) with K = in_features = {K} and 1 <= L <= K, "
            f"got shape {tuple(P.shape)}"
        )
    return P


class _Factored(nn.Module):
    """What the two factored layers share: the L·(N + K) count and the repr."""

    in_features: int
    out_features: int
    rank: int

    def num_parameters(self) -> int:
        """Weights of the inference form, ``L·(N + K)`` (+ N with a bias), in either mode."""
        n = self.rank * (self.in_features + self.out_features)
        return n + (self.out_features if self.bias is not None else 0)

    def extra_repr(self) -> str:
        mode = f", mode={self.mode!r}" if hasattr(self, "mode") else ""
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"rank={self.rank}{mode}, bias={self.bias is not None}"
        )


class ProjectedLinear(_Factored):
    """A linear layer whose input is projected onto a fixed L-dimensional subspace.

    ``mode="train"``: ``y = W (P Pᵀ x) + b`` with the full ``weight`` W (N, K) and ``bias``
    trainable and ``projection`` P (K, L) a buffer (never trained). ``mode="inference"``:
    ``weight`` is ``W̃ = W P`` (N, L) and ``y = W̃ (Pᵀ x) + b``, the same function with
    L·(N + K) weights. Build one with :meth:`from_linear`; :meth:`to_inference` folds W into W̃.
    """

    def __init__(
        self,
        weight: torch.Tensor,
        projection: torch.Tensor,
        bias: torch.Tensor | None = None,
        *,
        mode: str = "train",
    ):
        super().__init__()
        mode = check_option(mode, "mode", MODES)
        weight = check_tensor(weight, "weight", ndim=2)
        projection = _check_projection(projection, weight.shape[1], "projection")
        projection = projection.detach().to(device=weight.device, dtype=weight.dtype)
        if bias is not None:
            bias = check_tensor(bias, "bias", ndim=1, shape=(weight.shape[0],))
        self.in_features = int(weight.shape[1])
        self.out_features = int(weight.shape[0])
        self.rank = int(projection.shape[1])
        self.mode = "train"
        self.weight = nn.Parameter(weight.detach().clone())
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone())
        self.register_buffer("projection", projection.clone().contiguous())
        if mode == "inference":
            self.to_inference()

    @property
    def P(self) -> torch.Tensor:
        """The projection buffer (K, L)."""
        return self.projection

    @classmethod
    def from_linear(cls, linear: nn.Module, P: Any, *, mode: str = "train") -> ProjectedLinear:
        """Wrap a ``nn.Linear`` (or Hugging Face ``Conv1D``) with projection ``P`` (K, L)."""
        linear = check_linear(linear, "linear")
        mode = check_option(mode, "mode", MODES)
        W, b = linear_parts(linear)
        P = _check_projection(P, W.shape[1])
        layer = cls(W.detach(), P, None if b is None else b.detach(), mode=mode)
        layer.train(linear.training)
        return layer

    @torch.no_grad()
    def to_inference(self) -> ProjectedLinear:
        """Replace W by ``W̃ = W P`` (in place; a no-op in inference mode); returns ``self``."""
        if self.mode == "inference":
            return self
        reduced = self.weight @ self.projection
        self.weight = nn.Parameter(reduced.contiguous(), requires_grad=self.weight.requires_grad)
        self.mode = "inference"
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = x @ self.projection  # Pᵀx, (..., L)
        if self.mode == "train":
            return F.linear(z @ self.projection.T, self.weight, self.bias)
        return F.linear(z, self.weight, self.bias)


class LowRankLinear(_Factored):
    """``y = left (right x) + b``: a rank-L factorisation of a weight (the SVD baselines).

    ``left`` is (N, L), ``right`` (L, K); ``weight`` is their product (N, K), read-only.
    """

    def __init__(self, left: torch.Tensor, right: torch.Tensor, bias: torch.Tensor | None = None):
        super().__init__()
        left = check_tensor(left, "left", ndim=2)
        right = check_tensor(right, "right", ndim=2)
        if left.shape[1] != right.shape[0]:
            raise ValueError(
                f"right must have {left.shape[1]} rows (left's columns), got shape "
                f"{tuple(right.shape)}"
            )
        if bias is not None:
            bias = check_tensor(bias, "bias", ndim=1, shape=(left.shape[0],))
        self.out_features = int(left.shape[0])
        self.in_features = int(right.shape[1])
        self.rank = int(left.shape[1])
        self.left = nn.Parameter(left.detach().clone().contiguous())
        self.right = nn.Parameter(right.detach().clone().contiguous())
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone())

    @property
    def weight(self) -> torch.Tensor:
        return self.left @ self.right

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(F.linear(x, self.right), self.left, self.bias)


def _low_rank(linear: nn.Module, U: torch.Tensor, W64: torch.Tensor) -> LowRankLinear:
    W, b = linear_parts(linear)
    left = U
    right = U.T @ W64
    kw = {"dtype": W.dtype, "device": W.device}
    bias = None if b is None else b.detach()
    layer = LowRankLinear(left.to(**kw), right.to(**kw), bias)
    layer.train(linear.training)
    return layer


def svd_linear(linear: nn.Module, rank: int) -> LowRankLinear:
    """Truncated SVD of the weight (Eckart–Young optimum of ‖W - Ŵ‖_F at rank ``rank``)."""
    linear = check_linear(linear, "linear")
    W, _ = linear_parts(linear)
    rank = check_int(rank, "rank", minimum=1, maximum=min(W.shape))
    W64 = W.detach().to(device="cpu", dtype=torch.float64)
    U, _, _ = torch.linalg.svd(W64, full_matrices=False)
    return _low_rank(linear, U[:, :rank], W64)


def whitened_svd(linear: nn.Module, C_X: Any, rank: int) -> LowRankLinear:
    """The rank-``rank`` Ŵ minimising ``E‖(W - Ŵ)x‖² = tr((W - Ŵ) C_X (W - Ŵ)ᵀ)``.

    With ``C_X = S Sᵀ``, the objective is ``‖(W - Ŵ) S‖_F²``, minimised by ``Ŵ = U_L U_Lᵀ W``
    with ``U_L`` the top left singular vectors of ``W S`` (no inverse of ``C_X`` needed, so a
    singular ``C_X`` is fine). ``C_X = I`` gives :func:`svd_linear`.
    """
    linear = check_linear(linear, "linear")
    W, _ = linear_parts(linear)
    C = as_float_tensor(C_X, "C_X", ndim=2)
    K = W.shape[1]
    if tuple(C.shape) != (K, K):
        raise ValueError(
            f"C_X must be a square (K, K) matrix with K = in_features = {K}, "
            f"got shape {tuple(C.shape)}"
        )
    rank = check_int(rank, "rank", minimum=1, maximum=min(W.shape))
    C64 = C.detach().to(device="cpu", dtype=torch.float64)
    values, vectors = torch.linalg.eigh((C64 + C64.T) / 2)
    if values.min() < -1e-8 * max(1.0, float(values.abs().max())):
        raise ValueError(
            f"C_X must be positive semi-definite, got eigenvalue {float(values.min()):.3g}"
        )
    S = vectors * values.clamp_min(0).sqrt()  # C_X = S Sᵀ
    W64 = W.detach().to(device="cpu", dtype=torch.float64)
    U, _, _ = torch.linalg.svd(W64 @ S, full_matrices=False)
    return _low_rank(linear, U[:, :rank], W64)


def _set_module(model: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    setattr(parent, child, new)


def apply_espace(model: nn.Module, projections: dict, *, mode: str = "inference") -> nn.Module:
    """Replace each named linear layer of ``model`` by a :class:`ProjectedLinear` (in place).

    ``projections`` maps module names (``model.named_modules()``) to P (K, L); returns ``model``.
    """
    model = check_module(model, "model")
    if not isinstance(projections, dict):
        raise TypeError(f"projections must be a dict {{name: P}}, got {describe(projections)}")
    if not projections:
        raise ValueError("projections must name at least one layer, got an empty dict")
    mode = check_option(mode, "mode", MODES)
    modules = dict(model.named_modules())
    new = {}
    for name, P in projections.items():
        if not isinstance(name, str):
            raise TypeError(f"projections keys must be module names (str), got {describe(name)}")
        if name not in modules:
            raise ValueError(f"projections names {name!r}, which is not a module of model")
        module = modules[name]
        if isinstance(module, ProjectedLinear):
            raise ValueError(f"projections names {name!r}, which is already a ProjectedLinear")
        check_linear(module, f"projections[{name!r}] layer")
        W, _ = linear_parts(module)
        P = _check_projection(P, W.shape[1], f"projections[{name!r}]")
        new[name] = ProjectedLinear.from_linear(module, P, mode=mode)
    for name, layer in new.items():
        _set_module(model, name, layer)
    return model
