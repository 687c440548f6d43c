"""SchurGNN: graph outputs invariant to node relabelling; synthetic targets against brute force."""

import numpy as np
import pytest
import torch
from laplacian_equivariant import SchurGNN, batch_graphs, synthetic_molecules


def _relabel(mol, perm):
    inv = torch.argsort(perm)  # new id of old node i is inv[i]
    return mol.x[perm], inv[mol.edge_index]


@pytest.mark.parametrize("use_schur", [True, False])
def test_invariant_to_node_relabelling(use_schur):
    torch.manual_seed(0)
    mol = synthetic_molecules(1, rng=4, max_rings=3)[0]
    model = SchurGNN(3, 8, 2, layers=2, use_schur=use_schur).double()
    x = mol.x.double()
    out = model(x, mol.edge_index)
    perm = torch.as_tensor(np.random.default_rng(1).permutation(x.shape[0]))
    x2, e2 = _relabel(mol._replace(x=x), perm)
    assert out.shape == (1, 2)
    assert float((model(x2, e2) - out).detach().abs().max()) < 1e-9


def test_batch_equals_separate_graphs_and_cycles_are_used():
    torch.manual_seed(0)
    mols = synthetic_molecules(4, rng=2)
    b = batch_graphs(mols)
    model = SchurGNN(3, 8, 1, layers=2).double()
    together = model(b.x.double(), b.edge_index, b.batch, b.cycles)
    alone = torch.cat([model(m.x.double(), m.edge_index) for m in mols])
    assert float((together - alone).detach().abs().max()) < 1e-9
    no_cycles = {k: v[:0] for k, v in b.cycles.items()}
    assert (
        float(
            (model(b.x.double(), b.edge_index, b.batch, no_cycles) - together).detach().abs().max()
        )
        > 1e-6
    )


def test_gin_baseline_and_shapes():
    b = batch_graphs(synthetic_molecules(3, rng=0), cycle_sizes=())
    assert b.cycles == {}
    model = SchurGNN(3, 4, 5, cycle_sizes=())
    assert model(b.x, b.edge_index, b.batch).shape == (3, 5)
    assert sum(p.numel() for n, p in model.named_parameters() if "cycle_layers" in n) == 0


def test_synthetic_targets_by_brute_force():
    for mol in synthetic_molecules(30, rng=7):
        n = mol.x.shape[0]
        adj = np.zeros((n, n), dtype=bool)
        adj[mol.edge_index[0], mol.edge_index[1]] = True
        ring = mol.x[:, 0].numpy() == 1
        # ring atoms with a non-ring neighbour; 6-rings found by walking the ring-atom subgraph
        subst = np.array([ring[i] and bool((adj[i] & ~ring).any()) for i in range(n)])
        para = meta = 0
        import networkx as nx

        g = nx.Graph([(int(u), int(v)) for u, v in mol.edge_index.T if ring[u] and ring[v]])
        for cyc in nx.cycle_basis(g):
            if len(cyc) != 6:
                continue
            for a in range(6):
                for c in range(a + 1, 6):
                    if subst[cyc[a]] and subst[cyc[c]]:
                        d = min(c - a, 6 - (c - a))
                        para += d == 3
                        meta += d == 2
        assert (mol.num_para, mol.num_meta) == (para, meta)
        assert float(mol.y) == pytest.approx(para - 0.5 * meta)


def test_molecules_are_reproducible():
    a, b = synthetic_molecules(3, rng=11), synthetic_molecules(3, rng=11)
    assert all(
        torch.equal(u.edge_index, v.edge_index) and torch.equal(u.x, v.x) for u, v in zip(a, b)
    )


def test_alternating_target_is_top_eigenspace_energy():
    """y = sum over 6-rings of ||P v_ring||^2, P the projector onto the 6-cycle Laplacian's
    top eigenvalue (4): rings found by networkx, P by numpy's eigh (independent of the package)."""
    import networkx as nx

    lap = 2 * np.eye(6) - np.roll(np.eye(6), 1, axis=1) - np.roll(np.eye(6), -1, axis=1)
    vals, vecs = np.linalg.eigh(lap)
    assert abs(vals[-1] - 4.0) < 1e-9 and vals[-2] < 3.5  # a simple top eigenvalue
    top = np.outer(vecs[:, -1], vecs[:, -1])
    mols = synthetic_molecules(25, rng=9, target="alternating")
    for mol in mols:
        assert mol.x.shape[1] == 4 and torch.equal(mol.x[:, :3].sum(1), torch.ones(len(mol.x)))
        ring = mol.x[:, 0].numpy() == 1
        v = mol.x[:, 3].double().numpy()
        g = nx.Graph([(int(a), int(b)) for a, b in mol.edge_index.T if ring[a] and ring[b]])
        ref = 0.0
        for cyc in nx.cycle_basis(g):
            if len(cyc) == 6:
                ordered = list(nx.find_cycle(g.subgraph(cyc), source=cyc[0]))
                vr = v[[e[0] for e in ordered]]
                ref += float(vr @ top @ vr)
        assert float(mol.y) == pytest.approx(ref, rel=1e-5, abs=1e-6)
    assert np.std([float(m.y) for m in mols]) > 0.3  # a non-trivial target
