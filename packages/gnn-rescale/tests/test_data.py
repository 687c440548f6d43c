import gnn_rescale as gr
import pytest
import torch


def _edge_classes(d):
    return d.y[d.edge_index[0]], d.y[d.edge_index[1]]


@pytest.mark.parametrize("mixing", ["uniform", "paired"])
@pytest.mark.parametrize("h", [0.2, 0.8])
def test_csbm_edge_homophily(mixing, h):
    d = gr.data.csbm(600, 4, homophily=h, mixing=mixing, generator=torch.Generator().manual_seed(0))
    ys, yt = _edge_classes(d)
    # about n * avg_degree / 2 = 3000 draws; duplicates are rare, so the binomial sd is ~0.01
    assert abs(float((ys == yt).float().mean()) - h) < 0.04
    assert bool((d.edge_index[0] != d.edge_index[1]).all())
    # both directions stored
    fwd = set(map(tuple, d.edge_index.T.tolist()))
    assert all((v, u) in fwd for u, v in fwd)


def test_csbm_paired_sends_other_edges_to_the_partner_class():
    d = gr.data.csbm(
        400, 6, homophily=0.3, mixing="paired", generator=torch.Generator().manual_seed(1)
    )
    ys, yt = _edge_classes(d)
    other = ys != yt
    assert bool(other.any())
    assert bool((yt[other] == (ys[other] ^ 1)).all())


def test_csbm_uniform_spreads_other_edges():
    d = gr.data.csbm(400, 4, homophily=0.0, generator=torch.Generator().manual_seed(2))
    ys, yt = _edge_classes(d)
    counts = torch.bincount(yt[ys == 0], minlength=4)[1:].float()
    assert float(counts.min() / counts.max()) > 0.7


def test_csbm_paired_needs_even_classes():
    with pytest.raises(ValueError, match="num_classes"):
        gr.data.csbm(30, 3, mixing="paired")
