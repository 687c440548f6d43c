"""Building blocks of ScaleGMN (Kalogeropoulos et al., NeurIPS 2024).

Every block acts on the last dimension of its inputs. ``kind`` is the symmetry of the node the
vector belongs to: "sign" (q in {-1, 1}, odd activations), "scale" (q > 0, ReLU), "hetero"
(per node, "sign" where ``sign_mask`` is True and "scale" elsewhere) or "permutation" (no
scaling symmetry: plain MLPs, the GMN baseline).
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_int, check_option

__all__ = ["MLP", "EdgeUpdate", "ReScaleEqMessage", "ScaleEq", "ScaleInv", "canonical"]

KINDS = ("sign", "scale", "hetero", "permutation")
EPS = 1e-10


class MLP(nn.Sequential):
    """Linear -> LayerNorm -> SiLU -> Linear (the authors' MLP with one hidden layer)."""

    def __init__(self, in_dim: int, out_dim: int, hidden: int):
        super().__init__(
            nn.Linear(in_dim, hidden), nn.LayerNorm(hidden), nn.SiLU(), nn.Linear(hidden, out_dim)
        )


def canonical(x: torch.Tensor, kind: str, rho: nn.Module | None = None) -> torch.Tensor:
    """Invariant map of a vector: sign -> rho(x) + rho(-x) (|x| if rho is None);
    scale -> x / (||x|| + 1e-10); permutation -> x."""
    if kind == "sign":
        return x.abs() if rho is None else rho(x) + rho(-x)
    if kind == "scale":
        return x / (torch.linalg.vector_norm(x, dim=-1, keepdim=True) + EPS)
    return x


class _Canon(nn.Module):
    """canonical() with a learnable sign symmetrisation rho and the hetero mixture."""

    def __init__(self, dim: int, kind: str, hidden: int):
        super().__init__()
        self.kind = kind
        if kind in ("sign", "hetero"):
            self.rho = MLP(dim, dim, hidden)

    def forward(self, x, sign_mask=None):
        if self.kind == "hetero":
            if sign_mask is None:
                raise ValueError("sign_mask is required with symmetry='hetero'")
            return torch.where(sign_mask, canonical(x, "sign", self.rho), canonical(x, "scale"))
        return canonical(x, self.kind, getattr(self, "rho", None))


class ScaleInv(nn.Module):
    """Scale-invariant map phi(canonical(x)) -> [.., out_dim] ("ScaleInv" of the paper); with
    ``extra_dim`` > 0, invariant extra features are concatenated before phi ("AugScaleInv")."""

    def __init__(self, in_dim, out_dim, *, kind="sign", hidden=None, extra_dim=0):
        super().__init__()
        in_dim = check_int(in_dim, "in_dim", minimum=1)
        out_dim = check_int(out_dim, "out_dim", minimum=1)
        kind = check_option(kind, "kind", KINDS)
        hidden = out_dim if hidden is None else check_int(hidden, "hidden", minimum=1)
        extra_dim = check_int(extra_dim, "extra_dim", minimum=0)
        self.kind = kind
        if kind == "hetero":  # separate phi per kind, like the authors' code
            self.sign = ScaleInv(in_dim, out_dim, kind="sign", hidden=hidden, extra_dim=extra_dim)
            self.scale = ScaleInv(in_dim, out_dim, kind="scale", hidden=hidden, extra_dim=extra_dim)
        else:
            self.canon = _Canon(in_dim, kind, hidden)
            self.phi = MLP(in_dim + extra_dim, out_dim, hidden)

    def forward(self, x, extra=None, sign_mask=None):
        if self.kind == "hetero":
            if sign_mask is None:
                raise ValueError("sign_mask is required with symmetry='hetero'")
            return torch.where(sign_mask, self.sign(x, extra), self.scale(x, extra))
        r = self.canon(x)
        if extra is not None:
            r = torch.cat([r, extra.expand(*r.shape[:-1], extra.shape[-1])], dim=-1)
        return self.phi(r)


class ScaleEq(nn.Module):
    """ScaleEq(x) = (W x) * psi(x): W bias-free, psi = ScaleInv on hidden nodes (so
    ScaleEq(q x) = q ScaleEq(x)) and a plain MLP on input/output nodes (no scaling acts)."""

    def __init__(self, in_dim, out_dim, *, kind="sign", hidden=None):
        super().__init__()
        in_dim = check_int(in_dim, "in_dim", minimum=1)
        out_dim = check_int(out_dim, "out_dim", minimum=1)
        kind = check_option(kind, "kind", KINDS[:3])
        hidden = out_dim if hidden is None else check_int(hidden, "hidden", minimum=1)
        self.W = nn.Linear(in_dim, out_dim, bias=False)
        self.inv = ScaleInv(in_dim, out_dim, kind=kind, hidden=hidden)
        self.io = MLP(in_dim, out_dim, hidden)

    def forward(self, x, *, hidden: bool, sign_mask=None):
        gate = self.inv(x, sign_mask=sign_mask) if hidden else self.io(x)
        return self.W(x) * gate


class _EdgeBlock(nn.Module):
    """Shared argument checks of the per-edge blocks."""

    def __init__(self, dim, kind, hidden):
        super().__init__()
        self.dim = check_int(dim, "dim", minimum=1)
        self.kind = check_option(kind, "kind", KINDS)
        self.hidden = self.dim if hidden is None else check_int(hidden, "hidden", minimum=1)


class ReScaleEqMessage(_EdgeBlock):
    """Message m_ij = ScaleEq((W_e e_ij) * (W_v x_j)): e_ij scales by q_i / q_j and x_j by
    q_j, so the product, and the message, scale by q_i alone. ``kind="permutation"`` gives the
    GMN message MLP([e_ij; x_j])."""

    def __init__(self, dim, *, kind="sign", hidden=None):
        super().__init__(dim, kind, hidden)
        dim, hidden = self.dim, self.hidden
        if kind == "permutation":
            self.mlp = MLP(2 * dim, dim, hidden)
        else:
            self.w_v = nn.Linear(dim, dim, bias=False)
            self.w_e = nn.Linear(dim, dim, bias=False)
            self.eq = ScaleEq(dim, dim, kind=kind, hidden=hidden)

    def forward(self, e, x_src, *, hidden: bool, sign_mask=None):
        if self.kind == "permutation":
            x_src = x_src.expand(*e.shape[:-1], x_src.shape[-1])
            return self.mlp(torch.cat([e, x_src], dim=-1))
        return self.eq(self.w_e(e) * self.w_v(x_src), hidden=hidden, sign_mask=sign_mask)


class EdgeUpdate(_EdgeBlock):
    """e_ij' = (W e_ij) * phi([canon(x_j); canon(x_i)]) (scales like e_ij: q_i / q_j);
    ``kind="permutation"``: MLP([e_ij; x_j; x_i])."""

    def __init__(self, dim, *, kind="sign", hidden=None):
        super().__init__(dim, kind, hidden)
        dim, hidden = self.dim, self.hidden
        if kind == "permutation":
            self.mlp = MLP(3 * dim, dim, hidden)
        else:
            self.W = nn.Linear(dim, dim, bias=False)
            self.canon = _Canon(dim, kind, hidden)
            self.phi = MLP(2 * dim, dim, hidden)

    def forward(self, e, x_src, x_dst, *, src_sign=None, dst_sign=None):
        shape = (*e.shape[:-1], x_src.shape[-1])
        if self.kind == "permutation":
            return self.mlp(torch.cat([e, x_src.expand(shape), x_dst.expand(shape)], dim=-1))
        cs = self.canon(x_src, src_sign).expand(shape)
        cd = self.canon(x_dst, dst_sign).expand(shape)
        return self.W(e) * self.phi(torch.cat([cs, cd], dim=-1))
