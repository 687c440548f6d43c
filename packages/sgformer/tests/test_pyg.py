"""Parity with torch-geometric's SGFormerAttention (normalize="row"), run by `nox -s tests_extras`."""

import pytest
import sgformer as S
import torch

pyg_attention = pytest.importorskip("torch_geometric.nn.attention")


@pytest.mark.parametrize("heads", [1, 3])
def test_row_normalisation_equals_pyg_with_copied_weights(heads):
    torch.manual_seed(heads)
    theirs = pyg_attention.SGFormerAttention(12, heads=heads, head_channels=8, qkv_bias=False)
    ours = S.SimpleGlobalAttention(12, 8, heads=heads, normalize="row", bias=False)
    ours.Wq.weight.data.copy_(theirs.q.weight)
    ours.Wk.weight.data.copy_(theirs.k.weight)
    ours.Wv.weight.data.copy_(theirs.v.weight)
    x = torch.randn(2, 50, 12)
    with torch.no_grad():
        expected = theirs(x)
        torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)
        full = torch.ones(2, 50, dtype=torch.bool)
        torch.testing.assert_close(ours(x, full), theirs(x, full), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(ours(x[0]), expected[0], atol=1e-5, rtol=1e-5)
