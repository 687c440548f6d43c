"""simulate(): FedAvg against centralised GD and naive reference loops; workers; privacy."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from pfl_sim import CentralGaussian, simulate

D = 4


def make_users(n_users=12, seed=0, sizes=None, dtype=torch.float64):
    rng = np.random.default_rng(seed)
    users = {}
    for i in range(n_users):
        n = sizes[i] if sizes is not None else 6
        x = rng.standard_normal((n, D))
        y = x @ np.arange(1.0, D + 1) + rng.standard_normal(n)
        users[f"u{i}"] = (torch.as_tensor(x, dtype=dtype), torch.as_tensor(y[:, None], dtype=dtype))
    return users


def make_model(dtype=torch.float64):
    torch.manual_seed(0)
    return torch.nn.Linear(D, 1).to(dtype)


def mse(pred, y):
    return ((pred - y) ** 2).mean()


def weights(model):
    return model.weight.detach().numpy().ravel().copy(), model.bias.detach().numpy().copy()


def grad_mse(w, b, x, y):
    """Closed-form gradient of mean((x w + b - y)^2)."""
    r = x @ w + b - y
    return 2 * x.T @ r / len(y), np.array([2 * r.mean()])


def cohort_xy(users, rec):
    """The round's users' data as numpy (x, y) pairs, in cohort order."""
    return [(users[u][0].numpy(), users[u][1].numpy().ravel()) for u in rec["cohort"]]


def final(result):
    return result.state_dict["weight"].numpy().ravel(), result.state_dict["bias"].numpy()


@pytest.mark.parametrize("weighting", ["uniform", "examples"])
def test_fedavg_one_full_batch_step_is_centralised_gd(weighting):
    users = make_users(sizes=[3, 9, 5, 7, 4, 8, 6, 2, 10, 5, 3, 7])
    model = make_model()
    res = simulate(model, mse, users, rounds=4, cohort_size=5, local_lr=0.05, weighting=weighting)
    w, b = weights(model)
    for rec in res.history:  # reference: GD on the cohort's per-user mean losses, closed form
        gw, gb, tot = np.zeros(D), np.zeros(1), 0.0
        for x, y in cohort_xy(users, rec):
            a = len(y) if weighting == "examples" else 1.0
            g = grad_mse(w, b, x, y)
            gw, gb, tot = gw + a * g[0], gb + a * g[1], tot + a
        w, b = w - 0.05 * gw / tot, b - 0.05 * gb / tot
    fw, fb = final(res)
    np.testing.assert_allclose(fw, w, atol=1e-10, rtol=0)
    np.testing.assert_allclose(fb, b, atol=1e-10, rtol=0)


def naive_fedavg(users, w, b, history, *, epochs, batch, lr, central_lr):
    """An independent loop: local minibatch SGD in numpy, in order, plain mean of deltas."""
    for rec in history:
        deltas = []
        for x, y in cohort_xy(users, rec):
            lw, lb = w.copy(), b.copy()
            for _ in range(epochs):
                for s in range(0, len(y), batch):
                    gw, gb = grad_mse(lw, lb, x[s : s + batch], y[s : s + batch])
                    lw, lb = lw - lr * gw, lb - lr * gb
            deltas.append((lw - w, lb - b))
        w = w + central_lr * np.mean([d[0] for d in deltas], axis=0)
        b = b + central_lr * np.mean([d[1] for d in deltas], axis=0)
    return w, b


def test_local_epochs_and_minibatches_match_a_naive_loop():
    users = make_users(sizes=[7] * 12)
    model = make_model()
    opts = {"local_epochs": 3, "local_batch_size": 3, "local_lr": 0.02, "central_lr": 0.7}
    res = simulate(model, mse, users, rounds=3, cohort_size=4, seed=5, **opts)
    w, b = naive_fedavg(
        users, *weights(model), res.history, epochs=3, batch=3, lr=0.02, central_lr=0.7
    )
    fw, fb = final(res)
    np.testing.assert_allclose(fw, w, atol=1e-10, rtol=0)
    np.testing.assert_allclose(fb, b, atol=1e-10, rtol=0)


def test_fedadam_matches_a_hand_written_adam_on_the_pseudo_gradient():
    users = make_users()
    model = make_model()
    opts = {"local_lr": 0.05, "central_lr": 0.01, "central_optimizer": "adam"}
    res = simulate(model, mse, users, rounds=3, cohort_size=4, **opts)
    theta = np.concatenate(weights(model))
    m1, v1 = np.zeros_like(theta), np.zeros_like(theta)
    for t, rec in enumerate(res.history, start=1):
        g = np.zeros_like(theta)
        for x, y in cohort_xy(users, rec):
            gw, gb = grad_mse(theta[:D], theta[D:], x, y)
            g += np.concatenate([gw, gb]) * 0.05 / len(rec["cohort"])  # = -mean delta
        m1 = 0.9 * m1 + 0.1 * g
        v1 = 0.999 * v1 + 0.001 * g**2
        theta = theta - 0.01 * (m1 / (1 - 0.9**t)) / (np.sqrt(v1 / (1 - 0.999**t)) + 1e-8)
    np.testing.assert_allclose(np.concatenate(final(res)), theta, atol=1e-10, rtol=0)


def test_cohorts_are_distinct_seeded_and_model_is_untouched():
    users = make_users()
    model = make_model()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    a = simulate(model, mse, users, rounds=5, cohort_size=6, seed=1)
    assert torch.equal(torch.rand(1), expected_next)  # the global RNG is restored
    b = simulate(model, mse, users, rounds=5, cohort_size=6, seed=1)
    c = simulate(model, mse, users, rounds=5, cohort_size=6, seed=2)
    for k in before:
        assert torch.equal(model.state_dict()[k], before[k])
        assert torch.equal(a.state_dict[k], b.state_dict[k])
    assert len(a.history) == 5
    for rec in a.history:
        assert len(set(rec["cohort"])) == 6 and set(rec["cohort"]) <= set(users)
    assert [r["cohort"] for r in a.history] != [r["cohort"] for r in c.history]


class DropoutNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(D, 8)
        self.out = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.nn.functional.dropout(torch.tanh(self.lin(x)), 0.3, self.training))


@pytest.mark.parametrize("private", [False, True])
def test_two_gloo_workers_equal_one(private):
    users = make_users()
    torch.manual_seed(0)
    model = DropoutNet().double()
    priv = (
        CentralGaussian(clip_bound=0.3, noise_multiplier=0.8, noise_cohort_size=50, adaptive=True)
        if private
        else None
    )
    kw = {"rounds": 3, "cohort_size": 5, "local_batch_size": 4, "privacy": priv, "seed": 4}
    one = simulate(model, mse, users, n_workers=1, **kw)
    two = simulate(model, mse, users, n_workers=2, **kw)
    for k, v in one.state_dict.items():
        np.testing.assert_allclose(two.state_dict[k].numpy(), v.numpy(), atol=1e-12, rtol=0)
    for r1, r2 in zip(one.history, two.history):
        assert r1["cohort"] == r2["cohort"]
        assert r1["train_loss"] == pytest.approx(r2["train_loss"], rel=1e-12)
        if private:
            assert r1["clip_bound"] == pytest.approx(r2["clip_bound"], rel=1e-12)


def test_an_initialised_group_is_used_as_is(tmp_path):
    import torch.distributed as dist

    users = make_users()
    model = make_model()
    alone = simulate(model, mse, users, rounds=2, cohort_size=3)
    dist.init_process_group(
        "gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1
    )
    try:
        grouped = simulate(model, mse, users, rounds=2, cohort_size=3)
        with pytest.raises(ValueError, match="n_workers"):
            simulate(model, mse, users, rounds=2, cohort_size=3, n_workers=3)
    finally:
        dist.destroy_process_group()
    for k, v in alone.state_dict.items():
        np.testing.assert_allclose(grouped.state_dict[k].numpy(), v.numpy(), atol=1e-14)


def test_privacy_matches_hand_clipped_noiseless_fedavg():
    users = make_users()
    model = make_model()
    priv = CentralGaussian(clip_bound=0.05, noise_multiplier=0.0)
    res = simulate(model, mse, users, rounds=2, cohort_size=4, local_lr=0.05, privacy=priv)
    w, b = weights(model)
    for rec in res.history:
        acc = np.zeros(D + 1)
        for x, y in cohort_xy(users, rec):
            gw, gb = grad_mse(w, b, x, y)
            d = -0.05 * np.concatenate([gw, gb])
            acc += d * min(1.0, 0.05 / np.linalg.norm(d))
        w, b = w + acc[:D] / 4, b + acc[D:] / 4
        assert rec["clip_bound"] == 0.05 and 0 <= rec["clipped_fraction"] <= 1
    np.testing.assert_allclose(np.concatenate(final(res)), np.concatenate([w, b]), atol=1e-12)


def test_noise_in_simulation_has_the_mechanisms_std():
    users = make_users(n_users=10)
    model = torch.nn.Linear(D, 500).double()  # many coordinates for a std estimate
    priv = CentralGaussian(clip_bound=1e-9, noise_multiplier=2.0, noise_cohort_size=40)
    before = torch.cat([p.detach().ravel() for p in model.parameters()])
    res = simulate(
        model, lambda p, y: ((p - y) ** 2).mean(), users, rounds=1, cohort_size=4, privacy=priv
    )
    after = torch.cat([res.state_dict["weight"].ravel(), res.state_dict["bias"].ravel()])
    step = (after - before).numpy()  # = clipped mean (<= 1e-9) + noise / m
    expected = 2.0 * 1e-9 * (4 / 40) / 4
    assert res.history[0]["noise_std"] == pytest.approx(expected)
    assert np.std(step) == pytest.approx(expected, rel=0.1)


def test_float32_and_numpy_users_work():
    users = {
        k: (x.numpy().astype(np.float32), y.numpy().astype(np.float32))
        for k, (x, y) in make_users().items()
    }
    model = make_model(torch.float32)
    res = simulate(model, mse, users, rounds=2, cohort_size=3)
    assert res.state_dict["weight"].dtype == torch.float32
    assert np.isfinite(res.history[-1]["train_loss"])


def test_training_reduces_the_loss():
    users = make_users(n_users=20)
    res = simulate(make_model(), mse, users, rounds=30, cohort_size=10, local_epochs=2)
    assert res.history[-1]["train_loss"] < 0.3 * res.history[0]["train_loss"]


def test_examples_weighting_with_privacy_is_refused():
    with pytest.raises(ValueError, match="weighting"):
        simulate(
            make_model(),
            mse,
            make_users(),
            rounds=1,
            cohort_size=2,
            weighting="examples",
            privacy=CentralGaussian(clip_bound=1, noise_multiplier=1),
        )
