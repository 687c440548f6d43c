"""The graph view of an MLP: one node per neuron, one directed edge per weight."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._checks import check_int
from ._validation import check_mlp

__all__ = ["NNGraph", "cnn_to_graph", "edge_types", "graph_to_mlp", "mlp_to_graph", "node_types"]


def node_types(layer_dims, num_hidden=None) -> torch.Tensor:
    """Positional type of every node (one network): each input neuron and each output neuron
    has its own type (they are not permutable), each hidden layer shares one type (by its
    index, so hidden layer l of networks of different depths share a type). ``num_hidden``: the
    most hidden layers of any layout the model serves (default: this layout's)."""
    dims = tuple(layer_dims)
    d0, L = dims[0], len(dims) - 1
    H = L - 1 if num_hidden is None else num_hidden
    types = [torch.arange(d0)]
    for l in range(1, L):
        types.append(torch.full((dims[l],), d0 + l - 1))
    types.append(d0 + H + torch.arange(dims[-1]))
    return torch.cat(types).long()


def edge_types(layer_dims, num_hidden=None) -> torch.Tensor:
    """Positional type of every edge (one network, in :func:`mlp_to_graph` order): edges leaving
    input neuron j share type j; edges entering output neuron k share one type per k; edges
    between two hidden layers share one type per layer (``num_hidden`` as in
    :func:`node_types`)."""
    dims = tuple(layer_dims)
    d0, L = dims[0], len(dims) - 1
    H = L - 1 if num_hidden is None else num_hidden
    out = []
    for l in range(1, L + 1):
        rows, cols = dims[l], dims[l - 1]
        if l == 1:
            t = torch.arange(cols).expand(rows, cols)
        elif l == L:
            t = (d0 + (H - 1) + torch.arange(rows)).unsqueeze(1).expand(rows, cols)
        else:
            t = torch.full((rows, cols), d0 + l - 2)
        out.append(t.reshape(-1))
    return torch.cat(out).long()


@dataclass(frozen=True)
class NNGraph:
    """A batch of MLPs as one graph (disjoint union, network g's nodes are consecutive).

    x: [N, 1] node features (bias; 1 for input neurons); edge_index: [2, E] (row 0 source
    neuron j in layer l-1, row 1 target neuron i in layer l); edge_attr: [E, 1] (W_l[i, j]);
    layer: [N] layer of each node; hidden_mask: [N]; node_type: [N] and edge_type: [E]
    positional types; batch: [N] network of each node; layer_dims: (d_0, ..., d_L);
    kernel_size: (k_h, k_w) of the edge features (``edge_attr`` is [E, k_h * k_w]; (1, 1) for
    MLPs, see :func:`cnn_to_graph`).
    Within a network nodes are ordered layer by layer and edges layer by layer, target-major
    (so the edges of layer l reshape to W_l's [d_l, d_{l-1}] layout).
    """

    x: torch.Tensor
    edge_index: torch.Tensor
    edge_attr: torch.Tensor
    layer: torch.Tensor
    hidden_mask: torch.Tensor
    node_type: torch.Tensor
    edge_type: torch.Tensor
    batch: torch.Tensor
    num_graphs: int
    layer_dims: tuple[int, ...]
    kernel_size: tuple[int, int] = (1, 1)

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def input_mask(self) -> torch.Tensor:
        return self.layer == 0

    @property
    def output_mask(self) -> torch.Tensor:
        return self.layer == len(self.layer_dims) - 1


def mlp_to_graph(weights, biases, *, num_hidden=None) -> NNGraph:
    """Convert an MLP (or a batch of MLPs with one layout) to an :class:`NNGraph`.

    ``num_hidden``: the positional types are those of a model serving networks with up to
    that many hidden layers (``ScaleGMN.num_hidden`` of a mixed-layout model; default this
    network's own depth)."""
    ws, bs, batched = check_mlp(weights, biases)
    if not batched:
        ws = [w.unsqueeze(0) for w in ws]
        bs = [b.unsqueeze(0) for b in bs]
    return _build([w.unsqueeze(-1) for w in ws], bs, num_hidden, (1, 1))


def cnn_to_graph(weights, biases, *, kernel_size=None, num_hidden=None) -> NNGraph:
    """Convert a CNN (conv layers, global average pooling, linear layers; see
    :mod:`scalegmn.cnn`) or a batch of CNNs with one layout to an :class:`NNGraph`: one node
    per channel / neuron (feature: its bias, 1 on input channels), one edge per (output,
    input) channel pair with the flattened kernel as feature, ``edge_attr`` [E, k_h * k_w]
    (kernels zero-padded, centred, to ``kernel_size``, default the largest; linear weights are
    centred 1 x 1 kernels)."""
    from .cnn import check_cnn, cnn_edge_features

    check_cnn(weights, biases)
    edges, bs, _, _, ks = cnn_edge_features(weights, biases, kernel_size=kernel_size)
    return _build(edges, bs, num_hidden, ks)


def _build(edges, bs, num_hidden, kernel_size) -> NNGraph:
    """The graph of B networks from per-layer edge features [B, d_l, d_{l-1}, K]."""
    B = edges[0].shape[0]
    dims = (edges[0].shape[2], *(e.shape[1] for e in edges))
    L = len(dims) - 1
    if num_hidden is not None:
        num_hidden = check_int(num_hidden, "num_hidden", minimum=L - 1)
    V = sum(dims)
    device, dtype = edges[0].device, edges[0].dtype
    K = edges[0].shape[-1]
    offsets = [0]
    for d in dims:
        offsets.append(offsets[-1] + d)
    x = torch.cat([torch.ones(B, dims[0], device=device, dtype=dtype), *bs], dim=1)
    src, dst = [], []
    for l in range(1, L + 1):
        rows, cols = dims[l], dims[l - 1]
        i = torch.arange(rows, device=device).unsqueeze(1).expand(rows, cols) + offsets[l]
        j = torch.arange(cols, device=device).unsqueeze(0).expand(rows, cols) + offsets[l - 1]
        dst.append(i.reshape(-1))
        src.append(j.reshape(-1))
    ei = torch.stack([torch.cat(src), torch.cat(dst)])
    E = ei.shape[1]
    shift = (torch.arange(B, device=device) * V).repeat_interleave(E)
    edge_index = ei.repeat(1, B) + shift
    edge_attr = torch.cat([e.reshape(B, -1, K) for e in edges], dim=1).reshape(-1, K)
    layer = torch.cat([torch.full((d,), l, device=device) for l, d in enumerate(dims)]).long()
    hidden = (layer > 0) & (layer < L)
    return NNGraph(
        x=x.reshape(-1, 1),
        edge_index=edge_index,
        edge_attr=edge_attr,
        layer=layer.repeat(B),
        hidden_mask=hidden.repeat(B),
        node_type=node_types(dims, num_hidden).to(device).repeat(B),
        edge_type=edge_types(dims, num_hidden).to(device).repeat(B),
        batch=torch.arange(B, device=device).repeat_interleave(V),
        num_graphs=B,
        layer_dims=dims,
        kernel_size=tuple(kernel_size),
    )


def graph_to_mlp(graph: NNGraph) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Inverse of :func:`mlp_to_graph`: batched ``(weights, biases)`` ([B, d_l, d_{l-1}], [B, d_l])."""
    if not isinstance(graph, NNGraph):
        from ._checks import describe

        raise TypeError(f"graph must be an NNGraph, got {describe(graph)}")
    if graph.edge_attr.shape[-1] != 1:
        raise ValueError(
            f"graph must be an MLP graph (scalar edge features), got edge_attr of shape "
            f"{tuple(graph.edge_attr.shape)} (a CNN graph)"
        )
    dims, B = graph.layer_dims, graph.num_graphs
    x = graph.x.reshape(B, -1)
    e = graph.edge_attr.reshape(B, -1)
    ws, bs = [], []
    no, eo = dims[0], 0
    for l in range(1, len(dims)):
        n = dims[l] * dims[l - 1]
        ws.append(e[:, eo : eo + n].reshape(B, dims[l], dims[l - 1]))
        bs.append(x[:, no : no + dims[l]])
        eo += n
        no += dims[l]
    return ws, bs
