"""Cross-check against a peer: e2cnn's steerable C4 network (equivariant by construction).

Our group actions and checker must agree with e2cnn's: its C4 network has
``equivariance_error`` ~ 0 under our ``Rot90`` (input and output actions), and
EquiTune of an already-invariant network is that network. Runs in ``tests_extras`` (the
``test-e2cnn`` group); skipped in the plain fast suite where e2cnn is not installed.
(e2cnn 0.2.3's D4 kernel basis calls ``ndarray.tostring``, removed in numpy 2, so only C4 runs.)
"""

import lambda_equitune as le
import pytest
import torch

e2 = pytest.importorskip("e2cnn")
from e2cnn import gspaces  # noqa: E402
from e2cnn import nn as enn  # noqa: E402


class Steerable(torch.nn.Module):
    """[B, 1, 8, 8] -> [B, 2, 8, 8] maps of group-pooled (invariant-type) fields."""

    def __init__(self, gspace):
        super().__init__()
        inp = enn.FieldType(gspace, [gspace.trivial_repr])
        hid = enn.FieldType(gspace, 2 * [gspace.regular_repr])
        self.inp = inp
        self.net = enn.SequentialModule(
            enn.R2Conv(inp, hid, 3, padding=1), enn.ReLU(hid), enn.GroupPooling(hid)
        )

    def forward(self, x):
        return self.net(enn.GeometricTensor(x, self.inp)).tensor


@pytest.fixture(scope="module")
def nets():
    torch.manual_seed(0)
    return {"c4": Steerable(gspaces.Rot2dOnR2(N=4)).eval()}


def test_peer_networks_are_equivariant_under_our_actions(nets):
    x = torch.randn(3, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    err = le.equivariance_error(nets["c4"], le.Rot90(), x, output_action=le.Rot90())
    assert err < 1e-4, err
    # ... as a dense map it is not invariant, and it is not mirror-equivariant: the checker sees both
    assert le.equivariance_error(nets["c4"], le.Rot90(), x) > 1e-3
    assert le.equivariance_error(nets["c4"], le.D4(), x, output_action=le.D4()) > 1e-3


def test_equitune_of_an_equivariant_network_is_the_network(nets):
    x = torch.randn(2, 1, 8, 8, generator=torch.Generator().manual_seed(2))
    group = le.Rot90()
    with torch.no_grad():
        ours = le.EquiTune(nets["c4"], group, output_action=group)(x)
        ref = nets["c4"](x)
    assert float((ours - ref).abs().max()) < 1e-4
