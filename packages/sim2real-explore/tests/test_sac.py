"""The [torch] extra: SAC pieces against independent references, SAC learning a tiny task,
the ensemble's gated diversity reward, the real-world learner's bookkeeping (skipped without
torch); the full sim2real pipeline is the slow test."""

import numpy as np
import pytest
import sim2real_explore as se

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from sim2real_explore import sac  # noqa: E402


def gen(seed):
    return torch.Generator().manual_seed(seed)


def test_tanh_gaussian_log_prob_matches_torch_distributions():
    actor = sac._Actor(3, 2, 16)
    x, noise = torch.randn(7, 3), torch.randn(7, 2)
    a, logp = actor(x, noise)
    mean, log_std = actor.net(x).split(2, dim=-1)
    d = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(mean, log_std.clamp(-5, 2).exp()),
        [torch.distributions.TanhTransform()],
    )
    assert torch.allclose(logp, d.log_prob(a).sum(-1), atol=1e-4)
    assert torch.allclose(actor(x, deterministic=True)[0], torch.tanh(mean))


def test_twin_q_is_two_independent_mlps():
    q = sac._TwinQ(4, 8)
    x = torch.randn(5, 4)
    out = q(x)
    for k in range(2):
        h = x
        for i, (w, b) in enumerate(zip(q.weights, q.biases, strict=True)):
            h = h @ w[k] + b[k]
            h = torch.relu(h) if i < 2 else h
        assert torch.allclose(out[k], h[:, 0], atol=1e-6)


def test_replay_buffer_is_a_ring():
    buf = se.ReplayBuffer(2, 1, capacity=3)
    for i in range(5):
        buf.add([i, i], [0.1 * i], float(i), [i + 1, i + 1], i == 4, skill=0)
    assert len(buf) == 3
    assert sorted(buf.reward.tolist()) == [2.0, 3.0, 4.0]
    b = buf.sample(50, generator=gen(0))
    assert set(b["reward"].tolist()) <= {2.0, 3.0, 4.0}
    assert torch.equal(b["next_obs"][:, 0], b["obs"][:, 0] + 1)
    assert torch.equal(b["terminated"], (b["reward"] == 4.0).float())


def test_critic_regresses_terminal_rewards():
    """Terminal transitions: the Bellman target is r alone, so both Q heads fit r(s, a)."""
    agent = se.SAC(1, 1, hidden=32, lr=3e-3, generator=gen(0))
    buf = se.ReplayBuffer(1, 1)
    rng = np.random.default_rng(0)
    for _ in range(64):
        s, a = rng.uniform(-1, 1, 1), rng.uniform(-1, 1, 1)
        buf.add(s, a, float(s[0] * a[0]), s, True)
    batch = buf.sample(64, generator=gen(1))
    batch = {
        k: v
        for k, v in zip(
            batch,
            (
                buf.obs[:64],
                buf.action[:64],
                buf.reward[:64],
                buf.next_obs[:64],
                buf.terminated[:64],
                buf.skill[:64],
            ),
            strict=True,
        )
    }
    for _ in range(300):
        agent.update(batch)
    q = agent.critic(torch.cat([batch["obs"], batch["action"]], -1)).detach()
    assert (q - batch["reward"]).abs().max() < 0.1


def test_seeded_and_leaves_the_global_rng_alone():
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a, b = se.SAC(2, 2, generator=gen(4)), se.SAC(2, 2, generator=gen(4))
    c = se.SAC(2, 2, generator=gen(5))
    assert torch.equal(torch.random.get_rng_state(), before)
    pa, pb, pc = (torch.cat([p.flatten() for p in x.actor.parameters()]) for x in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)
    env = se.ContinuousPoint2D(horizon=4)
    r1 = se.RealWorldLearner(env, [], warmup_steps=8, generator=gen(2)).fit(6)
    r2 = se.RealWorldLearner(
        se.ContinuousPoint2D(horizon=4), [], warmup_steps=8, generator=gen(2)
    ).fit(6)
    assert r1.returns == r2.returns
    assert torch.equal(r1.agent.critic.weights[0], r2.agent.critic.weights[0])


def test_sac_learns_a_tiny_task():
    """One target 0.26 away (2 full-speed steps, 4-step horizon): the SAC policy learned from
    60 episodes hits it every time; uniform random actions hit it in well under half."""

    def env():
        return se.ContinuousPoint2D(
            horizon=4, targets=[(0.5, 0.5)], rewards=[1.0], shaping=1.0, noise=0.0
        )

    agent = se.train_sac(env(), n_episodes=60, warmup_steps=60, generator=gen(0))
    plain = se.ContinuousPoint2D(horizon=4, targets=[(0.5, 0.5)], rewards=[1.0])
    learned = se.rollout_returns(plain, agent.policy(), 30, rng=0)

    class Uniform:
        def act(self, obs, h, rng):
            return rng.uniform(-1, 1, 2)

    random = se.rollout_returns(plain, Uniform(), 200, rng=0)
    assert learned.mean() == 1.0
    assert random.mean() < 0.4


def test_diversity_reward_is_gated_by_the_task_threshold():
    env = se.ContinuousPoint2D(horizon=3)
    seen = []
    ens = se.DiverseEnsembleSAC(
        env, n=3, alpha=5.0, task_threshold=1e9, warmup_steps=4, generator=gen(0)
    )
    update = ens.agent.update

    def spy(batch, reward=None):
        seen.append((batch["reward"].clone(), reward.clone(), batch))
        return update(batch, reward)

    ens.agent.update = spy
    ens.fit(6)
    assert seen and all(torch.equal(r0, r) for r0, r, _ in seen)  # nobody solved: task only
    ens.task_threshold = -1.0  # everyone "solves": the diversity term is added
    seen.clear()
    ens.fit(3)
    r0, r, batch = seen[-1]
    expect = r0 + 5.0 * ens.diversity_reward(batch["next_obs"], batch["skill"])
    assert torch.allclose(r, expect, atol=1e-5) and (r < r0).all()
    log_q = torch.log_softmax(ens.discriminator(batch["next_obs"]), -1)
    assert torch.allclose(
        ens.diversity_reward(batch["next_obs"], batch["skill"]),
        log_q[torch.arange(len(r)), batch["skill"]],
    )
    assert set(ens.checkpoints) == {0, 1, 2} and len(ens.explorers()) == 3


def test_real_world_learner_bookkeeping():
    env = se.ContinuousPoint2D(horizon=3)
    calls = []

    class Explorer:
        def __init__(self, k):
            self.k = k

        def act(self, obs, h, rng):
            calls.append(self.k)
            return np.array([0.0, 0.0])

    init = se.SAC(2, 2, generator=gen(9))
    learner = se.RealWorldLearner(
        env,
        [Explorer(0), Explorer(1)],
        sac_init=init,
        explore_prob=1.0,
        warmup_steps=1000,
        generator=gen(0),
    )
    assert torch.equal(learner.agent.actor.net[0].weight, init.actor.net[0].weight)
    learner.fit(40)
    assert learner.episodes_used == 40 and all(learner.explored)
    assert len(calls) == 40 * 3 and 0.25 < np.mean(calls) < 0.75  # uniform draws
    assert len(learner.buffer) == 120 and learner.agent.n_updates == 0  # still warming up
    own = se.RealWorldLearner(env, [Explorer(0)], explore_prob=0.0, warmup_steps=1000).fit(5)
    assert not any(own.explored)


@pytest.mark.slow
def test_exploration_transfer_beats_direct_transfer_on_the_mismatch():
    """The practical pipeline on the continuous mismatch: the sim-trained SAC policy gets nothing
    in the real system; exploration transfer (8 diverse sim policies + a real SAC learner,
    1000 real episodes, the reproduction's seed 0) reaches a target in >= 80% of real
    episodes."""
    sim, real = se.continuous_action_scale_mismatch()
    direct = se.train_sac(sim, n_episodes=200, generator=gen(0))
    assert se.rollout_returns(real, direct.policy(), 30, rng=0).mean() == 0.0
    policy, info = se.sac_exploration_transfer(
        sim,
        real,
        n_episodes=1000,
        n_policies=8,
        sim_episodes=400,
        alpha=0.2,
        update_every=2,
        generator=gen(0),
    )
    assert info.episodes_used == 1000 and info.n_explorers >= 2
    assert (se.rollout_returns(real, policy, 50, rng=1) > 0).mean() >= 0.8


def test_readme_sac_example_runs_at_a_tiny_scale(capsys):
    """The README's ```py block (the SAC example), with its budgets cut to seconds."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    (block,) = re.findall(r"```py\n(.*?)```", text, flags=re.S)
    small = block.replace("n_episodes=1000", "n_episodes=12").replace(
        "sim_episodes=400", "sim_episodes=6"
    )
    small = small.replace("sim_episodes=200", "sim_episodes=4").replace(
        "n_policies=8", "n_policies=2"
    )
    assert small.count("n_episodes=12") == 2
    exec(compile(small, "README.md", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.count("\n") == 3
