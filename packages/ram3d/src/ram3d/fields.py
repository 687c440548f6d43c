"""Radiance fields: modules ``f(x: (n, 3)) -> (sigma: (n,), rgb: (n, 3))``."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_int, check_option, describe
from ._validation import as_tensor

__all__ = ["ACTIVATIONS", "ConstantField", "DenseGridField", "MLPField"]

ACTIVATIONS = ("softplus", "relu")


def _check_aabb(aabb: Any) -> torch.Tensor:
    """(2, 3) min and max corners; (lo, hi) means the cube [lo, hi]^3."""
    box = as_tensor(aabb, "aabb", ndim=(1, 2), dtype=torch.float32)
    if tuple(box.shape) == (2,):
        box = box[:, None].expand(2, 3).clone()
    if tuple(box.shape) != (2, 3):
        raise ValueError(f"aabb must have shape (2, 3) or (2,), got {tuple(box.shape)}")
    if not bool((box[1] > box[0]).all()):
        raise ValueError(f"aabb must have min < max on every axis, got {box.tolist()}")
    return box


def _check_points(x: Any, dtype: torch.dtype | None = None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of points (n, 3), got {describe(x)}")
    x = as_tensor(x, "x", ndim=2, shape=(None, 3), allow_empty=True)
    return x if dtype is None else x.to(dtype)


class DenseGridField(nn.Module):
    """A dense voxel grid of density and colour, trilinearly interpolated (Plenoxels/DVGO-style;
    fast on CPU). ``res`` vertices per axis span ``aabb`` ((2, 3): min corner, max corner)
    corner to corner. ``sigma = act(interp(density))`` with ``activation`` ``"softplus"``
    (default: gradients everywhere) or ``"relu"`` (exact stored values, see
    :meth:`from_values`), ``rgb = sigmoid(interp(color))``; both are 0 outside the box.
    ``init_density`` is the initial density sigma everywhere (initial colour: 0.5 grey)."""

    def __init__(
        self,
        res: int = 32,
        aabb: Any = ((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0)),
        *,
        init_density: float = 0.01,
        activation: str = "softplus",
    ):
        super().__init__()
        res = check_int(res, "res", minimum=2)
        self.activation = check_option(activation, "activation", ACTIVATIONS)
        if self.activation == "softplus":
            init_density = check_float(
                init_density, "init_density", minimum=0.0, min_inclusive=False
            )
            raw = math.log(math.expm1(init_density))
        else:
            raw = init_density = check_float(init_density, "init_density", minimum=0.0)
        self.res = res
        self.register_buffer("aabb", _check_aabb(aabb))
        self.density = nn.Parameter(torch.full((1, 1, res, res, res), raw))
        self.color = nn.Parameter(torch.zeros(1, 3, res, res, res))

    @classmethod
    def from_values(cls, sigma: Any, rgb: Any, aabb: Any = ((-1.0,) * 3, (1.0,) * 3)):
        """A grid holding given vertex values: ``sigma`` (r, r, r) >= 0 and ``rgb`` (r, r, r, 3)
        in (0, 1), indexed [x, y, z] (colours are stored as logits, so they must be strictly
        inside (0, 1))."""
        s = as_tensor(sigma, "sigma", ndim=3, dtype=torch.float32)
        r = s.shape[0]
        if tuple(s.shape) != (r, r, r):
            raise ValueError(f"sigma must be a cube (r, r, r), got shape {tuple(s.shape)}")
        if bool((s < 0).any()):
            raise ValueError("sigma must be non-negative")
        c = as_tensor(rgb, "rgb", shape=(r, r, r, 3), dtype=torch.float32)
        if bool((c <= 0).any()) or bool((c >= 1).any()):
            raise ValueError("rgb must lie strictly inside (0, 1)")
        field = cls(r, aabb, init_density=0.0, activation="relu")
        with torch.no_grad():
            # grid_sample indexes (D, H, W) = (z, y, x)
            field.density.copy_(s.permute(2, 1, 0)[None, None])
            field.color.copy_(torch.logit(c).permute(3, 2, 1, 0)[None])
        return field

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = _check_points(x, self.density.dtype)
        lo, hi = self.aabb[0].to(x.dtype), self.aabb[1].to(x.dtype)
        g = 2 * (x - lo) / (hi - lo) - 1
        inside = (g.abs() <= 1).all(dim=-1)
        sigma = x.new_zeros(x.shape[0])
        rgb = x.new_zeros(x.shape[0], 3)
        idx = torch.nonzero(inside).reshape(-1)
        if idx.numel() == 0:
            return sigma + 0.0 * self.density.sum(), rgb + 0.0 * self.color.sum()
        # one grid_sample for density and colour; only the points inside the box
        vol = torch.cat([self.density, self.color], dim=1).to(x.dtype)
        vals = F.grid_sample(vol, g[idx].reshape(1, -1, 1, 1, 3), align_corners=True)
        vals = vals.reshape(4, -1).T
        dens = F.relu(vals[:, 0]) if self.activation == "relu" else F.softplus(vals[:, 0])
        sigma = sigma.index_put((idx,), dens)
        rgb = rgb.index_put((idx,), torch.sigmoid(vals[:, 1:]))
        return sigma, rgb


class ConstantField(nn.Module):
    """Constant density ``sigma`` and colour ``rgb`` inside ``aabb`` (zero outside): the
    closed-form reference of a homogeneous slab, transmittance exp(-sigma * length)."""

    def __init__(self, sigma: float, rgb: Any = (1.0, 1.0, 1.0), aabb: Any = None):
        super().__init__()
        self.sigma = check_float(sigma, "sigma", minimum=0.0)
        self.register_buffer("rgb", as_tensor(rgb, "rgb", shape=(3,), dtype=torch.float32))
        box = torch.tensor([[-math.inf] * 3, [math.inf] * 3]) if aabb is None else _check_aabb(aabb)
        self.register_buffer("aabb", box)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = _check_points(x)
        inside = ((x >= self.aabb[0].to(x.dtype)) & (x <= self.aabb[1].to(x.dtype))).all(-1)
        sigma = torch.where(inside, torch.full_like(x[:, 0], self.sigma), torch.zeros_like(x[:, 0]))
        rgb = torch.where(inside[:, None], self.rgb.to(x.dtype).expand(x.shape[0], 3), 0.0)
        return sigma, rgb


class MLPField(nn.Module):
    """A small NeRF MLP with a sinusoidal positional encoding of ``n_freqs`` octaves;
    ``sigma = softplus(.)``, ``rgb = sigmoid(.)``, zero outside ``aabb``."""

    def __init__(
        self,
        hidden: int = 64,
        n_layers: int = 3,
        n_freqs: int = 6,
        aabb: Any = ((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0)),
    ):
        super().__init__()
        hidden = check_int(hidden, "hidden", minimum=1)
        n_layers = check_int(n_layers, "n_layers", minimum=1)
        self.n_freqs = check_int(n_freqs, "n_freqs", minimum=0)
        self.register_buffer("aabb", _check_aabb(aabb))
        layers: list[nn.Module] = []
        width = 3 + 6 * self.n_freqs
        for _ in range(n_layers):
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        layers.append(nn.Linear(width, 4))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        dtype = self.net[0].weight.dtype
        x = _check_points(x, dtype)
        lo, hi = self.aabb[0].to(dtype), self.aabb[1].to(dtype)
        u = 2 * (x - lo) / (hi - lo) - 1
        inside = (u.abs() <= 1).all(dim=-1)
        feats = [u]
        for k in range(self.n_freqs):
            feats += [torch.sin((2**k) * math.pi * u), torch.cos((2**k) * math.pi * u)]
        out = self.net(torch.cat(feats, dim=-1))
        sigma = torch.where(inside, F.softplus(out[:, 0]), torch.zeros_like(out[:, 0]))
        rgb = torch.where(inside[:, None], torch.sigmoid(out[:, 1:]), torch.zeros_like(out[:, 1:]))
        return sigma, rgb
