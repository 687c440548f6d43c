"""The SGFormer model: a global branch (simple global attention) and a GCN branch, mixed."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import (
    check_bool,
    check_float,
    check_int,
    check_option,
    check_probability,
    check_tensor,
)
from ._validation import as_edge_index, as_float_tensor
from .attention import NORMALIZATIONS, SimpleGlobalAttention, dense_reference_attention
from .graph import gcn_norm, propagate

__all__ = ["GCNBranch", "GlobalBranch", "SGFormer"]


def _check_x(x, in_dim: int, dtype=torch.float32) -> Tensor:
    if not isinstance(x, Tensor):
        x = as_float_tensor(x, "x", ndim=2).to(dtype)
    x = check_tensor(x, "x", ndim=2)
    if x.shape[1] != in_dim:
        raise ValueError(f"x must have {in_dim} features, got shape {tuple(x.shape)}")
    return x


class GlobalBranch(nn.Module):
    """Input MLP (Linear, LayerNorm, ReLU, dropout), then ``layers`` simple-global-attention
    layers, each followed by the residual ``alpha * attn + (1 - alpha) * previous``, LayerNorm,
    optional ReLU and dropout. [N, in_dim] -> [N, hidden]."""

    def __init__(
        self,
        in_dim: int,
        hidden: int,
        *,
        layers: int = 1,
        heads: int = 1,
        alpha: float = 0.5,
        dropout: float = 0.5,
        use_ln: bool = True,
        use_act: bool = False,
        normalize: str = "frobenius",
    ) -> None:
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        layers = check_int(layers, "layers", minimum=1)
        self.alpha = check_probability(alpha, "alpha")
        self.dropout = check_probability(dropout, "dropout", allow_one=False)
        self.use_ln = check_bool(use_ln, "use_ln")
        self.use_act = check_bool(use_act, "use_act")
        self.fc = nn.Linear(self.in_dim, hidden)
        self.attns = nn.ModuleList(
            SimpleGlobalAttention(hidden, hidden, heads=heads, normalize=normalize)
            for _ in range(layers)
        )
        self.lns = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers + 1))

    def _input(self, x: Tensor) -> Tensor:
        x = self.fc(x)
        if self.use_ln:
            x = self.lns[0](x)
        return F.dropout(F.relu(x), self.dropout, self.training)

    def forward(self, x: Tensor) -> Tensor:
        x = self._input(_check_x(x, self.in_dim))
        for i, attn in enumerate(self.attns):
            x = self.alpha * attn(x) + (1.0 - self.alpha) * x
            if self.use_ln:
                x = self.lns[i + 1](x)
            if self.use_act:
                x = F.relu(x)
            x = F.dropout(x, self.dropout, self.training)
        return x


class GCNBranch(nn.Module):
    """Input Linear, BatchNorm, ReLU, dropout; then ``layers`` times: propagate with
    D^{-1/2}(A + I)D^{-1/2}, Linear (on [h, h0] with ``use_init``), BatchNorm, ReLU, dropout, and
    ``+ previous`` (``use_residual``). [N, in_dim] -> [N, hidden]."""

    def __init__(
        self,
        in_dim: int,
        hidden: int,
        *,
        layers: int = 2,
        dropout: float = 0.5,
        use_bn: bool = True,
        use_residual: bool = True,
        use_init: bool = False,
    ) -> None:
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        layers = check_int(layers, "layers", minimum=1)
        self.dropout = check_probability(dropout, "dropout", allow_one=False)
        self.use_bn = check_bool(use_bn, "use_bn")
        self.use_residual = check_bool(use_residual, "use_residual")
        self.use_init = check_bool(use_init, "use_init")
        self.fc = nn.Linear(self.in_dim, hidden)
        width = 2 * hidden if use_init else hidden
        self.lins = nn.ModuleList(nn.Linear(width, hidden) for _ in range(layers))
        self.bns = nn.ModuleList(nn.BatchNorm1d(hidden) for _ in range(layers + 1))

    def _post(self, x: Tensor, i: int) -> Tensor:
        if self.use_bn:
            x = self.bns[i](x)
        return F.dropout(F.relu(x), self.dropout, self.training)

    def forward(self, x: Tensor, edge_index) -> Tensor:
        x = _check_x(x, self.in_dim)
        index, weight = gcn_norm(edge_index, x.shape[0])
        x = self._post(self.fc(x), 0)
        x0 = prev = x
        for i, lin in enumerate(self.lins):
            h = propagate(x, index, weight)
            if self.use_init:
                h = torch.cat([h, x0], dim=-1)
            x = self._post(lin(h), i + 1)
            if self.use_residual:
                x = x + prev
            prev = x
        return x


class SGFormer(nn.Module):
    """SGFormer (Wu et al., NeurIPS 2023): ``logits = W_out Z`` with
    ``Z = graph_weight * Z_gnn + (1 - graph_weight) * Z_global`` (``aggregate="add"``) or
    ``Z = [Z_global, Z_gnn]`` (``"cat"``). ``trans_layers=0`` drops the global branch (GCN
    only); ``gnn_layers=0`` drops the GCN branch (global only).

    ``forward(x [N, in_dim], edge_index [2, E]) -> logits [N, out_dim]``.
    """

    def __init__(
        self,
        in_dim: int,
        hidden: int,
        out_dim: int,
        *,
        trans_layers: int = 1,
        heads: int = 1,
        alpha: float = 0.5,
        gnn_layers: int = 2,
        graph_weight: float = 0.8,
        aggregate: str = "add",
        normalize: str = "frobenius",
        dropout: float = 0.5,
        use_bn: bool = True,
        use_residual: bool = True,
        use_init: bool = False,
    ) -> None:
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        self.hidden = check_int(hidden, "hidden", minimum=1)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        trans_layers = check_int(trans_layers, "trans_layers", minimum=0)
        gnn_layers = check_int(gnn_layers, "gnn_layers", minimum=0)
        if trans_layers == 0 and gnn_layers == 0:
            raise ValueError("trans_layers and gnn_layers cannot both be 0")
        self.graph_weight = check_probability(graph_weight, "graph_weight")
        self.aggregate = check_option(aggregate, "aggregate", ("add", "cat"))
        check_option(normalize, "normalize", NORMALIZATIONS)
        check_probability(dropout, "dropout", allow_one=False)
        self.global_branch = (
            GlobalBranch(
                in_dim,
                hidden,
                layers=trans_layers,
                heads=heads,
                alpha=alpha,
                dropout=dropout,
                normalize=normalize,
            )
            if trans_layers
            else None
        )
        self.gnn_branch = (
            GCNBranch(
                in_dim,
                hidden,
                layers=gnn_layers,
                dropout=dropout,
                use_bn=use_bn,
                use_residual=use_residual,
                use_init=use_init,
            )
            if gnn_layers
            else None
        )
        both = self.global_branch is not None and self.gnn_branch is not None
        width = 2 * hidden if (aggregate == "cat" and both) else hidden
        self.fc = nn.Linear(width, self.out_dim)

    def embed(self, x, edge_index) -> Tensor:
        x = _check_x(x, self.in_dim, self.fc.weight.dtype)
        ei = as_edge_index(edge_index, num_nodes=x.shape[0])
        z_glob = self.global_branch(x) if self.global_branch is not None else None
        z_gnn = self.gnn_branch(x, ei) if self.gnn_branch is not None else None
        if z_glob is None:
            return z_gnn
        if z_gnn is None:
            return z_glob
        if self.aggregate == "add":
            return self.graph_weight * z_gnn + (1.0 - self.graph_weight) * z_glob
        return torch.cat([z_glob, z_gnn], dim=-1)

    def forward(self, x, edge_index) -> Tensor:
        return self.fc(self.embed(x, edge_index))

    def param_groups(self, trans_wd: float, gnn_wd: float) -> list[dict]:
        """Adam parameter groups as in the paper's code: global branch with ``trans_wd``,
        GCN branch + output head with ``gnn_wd``."""
        trans_wd = check_float(trans_wd, "trans_wd", minimum=0.0)
        gnn_wd = check_float(gnn_wd, "gnn_wd", minimum=0.0)
        trans = list(self.global_branch.parameters()) if self.global_branch is not None else []
        rest = list(self.gnn_branch.parameters()) if self.gnn_branch is not None else []
        rest += list(self.fc.parameters())
        groups = [{"params": rest, "weight_decay": gnn_wd}]
        if trans:
            groups.insert(0, {"params": trans, "weight_decay": trans_wd})
        return groups

    @torch.no_grad()
    def attention_matrix(self, x, *, layer: int = 0) -> Tensor:
        """The implicit [H, N, N] all-pair matrix of global layer ``layer`` (small N only)."""
        if self.global_branch is None:
            raise ValueError("this model has no global branch (trans_layers=0)")
        x = _check_x(x, self.in_dim)
        layer = check_int(layer, "layer", minimum=0, maximum=len(self.global_branch.attns) - 1)
        g = self.global_branch
        h = g._input(x)
        for i in range(layer):
            h = g.alpha * g.attns[i](h) + (1.0 - g.alpha) * h
            if g.use_ln:
                h = g.lns[i + 1](h)
            if g.use_act:
                h = F.relu(h)
        a = g.attns[layer]
        N = h.shape[0]
        q = a.Wq(h).view(N, a.heads, a.out_dim)
        k = a.Wk(h).view(N, a.heads, a.out_dim)
        v = a.Wv(h).view(N, a.heads, a.out_dim)
        return dense_reference_attention(q, k, v, normalize=a.normalize)[1]
