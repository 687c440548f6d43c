"""The outer loop: it lowers the objective, is reproducible, clips, and leaves its inputs alone;
the grid world, its offline data and the exact teacher."""

import behavior_distill as bd
import numpy as np
import pytest
import torch
from conftest import close


@pytest.fixture(scope="module")
def grid():
    mdp = bd.slippery_grid(4, slip=0.1, gamma=0.9)
    data = bd.epsilon_greedy_dataset(mdp, 600, episode_length=20, rng=0)
    teacher = bd.TabularTeacher.from_mdp(mdp)
    return mdp, data, teacher


def _make():
    return bd.MLPPolicy(2, 4, hidden=(16,))


def _init(data, n=6, seed=0):
    idx = np.random.default_rng(seed).choice(len(data["actions"]), n, replace=False)
    S = torch.as_tensor(data["observations"][idx], dtype=torch.float32)
    A = torch.nn.functional.one_hot(torch.as_tensor(data["actions"][idx]), 4).float()
    return S, A


def test_grid_world_is_a_valid_mdp_and_the_teacher_is_optimal(grid):
    mdp, _, teacher = grid
    assert mdp.n_states == 16 and mdp.n_actions == 4
    np.testing.assert_allclose(mdp.P.sum(-1), 1.0)
    # from the cell left of the goal, moving right (action 0) is optimal
    assert teacher.policy[mdp.goal - 1].argmax() == 0
    V = bd.policy_value(mdp, teacher.policy)
    assert V[mdp.goal] == pytest.approx(1 / (1 - 0.9))
    # no deterministic policy of the 4**16 does better: check against a random sample of them
    rng = np.random.default_rng(0)
    for _ in range(20):
        pi = np.eye(4)[rng.integers(0, 4, 16)]
        assert bd.policy_return(mdp, pi) <= bd.policy_return(mdp, teacher.policy) + 1e-12
    obs = torch.tensor(mdp.features, dtype=torch.float64)
    close(teacher(obs), teacher.policy, rtol=1e-12)
    close(teacher.critic(obs, None), bd.optimal_q(mdp), rtol=1e-12)


def test_offline_data_layout_and_mixture(grid):
    mdp, data, _ = grid
    for key in ("observations", "actions", "rewards", "next_observations", "terminals"):
        assert len(data[key]) == 600
    np.testing.assert_array_equal(data["observations"], mdp.features[data["states"]])
    np.testing.assert_array_equal(data["rewards"], mdp.R[data["states"], data["actions"]])
    # the epsilon = 1 third is uniform, the epsilon = 0.2 third mostly greedy
    greedy = bd.optimal_policy(mdp)[1].argmax(1)
    agree = data["actions"] == greedy[data["states"]]
    assert agree[:200].mean() < agree[400:].mean()


def test_distill_lowers_pbc_and_is_reproducible(grid):
    _, data, teacher = grid
    S0, A0 = _init(data)
    S0_copy, A0_copy = S0.clone(), A0.clone()
    kw = dict(outer_steps=20, inner_steps=3, batch_size=128, outer_lr=0.3)
    S1, A1, h = bd.distill(
        S0, A0, _make, bd.PBC(teacher), data, generator=torch.Generator().manual_seed(3), **kw
    )
    assert torch.equal(S0, S0_copy) and torch.equal(A0, A0_copy)
    assert S1.shape == S0.shape and A1.shape == A0.shape
    assert len(h) == 20 and h.loss.shape == (20,) and h["loss"] is h.loss
    assert h.loss[-5:].mean() < h.loss[:5].mean()
    S2, A2, h2 = bd.distill(
        S0, A0, _make, bd.PBC(teacher), data, generator=torch.Generator().manual_seed(3), **kw
    )
    assert torch.equal(S1, S2) and torch.equal(A1, A2)
    np.testing.assert_array_equal(h.loss, h2.loss)


def test_distill_methods_agree_and_clip(grid):
    _, data, teacher = grid
    S0, A0 = _init(data, seed=1)
    out = {}
    for method in bd.METHODS:
        out[method] = bd.distill(
            S0,
            A0,
            _make,
            bd.AvPBC(teacher, teacher.critic),
            data,
            outer_steps=3,
            inner_steps=4,
            batch_size=64,
            method=method,
            outer_momentum=0.0,
            clip_norm=1e-3,
            generator=torch.Generator().manual_seed(0),
        )
    (Su, Au, hu), (Sr, Ar, hr) = out["unroll"], out["reverse_hvp"]
    np.testing.assert_allclose(hu.loss, hr.loss, rtol=1e-5)
    close(Su, Sr, rtol=1e-5, atol=1e-7)
    close(Au, Ar, rtol=1e-5, atol=1e-7)
    # each step moves (S, A) by at most lr * clip_norm
    step = torch.sqrt(((Su - S0) ** 2).sum() + ((Au - A0) ** 2).sum())
    assert float(step) <= 3 * 0.1 * 1e-3 * (1 + 1e-4)
    assert np.all(hu.grad_norm > 0)


def test_distill_eval_fn_schedule(grid):
    _, data, teacher = grid
    S0, A0 = _init(data)
    calls = []

    def eval_fn(s, a):
        calls.append((s.shape, a.shape))
        return float(len(calls))

    _, _, h = bd.distill(
        S0,
        A0,
        _make,
        bd.DBC(),
        data,
        outer_steps=5,
        inner_steps=2,
        batch_size=32,
        eval_fn=eval_fn,
        eval_every=2,
        generator=torch.Generator().manual_seed(0),
    )
    assert h.eval_steps == (0, 2, 4, 5)
    assert h.eval_values == (1.0, 2.0, 3.0, 4.0)
    assert calls[0] == (S0.shape, A0.shape)


def test_policy_ensemble_averages_members():
    torch.manual_seed(0)
    members = [bd.MLPPolicy(2, 3, hidden=(4,)) for _ in range(3)]
    x = torch.randn(5, 2)
    ens = bd.PolicyEnsemble(members)
    close(ens(x), sum(m(x) for m in members) / 3, rtol=1e-6, atol=1e-7)
    table = bd.policy_table(ens, x.numpy())
    np.testing.assert_allclose(table.sum(1), 1.0)


def test_custom_objectives_see_the_other_offline_fields(grid):
    _, data, _ = grid
    seen = []

    def objective(policy_fn, batch):
        seen.append(sorted(batch))
        assert batch["rewards"].shape == (16,)
        return bd.DBC()(policy_fn, batch)

    S0, A0 = _init(data)
    bd.distill(S0, A0, _make, objective, data, outer_steps=1, inner_steps=1, batch_size=16)
    assert {"observations", "actions", "rewards", "terminals"} <= set(seen[0])


def test_dataset_npz_round_trip(grid, tmp_path):
    _, data, _ = grid
    path = bd.save_dataset(tmp_path / "d.npz", {**data, "rewards": torch.tensor(data["rewards"])})
    back = bd.load_dataset(path)
    assert set(back) == set(data)
    for k in data:
        np.testing.assert_array_equal(back[k], data[k])
    with pytest.raises(ValueError, match="rewards"):
        bd.save_dataset(tmp_path / "e.npz", {**data, "rewards": data["rewards"][:-1]})
