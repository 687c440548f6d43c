"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Plain tests below cover the
rules the kinds do not (multi-indices, term dicts, generators, dtypes, non-PDEs).
"""

import numpy as np
import pinn_split as ps
import pytest
import torch
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.suite import Array, Flag, Int, Mismatch, Number, Option, OutOfRange, keyword
from papershelf_harness.testing import assert_rejects

NET = ps.TwoLayerPowerNet(1, 4, 3)
PDE = ps.poisson(1)
X = np.full((5, 1), 0.5)
B = np.array([[0.0], [1.0]])
PINN = ps.PINN(PDE, m=3, n_interior=4)


def _net(**kw):
    return ps.TwoLayerPowerNet(**{"d": 1, "m": 4, "p": 3, **kw})


def _pinn(**kw):
    return ps.PINN(PDE, **{"m": 3, "n_interior": 4, **kw})


def _vspinn(**kw):
    return ps.VSPINN(ps.biharmonic(1), **{"m": 3, "n_interior": 4, **kw})


def _points(**kw):
    return ps.sample_points(PDE, **{"n_interior": 4, "n_boundary": 2, **kw})


def _train(**kw):
    return ps.train(PINN, **{"steps": 1, **kw})


CASES = [
    Int("TwoLayerPowerNet.d", "d", lambda v: _net(d=v), minimum=1),
    Int("TwoLayerPowerNet.m", "m", lambda v: _net(m=v), minimum=1),
    Int("TwoLayerPowerNet.p", "p", lambda v: _net(p=v), minimum=1),
    Flag("TwoLayerPowerNet.bias", "bias", lambda v: _net(bias=v)),
    Flag("TwoLayerPowerNet.train_outer", "train_outer", lambda v: _net(train_outer=v)),
    Array("TwoLayerPowerNet.forward.x", "x", lambda v: NET(v), (5, 1), ndims=(2,)),
    Array("TwoLayerPowerNet.derivative.x", "x", lambda v: NET.derivative(v, (1,)), (5, 1), (2,)),
    Array(
        "autograd_derivative.x", "x", lambda v: ps.autograd_derivative(NET, v, (1,)), (5, 1), (2,)
    ),
    Int("PowerReLU.p", "p", lambda v: ps.PowerReLU(v), minimum=1),
    Int("poisson.d", "d", lambda v: ps.poisson(v), minimum=1),
    Int("biharmonic.d", "d", lambda v: ps.biharmonic(v), minimum=1),
    keyword(Int, ps.LinearPDE, "dim", {(2,): 1.0}, 0.0, kwargs={"bcs": []}, minimum=1),
    keyword(Int, _points, "n_interior", minimum=1),
    keyword(Int, _points, "n_boundary", minimum=1),
    keyword(Option, _points, "sampler", valid=frozenset({"grid", "uniform"})),
    Array("pinn_loss.interior", "interior", lambda v: ps.pinn_loss(NET, PDE, v, B), (5, 1), (2,)),
    Array("pinn_loss.boundary", "boundary", lambda v: ps.pinn_loss(NET, PDE, X, v), (2, 1), (2,)),
    Array(
        "gram_matrix.interior", "interior", lambda v: ps.gram_matrix(NET, PDE, v, B), (5, 1), (2,)
    ),
    Mismatch("pinn_loss.columns", "interior", lambda: ps.pinn_loss(NET, PDE, np.ones((5, 2)), B)),
    Mismatch("pinn_loss.net_dim", "net", lambda: ps.pinn_loss(_net(d=2), PDE, X, B)),
    Array("min_eig.gram", "gram", lambda v: ps.min_eig(v), (3, 3), (2,)),
    Mismatch("min_eig.square", "gram", lambda: ps.min_eig(np.ones((2, 3)))),
    keyword(Int, _pinn, "m", minimum=1),
    keyword(Int, _pinn, "p", minimum=3, none_ok=True),
    keyword(Int, _pinn, "n_interior", minimum=1),
    keyword(Int, _pinn, "n_boundary", minimum=1),
    keyword(Option, _pinn, "sampler", valid=frozenset({"grid", "uniform"})),
    keyword(Int, _vspinn, "level", minimum=1, maximum=2),
    keyword(Int, _vspinn, "m", minimum=1),
    keyword(Int, _vspinn, "p", minimum=2, none_ok=True),
    Array("PINN.predict.x", "x", lambda v: PINN.predict(v), (5, 1), (2,)),
    Array(
        "relative_l2_error.x",
        "x",
        lambda v: ps.relative_l2_error(PINN, v),
        (5, 1),
        (2,),
        none_ok=True,
    ),
    keyword(Int, _train, "steps", minimum=0),
    keyword(Int, _train, "log_every", minimum=1),
    keyword(Option, _train, "optimizer", valid=frozenset({"adam", "gd"})),
    keyword(Number, _train, "lr"),
    keyword(OutOfRange, _train, "lr", values=st.floats(max_value=0.0, allow_nan=False)),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("alpha", [(1, 0), (), (-1,), (1.0,), "1", 1, None])
def test_bad_multi_index(alpha):
    exc = (
        ValueError
        if isinstance(alpha, tuple) and (len(alpha) != 1 or alpha == (-1,))
        else TypeError
    )
    assert_rejects(exc, "alpha", NET.derivative, X, alpha)


def test_bad_generators_dtypes_and_objects():
    for make in (
        lambda g: _net(generator=g),
        lambda g: _pinn(generator=g),
        lambda g: _points(generator=g),
    ):
        assert_rejects(TypeError, "generator", make, 0)
        assert_rejects(TypeError, "generator", make, np.random.default_rng(0))
    assert_rejects(TypeError, "dtype", _net, dtype="float64")
    assert_rejects(ValueError, "dtype", _net, dtype=torch.int64)
    assert_rejects(TypeError, "pde", ps.PINN, "poisson", m=3)
    assert_rejects(TypeError, "pde", ps.sample_points, None, n_interior=3, n_boundary=2)
    assert_rejects(TypeError, "net", ps.pinn_loss, "net", PDE, X, B)
    assert_rejects(TypeError, "net", ps.AutogradNet, lambda x: x[:, 0])
    assert_rejects(TypeError, "pde", ps.gram_matrix, NET)
    assert_rejects(TypeError, "model", ps.train, "model", steps=1)
    assert_rejects(TypeError, "model", ps.relative_l2_error, NET)
    assert_rejects(TypeError, "system", _vspinn, system="split")
    assert_rejects(TypeError, "x", NET, torch.zeros(3, 1, dtype=torch.int64))
    assert_rejects(ValueError, "x", NET, torch.full((3, 1), float("nan"), dtype=torch.float64))


def test_bad_pde_definitions():
    assert_rejects(TypeError, "terms", ps.LinearPDE, [(2,)], 0.0, dim=1, bcs=[])
    assert_rejects(ValueError, "terms", ps.LinearPDE, {}, 0.0, dim=1, bcs=[])
    assert_rejects(ValueError, "terms", ps.LinearPDE, {(2, 0): 1.0}, 0.0, dim=1, bcs=[])
    assert_rejects(ValueError, "terms", ps.LinearPDE, {(2,): float("nan")}, 0.0, dim=1, bcs=[])
    assert_rejects(TypeError, "terms", ps.LinearPDE, {(2,): "one"}, 0.0, dim=1, bcs=[])
    assert_rejects(TypeError, "f", ps.LinearPDE, {(2,): 1.0}, "f", dim=1, bcs=[])
    assert_rejects(TypeError, "exact", ps.LinearPDE, {(2,): 1.0}, 0.0, dim=1, bcs=[], exact=3)
    assert_rejects(TypeError, "bcs", ps.LinearPDE, {(2,): 1.0}, 0.0, dim=1, bcs="u=0")
    assert_rejects(TypeError, "bcs[0]", ps.LinearPDE, {(2,): 1.0}, 0.0, dim=1, bcs=[{(0,): 1}])
    assert_rejects(
        ValueError,
        "faces",
        ps.LinearPDE,
        {(2,): 1.0},
        0.0,
        dim=1,
        bcs=[({(0,): 1.0}, 0.0, [(1, 0)])],
    )
    assert_rejects(ValueError, "system", _vspinn, system=ps.split_system(ps.poisson(2), 1))
