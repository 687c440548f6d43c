"""SGFormer's mixing rule, shapes, equivariance and training on a small synthetic graph."""

import pytest
import sgformer as S
import torch


def small_graph():
    return S.csbm(
        120,
        3,
        homophily=0.8,
        avg_degree=4,
        feature_dim=8,
        generator=torch.Generator().manual_seed(0),
    )


@pytest.mark.parametrize("beta", [0.0, 0.3, 0.8, 1.0])
def test_add_is_beta_gnn_plus_one_minus_beta_global(beta):
    d = small_graph()
    torch.manual_seed(0)
    m = S.SGFormer(8, 16, 3, graph_weight=beta).eval()
    z_gnn = m.gnn_branch(d.x, d.edge_index)
    z_glob = m.global_branch(d.x)
    expected = m.fc(beta * z_gnn + (1 - beta) * z_glob)
    torch.testing.assert_close(m(d.x, d.edge_index), expected)


def test_cat_and_single_branch_shapes():
    d = small_graph()
    for kw in (
        {"aggregate": "cat"},
        {"trans_layers": 0},
        {"gnn_layers": 0},
        {"trans_layers": 3, "heads": 2, "normalize": "row"},
    ):
        m = S.SGFormer(8, 16, 3, **kw)
        assert m(d.x, d.edge_index).shape == (120, 3)
    with pytest.raises(ValueError, match="trans_layers"):
        S.SGFormer(8, 16, 3, trans_layers=0, gnn_layers=0)


def test_permutation_equivariance_of_the_model():
    d = small_graph()
    torch.manual_seed(0)
    m = S.SGFormer(8, 16, 3).eval()
    p = torch.randperm(120, generator=torch.Generator().manual_seed(1))
    inv = torch.empty_like(p)
    inv[p] = torch.arange(120)
    with torch.no_grad():
        out = m(d.x, d.edge_index)
        out_p = m(d.x[p], inv[d.edge_index])
    assert float((out_p - out[p]).abs().max()) < 1e-5


def test_attention_matrix_rows_sum_to_one_and_param_groups_cover_everything():
    d = small_graph()
    m = S.SGFormer(8, 16, 3, trans_layers=2, heads=2)
    A = m.attention_matrix(d.x, layer=1)
    assert A.shape == (2, 120, 120)
    torch.testing.assert_close(A.sum(-1), torch.ones(2, 120))
    groups = m.param_groups(0.0, 5e-4)
    ids = [id(p) for g in groups for p in g["params"]]
    assert sorted(ids) == sorted(id(p) for p in m.parameters())


def test_fit_learns_and_reports_test_at_best_validation():
    d = small_graph()
    torch.manual_seed(0)
    m = S.SGFormer(8, 16, 3)
    r = S.fit(m, d, epochs=15, lr=0.03)
    assert r.test_acc > 0.8  # homophily 0.8 and informative features: chance is 1/3
    acc = S.evaluate(m, d)  # best-validation weights were restored
    assert acc["val"] == pytest.approx(r.best_val_acc) and acc["test"] == pytest.approx(r.test_acc)
    rb = S.fit(
        S.SGFormer(8, 16, 3), d, epochs=5, batch_size=30, generator=torch.Generator().manual_seed(0)
    )
    assert 0.0 <= rb.test_acc <= 1.0 and len(rb.train_losses) == 5
