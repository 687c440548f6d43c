"""The CNN zoo (strided convs against the numpy loop of test_cnn, batched training against a per-network
reimplementation), Kendall's tau against scipy and brute force, generalisation regression and
ScaleGMN invariance on trained zoo CNNs."""

import itertools
import math

import numpy as np
import pytest
import scalegmn as S
import torch
import torch.nn.functional as F
from conftest import gen
from scalegmn.train import fit_regressor, kendall_tau, predict
from test_cnn import naive_cnn

from papershelf_harness.testing import assert_close


def relu(a):
    return np.maximum(a, 0)


def test_strided_forward_matches_numpy_loop():
    g = gen(0)
    shapes = [(3, 1, 3, 3), (2, 3, 3, 3), (4, 2)]
    ws = [torch.randn(2, *s, generator=g, dtype=torch.float64) for s in shapes]
    bs = [torch.randn(2, s[0], generator=g, dtype=torch.float64) for s in shapes]
    x = torch.randn(3, 1, 7, 6, generator=g, dtype=torch.float64)
    out = S.forward_cnn(ws, bs, x, activation="relu", stride=2)
    for n, i in itertools.product(range(2), range(3)):
        ref = naive_cnn([w[n] for w in ws], [b[n] for b in bs], x[i], relu, stride=2)
        assert_close(out[n, i], torch.from_numpy(ref), atol=1e-10)
    # unbatched path agrees with the batched (grouped-convolution) path
    one = S.forward_cnn([w[1] for w in ws], [b[1] for b in bs], x, stride=2)
    assert_close(one, out[1], atol=1e-10)


def _reference_zoo(n, x, y, xt, yt, *, channels, lr, wd, init_scale, steps, batch, seed):
    """cnn_zoo rebuilt one network at a time: plain conv2d, explicit momentum SGD, the same
    random draws in the same order."""
    g = torch.Generator().manual_seed(seed)

    def log_uniform(lo, hi):
        u = torch.rand(n, generator=g, dtype=torch.float64)
        return torch.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))

    lrs, wds, scales = log_uniform(*lr), log_uniform(*wd), log_uniform(*init_scale)
    n_steps = torch.randint(steps[0], steps[1] + 1, (n,), generator=g)
    dims = (x.shape[1], *channels, int(y.max()) + 1)
    params = []
    for l in range(1, len(dims)):
        conv = l < len(dims) - 1
        fan = dims[l - 1] * (9 if conv else 1)
        shape = (n, dims[l], dims[l - 1], 3, 3) if conv else (n, dims[l], dims[l - 1])
        bound = scales.float().view(n, *([1] * (len(shape) - 1))) / math.sqrt(fan)
        params.append((2 * torch.rand(shape, generator=g) - 1) * bound)
        params.append((2 * torch.rand(n, dims[l], generator=g) - 1) * bound.reshape(n, 1))
    order = [0, 2, 4, 1, 3, 5]  # weights first, then biases, as cnn_zoo lists them
    params = [params[i] for i in order]
    idx = [torch.randint(0, x.shape[0], (n, batch), generator=g) for _ in range(steps[1])]

    def net(p, imgs):
        w1, w2, w3, b1, b2, b3 = p
        h = torch.relu(F.conv2d(imgs, w1, b1, stride=2, padding=1))
        h = torch.relu(F.conv2d(h, w2, b2, stride=2, padding=1)).mean(dim=(-2, -1))
        return h @ w3.T + b3

    final = []
    for k in range(n):
        p = [t[k].clone().requires_grad_() for t in params]
        mom = [torch.zeros_like(t) for t in p]
        for t in range(int(n_steps[k])):
            loss = F.cross_entropy(net(p, x[idx[t][k]]), y[idx[t][k]])
            grads = torch.autograd.grad(loss, p)
            with torch.no_grad():
                for v, gr, m in zip(p, grads, mom, strict=True):
                    d = (gr + float(wds[k]) * v) * float(lrs[k])
                    m.mul_(0.9).add_(d) if t > 0 else m.copy_(d)
                    v.sub_(m)
        with torch.no_grad():
            acc = float((net(p, xt).argmax(-1) == yt).double().mean())
        final.append(([v.detach() for v in p], acc))
    return final, n_steps


def test_cnn_zoo_matches_per_network_sgd():
    g = gen(1)
    x = torch.rand(40, 1, 6, 6, generator=g)
    y = torch.arange(40) % 3
    xt, yt = torch.rand(15, 1, 6, 6, generator=g), torch.arange(15) % 3
    kw = dict(channels=(3, 2), lr=(0.05, 0.5), wd=(1e-4, 1e-2), init_scale=(0.5, 2.0))
    z = S.zoo.cnn_zoo(
        4,
        x,
        y,
        xt,
        yt,
        channels=kw["channels"],
        lr=kw["lr"],
        weight_decay=kw["wd"],
        init_scale=kw["init_scale"],
        steps=(2, 6),
        batch_size=8,
        generator=gen(7),
    )
    ref, n_steps = _reference_zoo(4, x, y, xt, yt, steps=(2, 6), batch=8, seed=7, **kw)
    assert torch.equal(z.steps, n_steps) and len(z) == 4 and z.layer_dims == (1, 3, 2, 3)
    assert len(set(z.steps.tolist())) > 1  # networks stop at different steps
    for k, (p, acc) in enumerate(ref):
        for got, want in zip([w[k] for w in z.weights] + [b[k] for b in z.biases], p, strict=True):
            assert_close(got, want, atol=2e-5, rtol=1e-4)
        assert abs(float(z.test_accuracy[k]) - acc) < 1e-9
    # the recorded accuracies are those of the stored parameters under forward_cnn
    pred = S.forward_cnn(z.weights, z.biases, xt, stride=2).argmax(-1)
    assert_close(z.test_accuracy, (pred == yt).double().mean(dim=1))
    assert bool(((z.lr >= 0.05) & (z.lr <= 0.5)).all())
    sub = z.subset(torch.tensor([2, 0]))
    assert torch.equal(sub.weights[1][0], z.weights[1][2]) and len(sub) == 2


@pytest.mark.slow  # importing scikit-learn takes ~15 s on the loaded 2-core machine
def test_digits_split():
    x, y, xt, yt = S.zoo.digits(test_fraction=0.25, generator=gen(0))
    assert x.shape[1:] == (1, 8, 8) and x.shape[0] + xt.shape[0] == 1797
    assert abs(xt.shape[0] - 0.25 * 1797) < 1 and float(x.max()) <= 1.0 and float(x.min()) >= 0
    assert set(y.tolist()) == set(range(10)) and y.dtype == torch.int64


def _brute_tau(a, b):
    c = d = ta = tb = 0
    n = len(a)
    for i in range(n):
        for j in range(i + 1, n):
            s = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])
            c += s > 0
            d += s < 0
            ta += a[i] == a[j]
            tb += b[i] == b[j]
    n0 = n * (n - 1) / 2
    den = math.sqrt((n0 - ta) * (n0 - tb))
    return (c - d) / den if den > 0 else math.nan


def _tied_pairs(seed):
    rng = np.random.default_rng(seed)
    for n in (2, 7, 40):
        a = rng.integers(0, 5, n).astype(float)  # ties in a
        b = np.round(a + rng.normal(size=n), 1)  # and (rarely) in b
        yield a, b


def test_kendall_tau_against_brute_force():
    for a, b in _tied_pairs(0):
        got = kendall_tau(torch.from_numpy(a), torch.from_numpy(b))
        np.testing.assert_allclose(got, _brute_tau(a, b), rtol=0, atol=1e-12, equal_nan=True)
    assert kendall_tau([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) == -1.0
    assert math.isnan(kendall_tau([1.0, 1.0], [1.0, 2.0]))


@pytest.mark.slow  # importing scipy.stats is slow on the loaded machine
def test_kendall_tau_against_scipy():
    from scipy.stats import kendalltau

    for a, b in _tied_pairs(1):
        want = kendalltau(a, b).statistic  # NaN for a constant sequence, as ours
        np.testing.assert_allclose(kendall_tau(a, b), want, rtol=0, atol=1e-12, equal_nan=True)


def _tiny_cnns(n, seed):
    g = gen(seed)
    shapes = [(3, 1, 3, 3), (3, 3, 3, 3), (2, 3)]
    ws = [torch.randn(n, *s, generator=g) * 0.5 for s in shapes]
    bs = [torch.randn(n, s[0], generator=g) * 0.5 for s in shapes]
    return ws, bs


def test_fit_regressor_learns_and_scale_model_is_invariant():
    # target: a smooth scale-invariant function of each CNN (the sign of its output bias)
    ws, bs = _tiny_cnns(48, 0)
    y = torch.sigmoid(3 * bs[-1][:, 0])
    torch.manual_seed(0)
    m = S.ScaleGMN(
        (1, 3, 3, 2), out_dim=1, d_hidden=8, num_layers=1, symmetry="scale", kernel_size=3
    )
    hist = fit_regressor(
        m, ws, bs, y, epochs=25, batch_size=16, lr=1e-2, warmup_steps=1, generator=gen(1)
    )
    assert hist[-1] < 0.5 * hist[0]
    p = torch.sigmoid(predict(m, ws, bs)[:, 0])
    assert kendall_tau(p, y) > 0.6
    # rescaled (q in [0.1, 10]) and permuted channels: same CNN function, same prediction
    g = gen(2)
    q = [torch.exp(torch.empty(48, 3).uniform_(-2.3, 2.3, generator=g)) for _ in range(2)]
    perms = [torch.stack([torch.randperm(3, generator=g) for _ in range(48)]) for _ in range(2)]
    w2, b2 = S.cnn_apply_permutation(*S.cnn_apply_scaling(ws, bs, q), perms)
    x = torch.rand(5, 1, 6, 6, generator=g)
    f, f2 = S.forward_cnn(ws, bs, x, stride=2), S.forward_cnn(w2, b2, x, stride=2)
    assert_close(f2, f, atol=1e-4, rtol=1e-4)
    assert_close(predict(m, w2, b2), predict(m, ws, bs), atol=1e-5, rtol=1e-4)


def test_fit_regressor_rejects_bad_targets():
    ws, bs = _tiny_cnns(4, 0)
    m = S.ScaleGMN((1, 3, 3, 2), out_dim=1, d_hidden=4, num_layers=1, kernel_size=3)
    with pytest.raises(ValueError, match="targets"):
        fit_regressor(m, ws, bs, torch.tensor([0.1, 0.2, 1.5, 0.3]), epochs=1)
    with pytest.raises(ValueError, match="targets"):
        fit_regressor(m, ws, bs, torch.rand(3), epochs=1)
    m2 = S.ScaleGMN((1, 3, 3, 2), out_dim=2, d_hidden=4, num_layers=1, kernel_size=3)
    with pytest.raises(ValueError, match=r"\[B, 1\]"):
        fit_regressor(m2, ws, bs, torch.rand(4), epochs=1)
