"""DPMFSGD (torch extra). The nox `tests` session is torch-free, so these run where torch is
installed (see README, "Testing the torch extra")."""

import numpy as np
import pytest
from bsr_dp import CorrelatedNoise, bsr_coefs, minsep_sensitivity

torch = pytest.importorskip("torch")


def _opt(params, lr, noise, clip, batch, steps, sep, **options):
    """DPMFSGD with its six accounting arguments positional (lr, noise multiplier, clip norm,
    batch size, steps, min separation)."""
    from bsr_dp import DPMFSGD

    return DPMFSGD(
        params,
        lr=lr,
        noise_multiplier=noise,
        max_grad_norm=clip,
        batch_size=batch,
        n_steps=steps,
        min_sep=sep,
        **options,
    )


def test_zero_noise_equals_sgd_with_momentum_and_decay():

    torch.manual_seed(0)
    w1 = torch.nn.Parameter(torch.randn(5, dtype=torch.float64))
    w2 = torch.nn.Parameter(w1.detach().clone())
    opt = _opt([w1], 0.1, 0.0, 1000000.0, 4, 10, 5, momentum=0.9, weight_decay=0.99)
    m = torch.zeros(5, dtype=torch.float64)
    for _ in range(6):
        g = torch.randn(4, 5, dtype=torch.float64)
        opt.step([g])
        m = 0.9 * m + g.sum(0) / 4
        with torch.no_grad():
            w2.mul_(0.99).sub_(0.1 * m)
    torch.testing.assert_close(w1, w2)


def test_noise_is_the_correlated_stream():

    n, b = 12, 4
    gen = torch.Generator().manual_seed(7)
    w = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    opt = _opt([w], 1.0, 2.0, 0.5, 1, n, b, generator=gen)
    outs = []
    for _ in range(n):  # zero gradients, no momentum, lr=1: each step subtracts the noise
        before = w.detach().clone()
        opt.step([torch.zeros(1, 3, dtype=torch.float64)])
        outs.append((before - w.detach()).numpy())
    c = bsr_coefs(n, b)
    std = 0.5 * 2.0 * minsep_sensitivity(c, n, b)
    g2 = torch.Generator().manual_seed(7)
    Z = np.stack(
        [torch.randn(3, generator=g2, dtype=torch.float64).numpy() * std for _ in range(n)]
    )
    U = np.linalg.solve(
        np.tril(
            np.array([[c[i - j] if 0 <= i - j < b else 0.0 for j in range(n)] for i in range(n)])
        ),
        Z,
    )
    np.testing.assert_allclose(np.stack(outs), U, atol=1e-12)
    assert CorrelatedNoise(c, 3).state_size == b - 1


def test_clipping_bounds_each_example():

    w = torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))
    opt = _opt([w], 1.0, 0.0, 1.0, 2, 4, 2)
    opt.step([torch.tensor([[30.0, 40.0], [0.3, 0.4]], dtype=torch.float64)])
    # clipped: [0.6, 0.8] + [0.3, 0.4], divided by the batch size 2
    torch.testing.assert_close(-w.detach(), torch.tensor([0.45, 0.6], dtype=torch.float64))


def test_multiple_parameters_of_different_shapes():
    from torch.func import functional_call, grad, vmap

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    ref = torch.nn.Linear(4, 3)
    ref.load_state_dict(model.state_dict())
    opt = _opt(model.parameters(), 0.1, 0.0, 1000000.0, 8, 5, 5)
    params = dict(model.named_parameters())

    def loss(p, x, y):
        return torch.nn.functional.cross_entropy(functional_call(model, p, (x[None],)), y[None])

    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    opt.step([per_sample[k] for k in params])
    torch.nn.functional.cross_entropy(ref(x), y).backward()
    with torch.no_grad():
        for p, q in zip(model.parameters(), ref.parameters(), strict=True):
            torch.testing.assert_close(p, q - 0.1 * q.grad, rtol=1e-5, atol=1e-6)


def _train(bandwidth, seed):
    from torch.func import functional_call, grad, vmap

    gen = torch.Generator().manual_seed(seed)
    n_data, d, bsz, epochs = 400, 10, 40, 10
    w_true = torch.randn(d, generator=gen)
    X = torch.randn(n_data, d, generator=gen)
    Y = (X @ w_true > 0).float()
    model = torch.nn.Linear(d, 1)
    torch.nn.init.zeros_(model.weight)
    torch.nn.init.zeros_(model.bias)
    steps_per_epoch = n_data // bsz
    opt = _opt(
        model.parameters(),
        0.05,
        3.0,
        1.0,
        bsz,
        epochs * steps_per_epoch,
        steps_per_epoch,
        momentum=0.9,
        bandwidth=bandwidth,
        generator=gen,
    )
    params = dict(model.named_parameters())

    def loss(p, x, y):
        return torch.nn.functional.binary_cross_entropy_with_logits(
            functional_call(model, p, (x[None],))[0, 0], y
        )

    for _ in range(epochs):
        perm = torch.randperm(n_data, generator=gen)
        for s in range(steps_per_epoch):
            idx = perm[s * bsz : (s + 1) * bsz]
            per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(
                dict(model.named_parameters()), X[idx], Y[idx]
            )
            opt.step([per_sample[k] for k in params])
    with torch.no_grad():
        return float(torch.nn.functional.binary_cross_entropy_with_logits(model(X)[:, 0], Y))


def test_bsr_beats_dpsgd_at_equal_noise_multiplier():
    # same sigma (same privacy): bandwidth 1 is DP-SGD, bandwidth = steps per epoch is BSR
    dpsgd = np.mean([_train(1, s) for s in range(5)])
    bsr = np.mean([_train(10, s) for s in range(5)])
    assert bsr < dpsgd


def test_warns_past_n_steps_and_validates():
    from bsr_dp import DPMFSGD

    w = torch.nn.Parameter(torch.zeros(2))
    opt = _opt([w], 0.1, 1.0, 1.0, 1, 2, 1)
    opt.step([torch.zeros(1, 2)])
    opt.step([torch.zeros(1, 2)])
    with pytest.warns(UserWarning, match="n_steps"):
        opt.step([torch.zeros(1, 2)])
    with pytest.raises(ValueError, match="per_sample_grads"):
        opt.step([torch.zeros(2)])
    with pytest.raises(TypeError, match="per_sample_grads"):
        opt.step([np.zeros((1, 2))])
    kw = dict(lr=0.1, noise_multiplier=1.0, max_grad_norm=1.0, batch_size=1, n_steps=2, min_sep=1)
    with pytest.raises(TypeError, match="generator"):
        DPMFSGD([w], **kw, generator=0)
    with pytest.raises(TypeError, match="lr"):
        DPMFSGD([w], **{**kw, "lr": "0.1"})
    with pytest.raises(ValueError, match="momentum"):
        DPMFSGD([w], **kw, momentum=1.0)
    with pytest.raises(ValueError, match="max_grad_norm"):
        _opt([w], 0.1, 1.0, 0.0, 1, 2, 1)
