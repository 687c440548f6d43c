"""The objectives against sums written out in numpy."""

import behavior_distill as bd
import numpy as np
import pytest
import torch

RNG = np.random.default_rng(0)
OBS = RNG.standard_normal((9, 3))
M = RNG.standard_normal((3, 2))
T = RNG.standard_normal((3, 2))


def policy_fn(o):
    return o @ torch.as_tensor(M, dtype=o.dtype)


def teacher(o):
    return torch.tanh(o @ torch.as_tensor(T, dtype=o.dtype))


def q_scalar(o, a):
    return 1.0 + (o**2).sum(1) + a.sum(1)


def test_dbc_is_the_mean_squared_distance_summed_over_action_dims():
    acts = RNG.standard_normal((9, 2))
    got = float(bd.DBC()(policy_fn, {"observations": OBS, "actions": acts}))
    want = np.mean(np.sum((OBS @ M - acts) ** 2, axis=1))
    assert got == pytest.approx(want, rel=1e-12)


def test_dbc_one_hot_encodes_integer_actions():
    probs = RNG.dirichlet(np.ones(4), size=9)
    fn = lambda o: torch.as_tensor(probs, dtype=o.dtype)  # noqa: E731
    a = np.array([0, 1, 2, 3, 0, 1, 2, 3, 3])
    got = float(bd.DBC()(fn, {"observations": OBS, "actions": a}))
    want = np.mean(np.sum((probs - np.eye(4)[a]) ** 2, axis=1))
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="actions"):
        bd.DBC()(fn, {"observations": OBS, "actions": a + 1})  # index 4 of 4 actions


def test_pbc_and_avpbc_with_a_scalar_critic():
    batch = {"observations": OBS}
    t = np.tanh(OBS @ T)
    diff = np.sum((OBS @ M - t) ** 2, axis=1)
    assert float(bd.PBC(teacher)(policy_fn, batch)) == pytest.approx(diff.mean(), rel=1e-12)
    q = 1.0 + (OBS**2).sum(1) + t.sum(1)
    got = float(bd.AvPBC(teacher, q_scalar, beta=0.3)(policy_fn, batch))
    assert got == pytest.approx(np.mean(0.3 * q * diff), rel=1e-12)
    # the default beta is the paper's 0.02
    assert float(bd.AvPBC(teacher, q_scalar)(policy_fn, batch)) == pytest.approx(
        np.mean(0.02 * q * diff), rel=1e-12
    )


def test_avpbc_with_per_action_values_is_the_discrete_weighted_sum():
    probs = RNG.dirichlet(np.ones(4), size=9)
    star = RNG.dirichlet(np.ones(4), size=9)
    Q = RNG.random((9, 4))
    fn = lambda o: torch.as_tensor(probs, dtype=o.dtype)  # noqa: E731
    tea = lambda o: torch.as_tensor(star, dtype=o.dtype)  # noqa: E731
    crit = lambda o, a: torch.as_tensor(Q, dtype=o.dtype)  # noqa: E731
    got = float(bd.AvPBC(tea, crit, beta=1.0)(fn, {"observations": OBS}))
    assert got == pytest.approx(np.mean(np.sum(Q * (probs - star) ** 2, axis=1)), rel=1e-12)


def test_objectives_are_differentiable_and_teacher_is_constant():
    W = torch.tensor(M, requires_grad=True)
    fn = lambda o: o @ W  # noqa: E731
    obs = torch.as_tensor(OBS)
    loss = bd.AvPBC(teacher, q_scalar)(fn, {"observations": obs})
    (g,) = torch.autograd.grad(loss, W)
    t = np.tanh(OBS @ T)
    q = 0.02 * (1.0 + (OBS**2).sum(1) + t.sum(1))
    want = 2 * OBS.T @ (q[:, None] * (OBS @ M - t)) / 9
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-10)


def test_shape_mismatches_name_the_argument():
    bad = {"observations": OBS, "actions": RNG.standard_normal((9, 3))}
    with pytest.raises(ValueError, match="actions"):
        bd.DBC()(policy_fn, bad)
    with pytest.raises(ValueError, match="critic"):
        bd.AvPBC(teacher, lambda o, a: torch.ones(9, 5, dtype=o.dtype))(
            policy_fn, {"observations": OBS}
        )
    with pytest.raises(ValueError, match="batch"):
        bd.DBC()(policy_fn, {"observations": OBS})  # DBC needs the offline actions


def test_teacher_and_critic_may_return_arrays():
    batch = {"observations": OBS}
    np_teacher = lambda o: np.tanh(o.numpy() @ T)  # noqa: E731
    np_critic = lambda o, a: 1.0 + (o.numpy() ** 2).sum(1) + a.numpy().sum(1)  # noqa: E731
    assert float(bd.AvPBC(np_teacher, np_critic)(policy_fn, batch)) == pytest.approx(
        float(bd.AvPBC(teacher, q_scalar)(policy_fn, batch)), rel=1e-12
    )
    with pytest.raises(TypeError, match="critic"):
        bd.AvPBC(teacher, lambda o, a: None)(policy_fn, batch)
