import gnn_rescale as gr
import pytest
import torch

torch.set_num_threads(1)  # tiny graphs: threads only add overhead on a loaded machine


@pytest.fixture
def graph():
    g = torch.Generator().manual_seed(0)
    d = gr.data.csbm(60, 3, homophily=0.3, avg_degree=6, feat_dim=5, generator=g)
    return d.x.double(), d.edge_index, d.y


def make_net(dims, seed=0, **kw):
    torch.manual_seed(seed)
    return gr.GATv2Net(dims, **kw).double()
