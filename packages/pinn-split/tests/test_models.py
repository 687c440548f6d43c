"""Training: the PINN and VS-PINN reach the closed-form solutions; train's history and options."""

import math

import pinn_split as ps
import pytest
import torch


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_pinn_solves_poisson_1d():
    model = ps.PINN(ps.poisson(1), m=100, generator=_gen(0))
    before = ps.relative_l2_error(model)
    hist = ps.train(model, steps=200, lr=1e-2, log_every=100)
    assert hist["step"] == [0, 100, 200] and len(hist["loss"]) == 3
    assert hist["loss"][-1] < 1e-2 * hist["loss"][0]
    err = ps.relative_l2_error(model)
    assert err < 0.1 < before


def test_vspinn_level2_solves_biharmonic_1d():
    model = ps.VSPINN(ps.biharmonic(1), level=2, m=100, generator=_gen(0))
    hist = ps.train(model, steps=200, lr=1e-2, log_every=200)
    assert hist["loss"][-1] < 0.1 * hist["loss"][0]
    assert ps.relative_l2_error(model) < 0.25


def test_gradient_descent_decreases_the_loss_and_records_divergence():
    model = ps.PINN(ps.poisson(1), m=20, generator=_gen(1))
    hist = ps.train(model, steps=20, optimizer="gd", lr=1e-3, log_every=5)
    assert hist["step"] == [0, 5, 10, 15, 20]
    assert hist["loss"][-1] < hist["loss"][0]
    blow = ps.PINN(ps.biharmonic(1), m=20, generator=_gen(1))
    hist = ps.train(blow, steps=50, optimizer="gd", lr=10.0, log_every=100)
    assert not math.isfinite(hist["loss"][-1]) and hist["step"][-1] < 50


def test_train_zero_steps_and_only_trainable_parameters_move():
    model = ps.PINN(ps.poisson(1), m=10, generator=_gen(2))
    assert ps.train(model, steps=0) == {"step": [0], "loss": [float(model.loss().detach())]}
    a = model.net.a.clone()
    ps.train(model, steps=3, lr=1e-2)
    assert torch.equal(model.net.a, a)


def test_predict_and_error_on_given_points():
    model = ps.PINN(ps.poisson(2), m=8, n_interior=16, n_boundary=16, generator=_gen(3))
    x = torch.rand(10, 2, dtype=torch.float64, generator=_gen(4))
    pred = model.predict(x)
    assert pred.shape == (10,) and not pred.requires_grad
    ref = model.pde.exact(x)
    expect = float(torch.linalg.vector_norm(pred - ref) / torch.linalg.vector_norm(ref))
    assert ps.relative_l2_error(model, x) == pytest.approx(expect, rel=1e-12)
    assert model.interior.shape == (16, 2)


def test_model_gram_matrix_blocks_and_width():
    """The Gram matrix covers every residual of every equation; lambda_min is 0 when the
    network has fewer parameters than residuals (rank), positive once it has more."""
    pde = ps.poisson(1)
    small = ps.PINN(pde, m=4, n_interior=16, generator=_gen(5))
    gram = small.gram_matrix()
    assert gram.shape == (18, 18)
    assert torch.equal(ps.gram_matrix(small), gram)
    same = ps.gram_matrix(small.net, pde, small.interior, small.boundary)
    assert torch.allclose(same, gram, rtol=1e-12, atol=0)
    assert abs(ps.min_eig(gram)) < 1e-8 * float(gram.abs().max())  # rank <= 8 < 18
    vs = ps.VSPINN(ps.biharmonic(1), level=1, m=4, n_interior=8, generator=_gen(5))
    assert vs.gram_matrix().shape == (4 * 8 + 2 + 2, 4 * 8 + 2 + 2)
    wide = ps.PINN(pde, m=400, n_interior=16, generator=_gen(5))
    assert ps.min_eig(wide.gram_matrix()) > 0


def test_adam_and_gd_updates_match_a_numpy_reference():
    """train's optimisers on a model whose loss is a quadratic, against Adam written in numpy."""
    import numpy as np

    class Quad(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64))

        def loss(self):
            return (torch.tensor([1.0, 3.0, 10.0], dtype=torch.float64) * self.theta**2).sum()

    scale = np.array([1.0, 3.0, 10.0])
    th, m, v = np.array([1.0, -2.0, 0.5]), np.zeros(3), np.zeros(3)
    expect = []
    for t in range(1, 6):
        expect.append(float((scale * th**2).sum()))
        g = 2 * scale * th
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        th = th - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    expect.append(float((scale * th**2).sum()))
    hist = ps.train(Quad(), steps=5, lr=0.1, log_every=1)
    np.testing.assert_allclose(hist["loss"], expect, rtol=1e-12)
    gd = ps.train(Quad(), steps=2, optimizer="gd", lr=0.01, log_every=1)
    th = np.array([1.0, -2.0, 0.5]) * (1 - 0.02 * scale) ** 2
    np.testing.assert_allclose(gd["loss"][-1], float((scale * th**2).sum()), rtol=1e-12)
