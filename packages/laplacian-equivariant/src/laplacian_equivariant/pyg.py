"""PyTorch Geometric adapters (extra ``pyg``: ``pip install laplacian-equivariant[pyg]``).

The package itself never imports torch_geometric; this module does so only inside the functions
that build ``Data`` objects. Cycles travel with a ``Data`` as attributes ``cycle_index_<k>``
(LongTensor ``[k, K]``, one column per cycle in cyclic order, like PyG's ``face``): the name
contains ``index``, so PyG's collation (``Batch.from_data_list``, ``DataLoader``) concatenates
them along the last dimension and offsets them by the number of nodes, exactly as it does for
``edge_index``. No custom ``Data`` subclass is needed.

    from torch_geometric.loader import DataLoader
    from laplacian_equivariant.pyg import AddCycleIndex, forward_data, synthetic_dataset

    dataset = synthetic_dataset(100, rng=0)  # list of Data with cycle_index_5, cycle_index_6
    for batch in DataLoader(dataset, batch_size=32):
        out = forward_data(model, batch)  # [num_graphs, out_dim]
"""

from __future__ import annotations

from typing import Any

import torch

from ._checks import check_tensor, describe
from ._validation import check_edge_index, check_sizes
from .subgraphs import cycle_index

__all__ = [
    "AddCycleIndex",
    "cycle_attribute",
    "cycles_from_data",
    "forward_data",
    "from_data",
    "synthetic_dataset",
    "to_data",
]


def _data_class():
    try:
        from torch_geometric.data import Data
    except ImportError as e:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "laplacian_equivariant.pyg needs torch-geometric: "
            "pip install laplacian-equivariant[pyg]"
        ) from e
    return Data


def cycle_attribute(size: int) -> str:
    """Name of the ``Data`` attribute holding the cycles of one length: ``"cycle_index_<size>"``."""
    return f"cycle_index_{check_sizes([size], 'size')[0]}"


def _graph_parts(data: Any, name: str = "data") -> tuple[torch.Tensor, torch.Tensor, int]:
    """(x, edge_index, num_nodes) of a Data-like object, validated."""
    for attr in ("x", "edge_index"):
        if not hasattr(data, attr) or getattr(data, attr) is None:
            raise TypeError(
                f"{name} must have `x` and `edge_index` (a PyG Data), got {describe(data)}"
            )
    x = check_tensor(data.x, f"{name}.x", ndim=2)
    n = int(x.shape[0])
    if n == 0:
        raise ValueError(f"{name}.x must have at least one node, got shape {tuple(x.shape)}")
    ei = check_tensor(
        data.edge_index, f"{name}.edge_index", ndim=2, dtype="integer", allow_empty=True
    )
    check_edge_index(ei, f"{name}.edge_index", n)
    return x, ei, n


class AddCycleIndex:
    """PyG transform: store the graph's cycles of ``sizes`` as ``cycle_index_<k>`` [k, K].

    A plain callable (usable in ``torch_geometric.transforms.Compose`` and as a dataset's
    ``transform``/``pre_transform``); it modifies and returns the ``Data``. Cycles are those of
    :func:`laplacian_equivariant.find_cycles` (each once, in cyclic order, matching
    ``cycle_adjacency(k)``); edges may be given in one or both directions.
    """

    def __init__(self, sizes: Any = (5, 6)):
        self.sizes = check_sizes(sizes, "sizes")

    def __call__(self, data: Any) -> Any:
        _, ei, n = _graph_parts(data)
        for k, cyc in cycle_index(ei, n, sizes=self.sizes).items():
            data[cycle_attribute(k)] = cyc.T.contiguous().to(ei.device)
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(sizes={self.sizes})"


def cycles_from_data(data: Any, *, sizes: Any = (5, 6)) -> dict[int, torch.Tensor]:
    """``{size: LongTensor [K, size]}`` of a ``Data`` or collated ``Batch`` (the layout of
    ``SchurGNN.forward(..., cycles=...)``): read from its ``cycle_index_<k>`` attributes, or
    found from ``edge_index`` for a size it does not carry."""
    sizes = check_sizes(sizes, "sizes")
    _, ei, n = _graph_parts(data)
    out: dict[int, torch.Tensor] = {}
    missing = []
    for k in sizes:
        stored = getattr(data, cycle_attribute(k), None)
        if stored is None:
            missing.append(k)
            continue
        name = f"data.{cycle_attribute(k)}"
        stored = check_tensor(stored, name, ndim=2, dtype="integer", allow_empty=True)
        if stored.shape[0] != k:
            raise ValueError(f"{name} must have shape [{k}, K], got {tuple(stored.shape)}")
        if stored.numel() and (int(stored.min()) < 0 or int(stored.max()) >= n):
            raise ValueError(f"{name} has node indices outside [0, num_nodes={n})")
        out[k] = stored.T.contiguous()
    if missing:
        out.update(cycle_index(ei, n, sizes=missing))
    return {k: out[k] for k in sizes}


def _batch_vector(data: Any, n: int, device: Any) -> torch.Tensor:
    batch = getattr(data, "batch", None)
    if batch is None:
        return torch.zeros(n, dtype=torch.long, device=device)
    return check_tensor(batch, "data.batch", ndim=1, dtype="integer")


def forward_data(model: Any, data: Any) -> torch.Tensor:
    """Run a :class:`~laplacian_equivariant.SchurGNN` on a PyG ``Data`` or ``Batch``:
    ``model(data.x, data.edge_index, data.batch, cycles)`` with the cycles of the model's
    ``cycle_sizes`` from :func:`cycles_from_data` -> [num_graphs, out_dim]."""
    from .models import SchurGNN

    if not isinstance(model, SchurGNN):
        raise TypeError(f"model must be a SchurGNN, got {describe(model)}")
    x, ei, n = _graph_parts(data)
    batch = _batch_vector(data, n, x.device)
    cycles = cycles_from_data(data, sizes=model.cycle_sizes) if model.cycle_sizes else None
    return model(x, ei, batch, cycles)


def from_data(data: Any, *, cycle_sizes: Any = (5, 6)) -> Any:
    """A PyG ``Data``/``Batch`` as a :class:`~laplacian_equivariant.GraphBatch` (``y`` [G, ...]
    from ``data.y``, or an empty [G, 0] tensor when it has none)."""
    from .data import GraphBatch

    sizes = check_sizes(cycle_sizes, "cycle_sizes") if len(tuple(cycle_sizes)) else ()
    x, ei, n = _graph_parts(data)
    batch = _batch_vector(data, n, x.device)
    num_graphs = int(batch.max()) + 1
    y = getattr(data, "y", None)
    y = y.reshape(num_graphs, -1) if y is not None else x.new_zeros(num_graphs, 0)
    cycles = cycles_from_data(data, sizes=sizes) if sizes else {}
    return GraphBatch(x, ei, batch, y, cycles)


def to_data(graph: Any, *, cycle_sizes: Any = (5, 6)) -> Any:
    """One graph (a :class:`~laplacian_equivariant.Molecule` or anything with ``x``,
    ``edge_index`` and optionally ``y``) as a PyG ``Data``, with ``cycle_index_<k>`` attached
    (``cycle_sizes=()``: none)."""
    data_cls = _data_class()
    x, ei, _ = _graph_parts(graph, "graph")
    y = getattr(graph, "y", None)
    data = data_cls(x=x, edge_index=ei, y=None if y is None else y.reshape(1, -1))
    if len(tuple(cycle_sizes)):
        AddCycleIndex(cycle_sizes)(data)
    return data


def synthetic_dataset(n_graphs: int, *, cycle_sizes: Any = (5, 6), **kwargs: Any) -> list[Any]:
    """:func:`~laplacian_equivariant.synthetic_molecules` as a list of PyG ``Data`` (usable with
    ``torch_geometric.loader.DataLoader``), cycles attached; ``kwargs`` go to
    ``synthetic_molecules`` (``rng``, ``max_rings``, ``substituent_prob``, ``target``)."""
    from .data import synthetic_molecules

    return [to_data(m, cycle_sizes=cycle_sizes) for m in synthetic_molecules(n_graphs, **kwargs)]
