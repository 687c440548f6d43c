"""Built-in PDEs, collocation points and losses against their closed-form solutions: the loss of
the exact solution is zero (to rounding), of a perturbed one is not, and pinn_loss / gram_matrix
equal the formulas written out by hand."""

import math

import numpy as np
import pinn_split as ps
import pytest
import torch
from conftest import Exact

BUILTINS = [
    ps.poisson(1),
    ps.poisson(2),
    ps.biharmonic(1),
    ps.biharmonic(2),
    ps.heat_1d(),
    ps.euler_bernoulli_beam(),
]


def _pts(pde, sampler="grid", seed=0):
    return ps.sample_points(
        pde,
        n_interior=36,
        n_boundary=32,
        sampler=sampler,
        generator=torch.Generator().manual_seed(seed),
    )


@pytest.mark.parametrize("pde", BUILTINS, ids=repr)
@pytest.mark.parametrize("sampler", ["grid", "uniform"])
def test_exact_solution_has_zero_pinn_loss(pde, sampler):
    interior, boundary = _pts(pde, sampler)
    exact = Exact(pde.exact, pde.dim)
    assert float(ps.pinn_loss(exact, pde, interior, boundary).detach()) < 1e-12
    wrong = Exact(lambda x: pde.exact(x) * 1.01, pde.dim)
    assert float(ps.pinn_loss(wrong, pde, interior, boundary).detach()) > 1e-6


@pytest.mark.parametrize("pde", BUILTINS, ids=repr)
@pytest.mark.parametrize("level", [1, 2])
def test_split_systems_vanish_at_the_exact_solution(pde, level):
    """Each variable of the split system set to the derivative of the exact solution that it
    stands for: every equation and bc residual is zero; VS-PINN's loss is then zero."""
    model = ps.VSPINN(pde, level=level, m=3)
    d = pde.dim
    lap = {tuple(2 * (j == i) for j in range(d)): 1.0 for i in range(d)}
    e = [tuple(int(j == i) for j in range(d)) for i in range(d)]
    meaning = {"u": {(0,) * d: 1.0}, "v": lap, "w": lap}
    if pde.name == "euler_bernoulli_beam":
        meaning.update(
            v={(2, 0): 1.0}, s={(0, 1): 1.0}, q={(1, 0): 1.0}, w={(2, 0): 1.0}, z={(3, 0): 1.0}
        )
    elif pde.name == "heat_1d":
        meaning.update(q={(1, 0): 1.0})
    for i in range(d):
        meaning[f"q{i}"] = {e[i]: 1.0}
        meaning[f"z{i}"] = {tuple(a + b for a, b in zip(k, e[i])): 1.0 for k in lap}
    for var in model.system.variables:
        model.nets[var] = Exact(pde.exact, d, meaning[var])
    assert float(model.loss().detach()) < 1e-12
    model.nets["u"] = Exact(lambda x: pde.exact(x) + 0.01 * x[:, 0] ** 2, d)
    assert float(model.loss().detach()) > 1e-8


def test_split_levels_have_the_papers_structure():
    bih = ps.biharmonic(2)
    assert ps.split_system(bih, 2).variables == ("u", "v")
    assert ps.split_system(bih, 1).variables == ("u", "q0", "q1", "w", "z0", "z1")
    assert ps.split_system(bih, 1).order == 1 and ps.split_system(bih, 2).order == 2
    assert ps.split_system(bih, 4).variables == ("u",)
    assert ps.VSPINN(bih, level=1, m=2).p == 2 and ps.VSPINN(bih, level=2, m=2).p == 3
    assert ps.PINN(bih, m=2).p == 5
    assert len(ps.VSPINN(ps.euler_bernoulli_beam(), level=1, m=2).nets) == 5


def test_pinn_loss_and_gram_equal_the_formulas_by_hand():
    pde = ps.biharmonic(1)
    net = ps.TwoLayerPowerNet(1, 3, 5, generator=torch.Generator().manual_seed(1))
    interior, boundary = _pts(pde)
    w, b, a = net.weight[:, 0], net.bias, net.a

    def residuals(w, b):
        zi = interior @ w[None] + b
        zb = boundary @ w[None] + b
        u4 = (120 * torch.relu(zi)) @ (a * w**4) / math.sqrt(3)
        r1 = u4 - math.pi**4 * torch.sin(math.pi * interior[:, 0])
        ub = torch.relu(zb) ** 5 @ a / math.sqrt(3)
        ub2 = 20 * torch.relu(zb) ** 3 @ (a * w**2) / math.sqrt(3)
        return r1, ub, ub2

    r = residuals(w, b)
    by_hand = sum(0.5 * (ri**2).mean() for ri in r)
    loss = ps.pinn_loss(net, pde, interior, boundary)
    np.testing.assert_allclose(float(loss), float(by_hand), rtol=1e-12)
    assert interior.shape == (36, 1) and boundary.shape == (2, 1)
    # Gram = J J^T with J by central differences of r / sqrt(n) in (w, b)
    theta = torch.cat([w, b]).detach()

    def flat(th):
        rr = residuals(th[:3], th[3:])
        return torch.cat([ri / math.sqrt(ri.shape[0]) for ri in rr])

    h = 1e-6
    cols = []
    for k in range(6):
        e = torch.zeros(6, dtype=torch.float64)
        e[k] = h
        cols.append((flat(theta + e) - flat(theta - e)) / (2 * h))
    jac = torch.stack(cols, dim=1).detach()
    gram = ps.gram_matrix(net, pde, interior, boundary)
    assert gram.shape == (36 + 2 + 2, 36 + 2 + 2)
    np.testing.assert_allclose(gram, jac @ jac.T, rtol=1e-5, atol=1e-6 * float(gram.abs().max()))
    assert ps.min_eig(gram) >= -1e-8 * float(gram.abs().max())
    # the loss is |r|^2 / 2
    np.testing.assert_allclose(0.5 * float((flat(theta) ** 2).sum()), float(loss), rtol=1e-12)


def test_generic_network_uses_autograd_and_agrees_with_the_closed_form():
    pde = ps.poisson(2)
    net = ps.TwoLayerPowerNet(2, 5, 3, generator=torch.Generator().manual_seed(2))

    interior, boundary = _pts(pde)
    ref = float(ps.pinn_loss(net, pde, interior, boundary).detach())
    np.testing.assert_allclose(
        float(ps.pinn_loss(ps.AutogradNet(net), pde, interior, boundary).detach()), ref, rtol=1e-12
    )
    plain = float(ps.pinn_loss(lambda x: net(x), pde, interior, boundary).detach())  # a function
    np.testing.assert_allclose(plain, ref, rtol=1e-12)


def test_grid_points():
    interior, boundary = ps.sample_points(ps.poisson(1), n_interior=4, n_boundary=10)
    np.testing.assert_allclose(interior[:, 0], [0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(boundary[:, 0], [0.0, 1.0])
    interior, boundary = ps.sample_points(ps.poisson(2), n_interior=64, n_boundary=64)
    assert interior.shape == (64, 2) and boundary.shape == (64, 2)
    assert torch.all((interior > 0) & (interior < 1))
    on_face = ((boundary == 0) | (boundary == 1)).sum(dim=1)
    assert torch.all(on_face == 1)  # cell-centred faces: no corners, no duplicates
    assert ps.sample_points(ps.poisson(2), n_interior=10, n_boundary=5).interior.shape == (16, 2)


def test_uniform_points_are_reproducible_and_on_the_boundary():
    pde = ps.heat_1d()
    a = _pts(pde, "uniform", 3)
    b = _pts(pde, "uniform", 3)
    assert torch.equal(a.interior, b.interior) and torch.equal(a.boundary, b.boundary)
    assert torch.all(((a.boundary == 0) | (a.boundary == 1)).any(dim=1))
    assert a.interior.shape == (36, 2)


def test_custom_pde_with_callable_coefficients():
    """-(1 + x) u'' + u = f with u = x^3: the exact solution has zero loss."""
    pde = ps.LinearPDE(
        {(2,): lambda x: -(1 + x[:, 0]), (0,): 1.0},
        lambda x: -(1 + x[:, 0]) * 6 * x[:, 0] + x[:, 0] ** 3,
        dim=1,
        bcs=[({(0,): 1.0}, lambda x: x[:, 0] ** 3)],
        exact=lambda x: x[:, 0] ** 3,
    )
    assert pde.order == 2 and pde.dim == 1 and len(pde.bcs) == 1
    interior, boundary = _pts(pde)
    assert float(ps.pinn_loss(Exact(pde.exact, 1), pde, interior, boundary)) < 1e-20
    with pytest.raises(ValueError, match="system"):
        ps.VSPINN(pde, level=1, m=3)
    q = ps.SplitSystem(
        1,
        ("u", "q"),
        (
            ({("q", (0,)): 1.0, ("u", (1,)): -1.0}, 0.0),
            ({("q", (1,)): lambda x: -(1 + x[:, 0]), ("u", (0,)): 1.0}, pde.f),
        ),
        (({("u", (0,)): 1.0}, pde.bcs[0][1], None),),
    )
    model = ps.VSPINN(pde, level=1, m=3, system=q)
    model.nets["u"] = Exact(pde.exact, 1)
    model.nets["q"] = Exact(pde.exact, 1, {(1,): 1.0})
    assert float(model.loss().detach()) < 1e-20
