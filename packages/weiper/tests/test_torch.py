"""The torch adapter on real nn.Modules (runs in `tests_extras`, extra `torch`)."""

import numpy as np
import pytest
import weiper

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from weiper.torch import WeiPer, extract_features, final_linear, linear_weights  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        return self.fc(self.body(x))


def _data(n=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 6, generator=g)


def test_extract_features_captures_the_input_of_the_final_layer():
    torch.manual_seed(0)
    net = Net()
    x = _data()
    Z, logits = extract_features(net, x)
    with torch.no_grad():
        z = net.body(x).double().numpy()
    np.testing.assert_allclose(Z, z, rtol=1e-6)
    W, b = linear_weights(net.fc)
    np.testing.assert_allclose(logits, Z @ W.T + b, rtol=1e-5, atol=1e-6)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, torch.zeros(40)), 7)
    np.testing.assert_allclose(extract_features(net, loader)[0], Z, rtol=1e-6)


def test_final_linear_finds_fc_names_and_the_last_linear():
    net = Net()
    assert final_linear(net) is net.fc
    seq = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
    assert final_linear(seq) is seq[2]
    assert final_linear(seq, "0") is seq[0]
    with pytest.raises(ValueError, match="layer"):
        final_linear(seq, "nope")
    with pytest.raises(TypeError, match="model"):
        final_linear("not a model")


@pytest.mark.parametrize("method", ["msp", "energy"])
def test_detector_scores_are_minus_the_numpy_scores(method):
    torch.manual_seed(1)
    net = Net()
    x = _data()
    det = WeiPer(net, method=method, r=5, delta=2.0, rng=3)
    out = det.predict(x)
    assert isinstance(out, torch.Tensor) and out.shape == (40,)
    Z, _ = extract_features(net, x)
    W, b = linear_weights(net.fc)
    fn = weiper.msp_weiper if method == "msp" else weiper.energy_weiper
    np.testing.assert_allclose(out.numpy(), -fn(Z, W, b, r=5, delta=2.0, rng=3), rtol=1e-12)


def test_kld_detector_fits_on_a_loader_and_matches_weiperkld():
    torch.manual_seed(2)
    net = Net()
    x_train, x = _data(80, 1), _data(20, 2)
    loader = torch.utils.data.DataLoader(x_train, batch_size=16)
    det = WeiPer(net, r=4, n_bins=10, s1=2, s2=3, rng=0).fit(loader)
    Z_train, _ = extract_features(net, x_train)
    Z, _ = extract_features(net, x)
    W, b = linear_weights(net.fc)
    ref = weiper.WeiPerKLD(r=4, n_bins=10, s1=2, s2=3, rng=0).fit(Z_train, W, b)
    np.testing.assert_allclose(det.predict(x).numpy(), -ref.score(Z), rtol=1e-9)
    np.testing.assert_allclose(det.predict_features(torch.tensor(Z)).numpy(), -ref.score(Z))
    with pytest.raises(RuntimeError, match="fit"):
        WeiPer(net).predict(x)
    with pytest.raises(ValueError, match="method"):
        WeiPer(net, method="vim")
