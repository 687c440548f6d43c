"""PyG integration (extra ``pyg``): a PyG ``GATv2Conv`` stack with the invariance, and weight
copying from :class:`gnn_rescale.GATv2Net`. The functions of :mod:`gnn_rescale.rescale` accept
such stacks directly."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["PyGGATv2Net", "from_gatv2net"]


def _gatv2conv():
    try:
        from torch_geometric.nn import GATv2Conv
    except ImportError as e:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "gnn_rescale.pyg needs torch-geometric: pip install gnn-rescale[pyg]"
        ) from e
    return GATv2Conv


class PyGGATv2Net(nn.Module):
    """``GATv2Conv(heads=1, share_weights=True, bias=False)`` layers with ReLU between them:
    the same function as :class:`gnn_rescale.GATv2Net` on PyG's kernels."""

    def __init__(self, dims, *, negative_slope: float = 0.2, add_self_loops: bool = True):
        super().__init__()
        from .model import GATv2Net

        GATv2Net(dims, negative_slope=negative_slope, add_self_loops=add_self_loops)  # validates
        conv = _gatv2conv()
        self.dims = tuple(int(d) for d in dims)
        self.convs = nn.ModuleList(
            conv(
                self.dims[i],
                self.dims[i + 1],
                heads=1,
                share_weights=True,
                bias=False,
                negative_slope=negative_slope,
                add_self_loops=add_self_loops,
            )
            for i in range(len(self.dims) - 1)
        )

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = torch.relu(x)
        return x


def from_gatv2net(model) -> PyGGATv2Net:
    """A :class:`PyGGATv2Net` with ``model``'s weights (same dtype)."""
    from .model import GATv2Net

    if not isinstance(model, GATv2Net):
        raise TypeError(f"model must be a GATv2Net, got {type(model).__name__}")
    first = model.layers[0]
    out = PyGGATv2Net(
        model.dims, negative_slope=first.negative_slope, add_self_loops=first.add_self_loops
    ).to(first.W.dtype)
    with torch.no_grad():
        for conv, layer in zip(out.convs, model.layers, strict=True):
            conv.lin_l.weight.copy_(layer.W)
            conv.att.view(-1).copy_(layer.a)
    return out
