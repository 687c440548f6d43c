"""torch-geometric adapters (extra ``pyg``): an :class:`~scalegmn.NNGraph` as a PyG ``Data``.

PyG is imported lazily; the rest of the package does not need it.
"""

from __future__ import annotations

from ._checks import describe
from .graph import NNGraph, mlp_to_graph

__all__ = ["mlp_to_data", "to_data", "to_data_list"]


def _pyg():
    try:
        from torch_geometric.data import Data
    except ImportError as err:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "scalegmn.pyg needs torch-geometric: pip install 'scalegmn[pyg]'"
        ) from err
    return Data


def _check_graph(graph):
    if not isinstance(graph, NNGraph):
        raise TypeError(f"graph must be an NNGraph, got {describe(graph)}")
    return graph


def to_data(graph):
    """One ``torch_geometric.data.Data`` holding the whole (batched) graph, with ``x``,
    ``edge_index`` (row 0 source), ``edge_attr``, ``layer``, ``mask_hidden``, ``node_type``,
    ``edge_type`` and ``batch``."""
    Data = _pyg()
    g = _check_graph(graph)
    return Data(
        x=g.x,
        edge_index=g.edge_index,
        edge_attr=g.edge_attr,
        layer=g.layer,
        mask_hidden=g.hidden_mask,
        node_type=g.node_type,
        edge_type=g.edge_type,
        batch=g.batch,
        num_nodes=g.num_nodes,
    )


def to_data_list(graph):
    """One ``Data`` per network (for ``torch_geometric.loader.DataLoader``)."""
    Data = _pyg()
    g = _check_graph(graph)
    V = g.num_nodes // g.num_graphs
    E = g.edge_index.shape[1] // g.num_graphs
    out = []
    for k in range(g.num_graphs):
        ns, es = slice(k * V, (k + 1) * V), slice(k * E, (k + 1) * E)
        out.append(
            Data(
                x=g.x[ns],
                edge_index=g.edge_index[:, es] - k * V,
                edge_attr=g.edge_attr[es],
                layer=g.layer[ns],
                mask_hidden=g.hidden_mask[ns],
                node_type=g.node_type[ns],
                edge_type=g.edge_type[es],
                num_nodes=V,
            )
        )
    return out


def mlp_to_data(weights, biases):
    """``to_data_list(mlp_to_graph(weights, biases))``."""
    return to_data_list(mlp_to_graph(weights, biases))
