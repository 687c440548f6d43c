"""GCN propagation vs the dense formula; blocks; induced subgraphs vs brute force."""

import pytest
import sgformer as S
import torch


def random_graph(n, m, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, n, (2, m), generator=g)


def dense_norm_adj(edge_index, n):
    A = torch.zeros(n, n, dtype=torch.float64)
    for s, d in edge_index.T.tolist():
        if s != d:
            A[s, d] = A[d, s] = 1.0
    A = A + torch.eye(n, dtype=torch.float64)
    dinv = torch.diag(A.sum(1) ** -0.5)
    return dinv @ A @ dinv


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_propagate_equals_dense_normalised_adjacency(seed):
    n = 30
    ei = random_graph(n, 60, seed)
    x = torch.randn(n, 4, dtype=torch.float64)
    idx, w = S.gcn_norm(ei, n)
    torch.testing.assert_close(S.propagate(x, idx, w), dense_norm_adj(ei, n) @ x)


def test_one_or_both_directions_give_the_same_operator():
    ei = random_graph(20, 40, 5)
    both = torch.cat([ei, ei.flip(0), ei], dim=1)  # duplicates too
    x = torch.randn(20, 3, dtype=torch.float64)
    a = S.propagate(x, *S.gcn_norm(ei, 20))
    b = S.propagate(x, *S.gcn_norm(both, 20))
    torch.testing.assert_close(a, b)


def test_gcn_branch_layer_is_the_dense_formula():
    torch.manual_seed(0)
    n = 25
    ei = random_graph(n, 50, 7)
    br = S.GCNBranch(5, 6, layers=1, dropout=0.0, use_bn=False, use_residual=False).double().eval()
    x = torch.randn(n, 5, dtype=torch.float64)
    h0 = torch.relu(br.fc(x))
    expected = torch.relu(dense_norm_adj(ei, n) @ h0 @ br.lins[0].weight.T + br.lins[0].bias)
    torch.testing.assert_close(br(x, ei), expected)


@pytest.mark.parametrize("n,b", [(10, 3), (17, 17), (5, 100), (64, 16)])
def test_random_node_blocks_partition(n, b):
    blocks = S.random_node_blocks(n, b, generator=torch.Generator().manual_seed(0))
    assert all(len(x) <= b for x in blocks) and len(blocks) == -(-n // b)
    assert sorted(torch.cat(blocks).tolist()) == list(range(n))
    again = S.random_node_blocks(n, b, generator=torch.Generator().manual_seed(0))
    assert all(torch.equal(x, y) for x, y in zip(blocks, again, strict=True))


def test_induced_subgraph_vs_brute_force():
    g = torch.Generator().manual_seed(1)
    for trial in range(20):
        n = 15
        ei = random_graph(n, 40, trial)
        nodes = torch.randperm(n, generator=g)[: 1 + trial % n]
        sub = S.induced_subgraph(ei, nodes, num_nodes=n)
        pos = {int(v): i for i, v in enumerate(nodes)}
        want = [(pos[s], pos[d]) for s, d in ei.T.tolist() if s in pos and d in pos]
        assert sub.dtype == torch.long and sub.shape == (2, len(want))
        assert [tuple(e) for e in sub.T.tolist()] == want
        # local i is nodes[i]
        assert all(
            (int(nodes[a]), int(nodes[b])) in set(map(tuple, ei.T.tolist())) for a, b in want
        )


def test_induced_subgraph_rejects_repeated_or_out_of_range_nodes():
    ei = random_graph(10, 20, 0)
    with pytest.raises(ValueError, match="nodes"):
        S.induced_subgraph(ei, torch.tensor([1, 1]))
    with pytest.raises(ValueError, match="nodes"):
        S.induced_subgraph(ei, torch.tensor([1, 12]), num_nodes=10)
    with pytest.raises(ValueError, match="edge_index"):
        S.induced_subgraph(ei, torch.tensor([1]), num_nodes=5)


def test_block_of_all_nodes_is_the_whole_graph():
    ei = random_graph(12, 30, 3)
    assert torch.equal(S.induced_subgraph(ei, torch.arange(12)), ei)
