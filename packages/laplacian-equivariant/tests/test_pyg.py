"""PyG adapters on real torch_geometric Data, Batch and DataLoader (extra ``pyg``; run by
``nox -s tests_extras``, skipped where torch_geometric is absent)."""

import pytest
import torch

pyg = pytest.importorskip("torch_geometric")

from laplacian_equivariant import SchurGNN, batch_graphs, find_cycles, synthetic_molecules  # noqa: E402
from laplacian_equivariant.pyg import (  # noqa: E402
    AddCycleIndex,
    cycle_attribute,
    cycles_from_data,
    forward_data,
    from_data,
    synthetic_dataset,
    to_data,
)
from torch_geometric.data import Batch, Data  # noqa: E402
from torch_geometric.loader import DataLoader  # noqa: E402
from torch_geometric.transforms import Compose, ToUndirected  # noqa: E402


def _as_set(cycles):
    return {tuple(int(v) for v in row) for row in cycles}


def test_collated_cycles_equal_cycles_of_the_batched_graph():
    """PyG's own collation offsets cycle_index_<k> like edge_index: the batch's cycles are
    exactly find_cycles of the disjoint union (found independently on the batch)."""
    data = synthetic_dataset(12, rng=3)
    batch = next(iter(DataLoader(data, batch_size=12)))
    assert isinstance(batch, Batch) and batch.num_graphs == 12
    got = cycles_from_data(batch)
    found = find_cycles(batch.edge_index, batch.num_nodes, sizes=(5, 6))
    for k in (5, 6):
        assert batch[cycle_attribute(k)].shape[0] == k
        assert _as_set(got[k]) == {c for c in found if len(c) == k}
    assert sum(len(v) for v in got.values()) == len(found) > 12


def test_forward_on_dataloader_batches_equals_package_batching():
    torch.manual_seed(0)
    mols = synthetic_molecules(10, rng=5)
    model = SchurGNN(3, 8, 2, layers=2).double()
    ours = model(*(lambda b: (b.x.double(), b.edge_index, b.batch, b.cycles))(batch_graphs(mols)))
    data = [to_data(m._replace(x=m.x.double())) for m in mols]
    outs, ys = [], []
    for batch in DataLoader(data, batch_size=4, shuffle=False):
        outs.append(forward_data(model, batch))
        ys.append(batch.y)
    assert float((torch.cat(outs) - ours).detach().abs().max()) < 1e-9
    assert torch.equal(torch.cat(ys).squeeze(-1), torch.cat([m.y for m in mols]).double())


def test_cycles_found_when_absent_and_one_direction_edges():
    """A plain Data (no cycle attributes, one direction per edge) gives the same output as the
    symmetrised one carrying its cycles; the transform composes with PyG's transforms."""
    torch.manual_seed(1)
    mol = synthetic_molecules(1, rng=8)[0]
    x = mol.x.double()
    one_way = mol.edge_index[:, mol.edge_index[0] < mol.edge_index[1]]
    plain = Data(x=x, edge_index=one_way)
    full = Compose([ToUndirected(), AddCycleIndex((5, 6))])(Data(x=x, edge_index=one_way))
    assert cycle_attribute(6) in full and cycle_attribute(6) not in plain
    model = SchurGNN(3, 8, 1, layers=2).double()
    a, b = forward_data(model, plain), forward_data(model, full)
    assert float((a - b).detach().abs().max()) < 1e-9
    assert float((a - model(x, mol.edge_index)).detach().abs().max()) < 1e-9


def test_stored_cycles_are_used():
    """forward_data reads cycle_index_<k> instead of recomputing: removing them changes the
    output, which shows the attributes are what the model sees."""
    torch.manual_seed(2)
    d = to_data(synthetic_molecules(1, rng=4)[0])
    model = SchurGNN(3, 8, 1, layers=2)
    out = forward_data(model, d)
    d[cycle_attribute(5)] = d[cycle_attribute(5)][:, :0]
    d[cycle_attribute(6)] = d[cycle_attribute(6)][:, :0]
    assert float((forward_data(model, d) - out).detach().abs().max()) > 1e-6
    gin = SchurGNN(3, 8, 1, layers=2, cycle_sizes=())
    assert forward_data(gin, d).shape == (1, 1)


def test_from_data_round_trip():
    data = synthetic_dataset(5, rng=1, target="alternating")
    batch = Batch.from_data_list(data)
    gb = from_data(batch)
    ref = batch_graphs(synthetic_molecules(5, rng=1, target="alternating"))
    assert torch.equal(gb.x, ref.x) and torch.equal(gb.batch, ref.batch)
    assert torch.equal(gb.y.squeeze(-1), ref.y.squeeze(-1))
    for k in (5, 6):
        assert _as_set(gb.cycles[k]) == _as_set(ref.cycles[k])
    assert gb.x.shape[1] == 4


def test_bad_data_is_rejected():
    model = SchurGNN(3, 4, 1)
    with pytest.raises(TypeError, match="model"):
        forward_data(torch.nn.Linear(3, 1), Data(x=torch.zeros(3, 3)))
    with pytest.raises(TypeError, match="data"):
        forward_data(model, Data(x=torch.zeros(3, 3)))
    with pytest.raises(ValueError, match="edge_index"):
        forward_data(model, Data(x=torch.zeros(3, 3), edge_index=torch.tensor([[0], [5]])))
    d = Data(x=torch.zeros(6, 3), edge_index=torch.tensor([[0, 1], [1, 2]]))
    d[cycle_attribute(5)] = torch.zeros(4, 1, dtype=torch.long)
    with pytest.raises(ValueError, match="cycle_index_5"):
        cycles_from_data(d)
    d[cycle_attribute(5)] = torch.full((5, 1), 9)
    with pytest.raises(ValueError, match="cycle_index_5"):
        cycles_from_data(d)
    with pytest.raises(ValueError, match="sizes"):
        AddCycleIndex(sizes=(2,))


def test_readme_pyg_example_runs():
    """The README's PyG example (its ```py block, skipped by the torch-only README test)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    (block,) = re.findall(r"^```py\n(.*?)^```", readme, flags=re.M | re.S)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["loss"].ndim == 0 and torch.isfinite(namespace["loss"])
