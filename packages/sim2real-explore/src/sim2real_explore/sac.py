"""The paper's practical algorithm (``pip install 'sim2real-explore[torch]'``): SAC exploration
ensembles learned in simulation with a diversity discriminator, and a SAC learner in the real
environment trained on the data the transferred explorers collect.

Sim: :class:`DiverseEnsembleSAC` trains ``n`` policies (one skill-conditioned SAC, member z
gets the one-hot z as input) on task reward + ``alpha`` * r_e(s', z), r_e = log softmax_z
d(s')[z] of a discriminator d that learns to tell the members apart from the states they
visit (DIAYN-style). The diversity reward is switched on for a member only once its recent
task return reaches ``task_threshold``; a checkpoint of each member is kept whenever it solves
the task (recent mean task return >= ``task_threshold``).

Real: :class:`RealWorldLearner` plays, each episode, a uniformly drawn explorer (with
probability ``explore_prob``, else its own current policy), puts every transition into one
replay buffer and runs SAC on it (task reward only), optionally initialised from a SAC agent
trained in simulation. With no explorers and ``sac_init`` the sim agent it is the baseline
"direct sim2real transfer + fine-tuning".

Environments: the gymnasium API with float observations (obs_dim,) and actions in [-1, 1]^d
(e.g. :class:`~sim2real_explore.ContinuousPoint2D`); truncation is bootstrapped, termination
is not. Randomness: ``generator=`` (a ``torch.Generator``) seeds the networks, the minibatches,
the action noise, the explorer draws and the environment resets.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import TORCH_NAMES
from ._checks import (
    check_array,
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_probability,
    describe,
)
from ._validation import check_env

__all__ = list(TORCH_NAMES)

_LOG_STD_MIN, _LOG_STD_MAX = -5.0, 2.0


def _mlp(n_in, n_out, hidden):
    return nn.Sequential(
        nn.Linear(n_in, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, n_out),
    )


def _seed_from(generator) -> int:
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator).item())


def _new_generator(generator):
    """A private generator derived from the caller's (or fresh entropy)."""
    g = torch.Generator()
    if generator is None:
        g.seed()
    else:
        g.manual_seed(_seed_from(generator))
    return g


def _env_dims(env, name):
    check_env(env, name)
    obs_dim = getattr(env, "obs_dim", None)
    act_dim = getattr(env, "action_dim", None)
    space = getattr(env, "observation_space", None)
    if obs_dim is None and space is not None and getattr(space, "shape", None):
        obs_dim = int(np.prod(space.shape))
    space = getattr(env, "action_space", None)
    if act_dim is None and space is not None and getattr(space, "shape", None):
        act_dim = int(np.prod(space.shape))
    if not obs_dim or not act_dim:
        raise ValueError(
            f"{name} must expose obs_dim and action_dim (or Box observation/action spaces), "
            f"got {describe(env)}"
        )
    return int(obs_dim), int(act_dim)


class ReplayBuffer:
    """A fixed-capacity ring buffer of (obs, action, reward, next_obs, terminated, skill)."""

    def __init__(self, obs_dim, action_dim, *, capacity=100_000):
        self.obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        self.action_dim = check_int(action_dim, "action_dim", minimum=1)
        self.capacity = check_int(capacity, "capacity", minimum=1)
        c = self.capacity
        self.obs = torch.zeros((c, self.obs_dim))
        self.action = torch.zeros((c, self.action_dim))
        self.reward = torch.zeros(c)
        self.next_obs = torch.zeros((c, self.obs_dim))
        self.terminated = torch.zeros(c)
        self.skill = torch.zeros(c, dtype=torch.long)
        self.size = 0
        self._i = 0

    def __len__(self) -> int:
        return self.size

    def add(self, obs, action, reward, next_obs, terminated, skill=0) -> None:
        i = self._i
        self.obs[i] = torch.as_tensor(obs, dtype=torch.float32)
        self.action[i] = torch.as_tensor(action, dtype=torch.float32)
        self.reward[i] = float(reward)
        self.next_obs[i] = torch.as_tensor(next_obs, dtype=torch.float32)
        self.terminated[i] = float(bool(terminated))
        self.skill[i] = int(skill)
        self._i = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, batch_size, *, generator=None):
        """A uniform minibatch (with replacement) as a dict of tensors."""
        n = check_int(batch_size, "batch_size", minimum=1)
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        idx = torch.randint(0, self.size, (n,), generator=check_generator(generator))
        return {
            "obs": self.obs[idx],
            "action": self.action[idx],
            "reward": self.reward[idx],
            "next_obs": self.next_obs[idx],
            "terminated": self.terminated[idx],
            "skill": self.skill[idx],
        }


class _TwinQ(nn.Module):
    """Two independent Q MLPs evaluated in one batched pass: forward(x) -> (2, B)."""

    def __init__(self, n_in, hidden):
        super().__init__()
        shapes = [(n_in, hidden), (hidden, hidden), (hidden, 1)]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for i, o in shapes:
            bound = 1.0 / math.sqrt(i)
            self.weights.append(nn.Parameter(torch.empty(2, i, o).uniform_(-bound, bound)))
            self.biases.append(nn.Parameter(torch.empty(2, 1, o).uniform_(-bound, bound)))

    def forward(self, x):
        h = x.unsqueeze(0).expand(2, *x.shape)
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.baddbmm(b, h, w)
            if k < last:
                h = torch.relu(h)
        return h.squeeze(-1)


class _Actor(nn.Module):
    def __init__(self, n_in, action_dim, hidden):
        super().__init__()
        self.net = _mlp(n_in, 2 * action_dim, hidden)
        self.action_dim = action_dim

    def forward(self, x, noise=None, deterministic=False):
        mean, log_std = self.net(x).split(self.action_dim, dim=-1)
        log_std = log_std.clamp(_LOG_STD_MIN, _LOG_STD_MAX)
        if deterministic:
            return torch.tanh(mean), None
        if noise is None:
            noise = torch.randn_like(mean)
        u = mean + log_std.exp() * noise
        # log N(u; mean, std) - sum log(1 - tanh(u)^2), the latter in a stable form
        logp = (-0.5 * noise.pow(2) - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        logp = logp - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
        return torch.tanh(u), logp


class SAC:
    """Soft actor-critic (twin Q, target critics, learned temperature), optionally
    conditioned on a skill index z in [0, n_skills) given to both networks as a one-hot.

    ``update(batch, reward)`` takes one gradient step of critic, actor and temperature on a
    minibatch of :class:`ReplayBuffer` with the rewards to use (so a caller can add a diversity
    term). ``policy(z)`` is a :class:`SACPolicy` for the gymnasium loop."""

    def __init__(
        self,
        obs_dim,
        action_dim,
        *,
        n_skills=1,
        hidden=64,
        gamma=0.9,
        lr=1e-3,
        tau=0.01,
        batch_size=128,
        init_temperature=0.1,
        target_entropy=None,
        generator=None,
    ):
        self.obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        self.action_dim = check_int(action_dim, "action_dim", minimum=1)
        self.n_skills = check_int(n_skills, "n_skills", minimum=1)
        self.hidden = check_int(hidden, "hidden", minimum=1)
        self.gamma = check_float(gamma, "gamma", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.tau = check_probability(tau, "tau")
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        t0 = check_float(init_temperature, "init_temperature", minimum=0.0, min_inclusive=False)
        if target_entropy is None:
            target_entropy = -float(self.action_dim)
        self.target_entropy = check_float(target_entropy, "target_entropy")
        self.generator = _new_generator(check_generator(generator))
        torch_state = torch.random.get_rng_state()
        torch.manual_seed(_seed_from(self.generator))  # parameter init from our generator only
        try:
            n_in = self.obs_dim + (self.n_skills if self.n_skills > 1 else 0)
            self.actor = _Actor(n_in, self.action_dim, self.hidden)
            self.critic = _TwinQ(n_in + self.action_dim, self.hidden)
        finally:
            torch.random.set_rng_state(torch_state)
        self.critic_target = copy.deepcopy(self.critic)
        for p in self.critic_target.parameters():
            p.requires_grad_(False)
        self.log_temperature = torch.tensor(math.log(t0), requires_grad=True)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=self.lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=self.lr)
        self.temperature_opt = torch.optim.Adam([self.log_temperature], lr=self.lr)
        self.n_updates = 0

    @property
    def temperature(self) -> float:
        return float(self.log_temperature.detach().exp())

    def _input(self, obs, skill):
        if self.n_skills == 1:
            return obs
        return torch.cat([obs, F.one_hot(skill, self.n_skills).float()], dim=-1)

    def _noise(self, shape):
        return torch.randn(shape, generator=self.generator)

    def update(self, batch, reward=None) -> dict:
        """One SAC step on ``batch`` (a :meth:`ReplayBuffer.sample` dict); ``reward`` (B,)
        replaces ``batch["reward"]`` if given. Returns the losses."""
        r = batch["reward"] if reward is None else reward
        x = self._input(batch["obs"], batch["skill"])
        x2 = self._input(batch["next_obs"], batch["skill"])
        a = batch["action"]
        temp = self.log_temperature.exp().detach()
        with torch.no_grad():
            a2, logp2 = self.actor(x2, self._noise(a.shape))
            xa2 = torch.cat([x2, a2], dim=-1)
            q_next = self.critic_target(xa2).min(0).values
            target = r + self.gamma * (1.0 - batch["terminated"]) * (q_next - temp * logp2)
        xa = torch.cat([x, a], dim=-1)
        critic_loss = 2.0 * F.mse_loss(self.critic(xa), target.expand(2, -1))
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        a_new, logp = self.actor(x, self._noise(a.shape))
        xa_new = torch.cat([x, a_new], dim=-1)
        q_new = self.critic(xa_new).min(0).values
        actor_loss = (temp * logp - q_new).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()

        temp_loss = -(self.log_temperature * (logp.detach() + self.target_entropy)).mean()
        self.temperature_opt.zero_grad()
        temp_loss.backward()
        self.temperature_opt.step()

        with torch.no_grad():
            torch._foreach_lerp_(
                list(self.critic_target.parameters()), list(self.critic.parameters()), self.tau
            )
        self.n_updates += 1
        return {
            "critic": float(critic_loss.detach()),
            "actor": float(actor_loss.detach()),
            "temperature": self.temperature,
        }

    def policy(self, z=0, *, deterministic=True) -> SACPolicy:
        """Member ``z``'s current policy (a frozen copy of the actor)."""
        z = check_int(z, "z", minimum=0, maximum=self.n_skills - 1)
        return SACPolicy(
            copy.deepcopy(self.actor),
            z=z,
            n_skills=self.n_skills,
            deterministic=check_bool(deterministic, "deterministic"),
        )

    def load_from(self, other: SAC) -> SAC:
        """Copy the networks (and temperature) of another :class:`SAC` of the same shape."""
        if not isinstance(other, SAC):
            raise TypeError(f"other must be a SAC agent, got {describe(other)}")
        if (other.obs_dim, other.action_dim, other.n_skills, other.hidden) != (
            self.obs_dim,
            self.action_dim,
            self.n_skills,
            self.hidden,
        ):
            raise ValueError(
                "other must have the same obs_dim, action_dim, n_skills and hidden, got "
                f"{(other.obs_dim, other.action_dim, other.n_skills, other.hidden)}"
            )
        for mine, theirs in (
            (self.actor, other.actor),
            (self.critic, other.critic),
            (self.critic_target, other.critic_target),
        ):
            mine.load_state_dict(theirs.state_dict())
        with torch.no_grad():
            self.log_temperature.copy_(other.log_temperature)
        return self

    def __repr__(self) -> str:
        return (
            f"SAC(obs_dim={self.obs_dim}, action_dim={self.action_dim}, "
            f"n_skills={self.n_skills}, updates={self.n_updates})"
        )


class SACPolicy:
    """A frozen SAC actor with the package's policy interface ``act(obs, h, rng)``: the tanh of
    the mean (``deterministic=True``) or a sample, its Gaussian noise drawn from ``rng`` (a numpy
    Generator; fresh entropy if None)."""

    def __init__(self, actor, *, z=0, n_skills=1, deterministic=True):
        self.actor = actor
        self.z = z
        self.n_skills = n_skills
        self.deterministic = deterministic
        for p in actor.parameters():
            p.requires_grad_(False)

    def act(self, obs, h=None, rng=None) -> np.ndarray:
        x = torch.as_tensor(check_array(obs, "obs", ndim=1), dtype=torch.float32)
        if self.n_skills > 1:
            x = torch.cat([x, F.one_hot(torch.tensor(self.z), self.n_skills).float()])
        with torch.no_grad():
            if self.deterministic:
                a, _ = self.actor(x, deterministic=True)
            else:
                g = np.random.default_rng() if rng is None else rng
                noise = torch.as_tensor(
                    g.standard_normal(self.actor.action_dim), dtype=torch.float32
                )
                a, _ = self.actor(x, noise)
        return a.numpy().astype(np.float64)

    def __repr__(self) -> str:
        kind = "deterministic" if self.deterministic else "stochastic"
        return f"SACPolicy(z={self.z}, {kind})"


# --------------------------------------------------------------------------- running episodes


class _Loop:
    """Runs episodes on an env with a policy function, feeding a replay buffer."""

    def __init__(self, env, name, generator):
        self.env = env
        self.name = name
        self.generator = generator
        self.seeded = False

    def episode(self, choose, buffer, skill, after_step, horizon_cap=100_000):
        seed = None if self.seeded else _seed_from(self.generator)
        self.seeded = True
        obs, _ = self.env.reset(seed=seed)
        obs = check_array(obs, "observation", ndim=1)
        total, steps = 0.0, 0
        while True:
            a = choose(obs)
            nxt, r, term, trunc, info = self.env.step(a)
            nxt = check_array(nxt, "observation", ndim=1)
            r = check_float(r, "reward")
            buffer.add(obs, a, r, nxt, term, skill)
            task = info.get("task_reward", r) if isinstance(info, dict) else r
            total += float(task)
            steps += 1
            after_step()
            if term or trunc or steps >= horizon_cap:
                return total, steps, bool(term)
            obs = nxt


def _actor_choice(agent, z, *, random_actions=False):
    def choose(obs):
        if random_actions:
            return torch.rand(agent.action_dim, generator=agent.generator).mul(2).sub(1).numpy()
        x = agent._input(
            torch.as_tensor(obs, dtype=torch.float32)[None], torch.tensor([z], dtype=torch.long)
        )
        with torch.no_grad():
            a, _ = agent.actor(x, agent._noise((1, agent.action_dim)))
        return a[0].numpy().astype(np.float64)

    return choose


def _policy_choice(policy, rng):
    def choose(obs):
        a = np.asarray(policy.act(obs, None, rng), dtype=float)
        return a

    return choose


@dataclass(frozen=True)
class _Opts:
    hidden: int
    gamma: float
    lr: float
    batch_size: int
    update_every: int
    warmup_steps: int


def _opts(hidden, gamma, lr, batch_size, update_every, warmup_steps):
    return _Opts(
        hidden=check_int(hidden, "hidden", minimum=1),
        gamma=check_float(gamma, "gamma", minimum=0.0, maximum=1.0, max_inclusive=False),
        lr=check_float(lr, "lr", minimum=0.0, min_inclusive=False),
        batch_size=check_int(batch_size, "batch_size", minimum=1),
        update_every=check_int(update_every, "update_every", minimum=1),
        warmup_steps=check_int(warmup_steps, "warmup_steps", minimum=0),
    )


# --------------------------------------------------------------------------- simulation


class DiverseEnsembleSAC:
    """``n`` exploration policies learned in simulation with SAC on task reward plus ``alpha``
    times the diversity reward log softmax_z d(s')[z], switched on per member once its mean task
    return over the last ``window`` episodes reaches ``task_threshold`` (members are trained
    round-robin, one episode each in turn). ``fit(n_episodes)`` returns self; ``explorers()``
    the stochastic policies of the kept checkpoints."""

    def __init__(
        self,
        env_sim,
        *,
        n=15,
        alpha=0.1,
        task_threshold=0.5,
        hidden=64,
        gamma=0.9,
        lr=1e-3,
        batch_size=128,
        update_every=1,
        warmup_steps=500,
        window=10,
        generator=None,
    ):
        self.obs_dim, self.action_dim = _env_dims(env_sim, "env_sim")
        self.env_sim = env_sim
        self.n = check_int(n, "n", minimum=1)
        self.alpha = check_float(alpha, "alpha", minimum=0.0)
        self.task_threshold = check_float(task_threshold, "task_threshold")
        self.opts = _opts(hidden, gamma, lr, batch_size, update_every, warmup_steps)
        self.window = check_int(window, "window", minimum=1)
        self.generator = _new_generator(check_generator(generator))
        self.agent = SAC(
            self.obs_dim,
            self.action_dim,
            n_skills=self.n,
            hidden=self.opts.hidden,
            gamma=self.opts.gamma,
            lr=self.opts.lr,
            batch_size=self.opts.batch_size,
            generator=self.generator,
        )
        torch_state = torch.random.get_rng_state()
        torch.manual_seed(_seed_from(self.generator))
        try:
            self.discriminator = _mlp(self.obs_dim, self.n, self.opts.hidden)
        finally:
            torch.random.set_rng_state(torch_state)
        self.disc_opt = torch.optim.Adam(self.discriminator.parameters(), lr=self.opts.lr)
        self.buffer = ReplayBuffer(self.obs_dim, self.action_dim)
        self.task_returns: list[list[float]] = [[] for _ in range(self.n)]
        self.checkpoints: dict[int, SACPolicy] = {}
        self._gate = torch.zeros(self.n)
        self.episodes_used = 0
        self.steps_used = 0
        self._loop = _Loop(env_sim, "env_sim", self.generator)

    def diversity_reward(self, next_obs, skill) -> torch.Tensor:
        """log softmax_z d(s')[z] (<= 0) per row."""
        with torch.no_grad():
            return F.log_softmax(self.discriminator(next_obs), dim=-1).gather(-1, skill[:, None])[
                :, 0
            ]

    def solved(self) -> np.ndarray:
        """(n,) bool: the member's mean task return over its last ``window`` episodes reaches
        ``task_threshold``."""
        return np.array(
            [
                len(r) >= 1 and float(np.mean(r[-self.window :])) >= self.task_threshold
                for r in self.task_returns
            ]
        )

    def _update(self):
        if len(self.buffer) < max(self.opts.warmup_steps, 1):
            return
        if self.steps_used % self.opts.update_every:
            return
        b = self.buffer.sample(self.opts.batch_size, generator=self.generator)
        r = b["reward"]
        if self.alpha > 0 and self.n > 1:
            loss = F.cross_entropy(self.discriminator(b["next_obs"]), b["skill"])
            self.disc_opt.zero_grad()
            loss.backward()
            self.disc_opt.step()
            gate = self._gate[b["skill"]]
            r = r + self.alpha * gate * self.diversity_reward(b["next_obs"], b["skill"])
        self.agent.update(b, r)

    def fit(self, n_episodes) -> DiverseEnsembleSAC:
        """``n_episodes`` more simulated episodes (members in turn) with SAC updates."""
        n_ep = check_int(n_episodes, "n_episodes", minimum=1)

        def after():
            self.steps_used += 1
            self._update()

        for _ in range(n_ep):
            z = self.episodes_used % self.n
            random_actions = len(self.buffer) < self.opts.warmup_steps
            ret, _, _ = self._loop.episode(
                _actor_choice(self.agent, z, random_actions=random_actions),
                self.buffer,
                z,
                after,
            )
            self.task_returns[z].append(ret)
            self.episodes_used += 1
            self._gate = torch.as_tensor(self.solved(), dtype=torch.float32)
            if not random_actions and self.solved()[z]:
                self.checkpoints[z] = self.agent.policy(z, deterministic=False)
        return self

    def explorers(self, *, only_solved=True) -> list[SACPolicy]:
        """The stochastic policies of the members' last checkpoints that solved the task in
        simulation (``only_solved=False``: every member's current policy)."""
        if not check_bool(only_solved, "only_solved"):
            return [self.agent.policy(z, deterministic=False) for z in range(self.n)]
        return [self.checkpoints[z] for z in sorted(self.checkpoints)]

    def __repr__(self) -> str:
        return (
            f"DiverseEnsembleSAC(n={self.n}, alpha={self.alpha}, episodes={self.episodes_used}, "
            f"solved={int(self.solved().sum())})"
        )


def train_sac(
    env,
    *,
    n_episodes,
    hidden=64,
    gamma=0.9,
    lr=1e-3,
    batch_size=128,
    update_every=1,
    warmup_steps=500,
    generator=None,
) -> SAC:
    """Plain SAC on ``env``'s reward for ``n_episodes`` episodes (the simulator's optimum
    pi^{sim,*} when ``env`` is the simulator); returns the agent."""
    ens = DiverseEnsembleSAC(
        env,
        n=1,
        alpha=0.0,
        hidden=hidden,
        gamma=gamma,
        lr=lr,
        batch_size=batch_size,
        update_every=update_every,
        warmup_steps=warmup_steps,
        generator=generator,
    )
    ens.fit(n_episodes)
    return ens.agent


# --------------------------------------------------------------------------- real world


class RealWorldLearner:
    """SAC in the real environment on the data of transferred explorers.

    Each episode plays, with probability ``explore_prob``, an explorer drawn uniformly from
    ``explorers`` (objects with ``act(obs, h, rng)``), else the learner's own stochastic policy;
    every transition goes to one replay buffer, and SAC (task reward) takes
    one SAC step every ``update_every`` real steps once ``warmup_steps`` are stored.
    ``sac_init``: a :class:`SAC` agent (e.g. trained in simulation) whose networks start the
    learner. ``fit(n_episodes)`` returns self; ``policy`` is the learner's deterministic
    policy; ``returns``/``explored`` record every real episode."""

    def __init__(
        self,
        env_real,
        explorers,
        *,
        sac_init=None,
        explore_prob=0.5,
        hidden=64,
        gamma=0.9,
        lr=1e-3,
        batch_size=128,
        update_every=1,
        warmup_steps=500,
        generator=None,
    ):
        self.obs_dim, self.action_dim = _env_dims(env_real, "env_real")
        self.env_real = env_real
        if not isinstance(explorers, list | tuple):
            raise TypeError(f"explorers must be a list of policies, got {describe(explorers)}")
        for i, e in enumerate(explorers):
            if not callable(getattr(e, "act", None)):
                raise TypeError(f"explorers[{i}] must have act(obs, h, rng), got {describe(e)}")
        self.explorers = list(explorers)
        self.explore_prob = check_probability(explore_prob, "explore_prob")
        self.opts = _opts(hidden, gamma, lr, batch_size, update_every, warmup_steps)
        self.generator = _new_generator(check_generator(generator))
        self._np_rng = np.random.default_rng(_seed_from(self.generator))
        if sac_init is not None and not isinstance(sac_init, SAC):
            raise TypeError(f"sac_init must be None or a SAC agent, got {describe(sac_init)}")
        self.agent = SAC(
            self.obs_dim,
            self.action_dim,
            hidden=sac_init.hidden if sac_init is not None else self.opts.hidden,
            gamma=self.opts.gamma,
            lr=self.opts.lr,
            batch_size=self.opts.batch_size,
            generator=self.generator,
        )
        if sac_init is not None:
            if sac_init.n_skills != 1:
                raise ValueError(f"sac_init must have n_skills=1, got {sac_init.n_skills}")
            self.agent.load_from(sac_init)
        self.buffer = ReplayBuffer(self.obs_dim, self.action_dim)
        self.returns: list[float] = []
        self.explored: list[bool] = []
        self.steps_used = 0
        self._loop = _Loop(env_real, "env_real", self.generator)

    @property
    def episodes_used(self) -> int:
        return len(self.returns)

    @property
    def policy(self) -> SACPolicy:
        return self.agent.policy(0, deterministic=True)

    def _update(self):
        self.steps_used += 1
        if len(self.buffer) < max(self.opts.warmup_steps, 1):
            return
        if self.steps_used % self.opts.update_every == 0:
            self.agent.update(self.buffer.sample(self.opts.batch_size, generator=self.generator))

    def fit(self, n_episodes) -> RealWorldLearner:
        """``n_episodes`` more real episodes (each counted in ``episodes_used``)."""
        n_ep = check_int(n_episodes, "n_episodes", minimum=1)
        for _ in range(n_ep):
            u = float(torch.rand((), generator=self.generator))
            explore = bool(self.explorers) and u < self.explore_prob
            if explore:
                k = int(torch.randint(0, len(self.explorers), (1,), generator=self.generator))
                choose = _policy_choice(self.explorers[k], self._np_rng)
            else:
                choose = _actor_choice(self.agent, 0)
            ret, _, _ = self._loop.episode(choose, self.buffer, 0, self._update)
            self.returns.append(ret)
            self.explored.append(explore)
        return self

    def __repr__(self) -> str:
        return f"RealWorldLearner(explorers={len(self.explorers)}, episodes={self.episodes_used})"


@dataclass(frozen=True)
class SACTransferInfo:
    """What a SAC transfer did: real ``episodes_used`` (= n_episodes), simulated
    ``sim_episodes``, ``n_explorers`` kept, the real ``returns`` (n_episodes,) and which episodes
    an explorer played (``explored``), the learner (:class:`RealWorldLearner`), and
    ``sim_policy``: the simulator-trained policy before any real data (direct transfer only,
    else None)."""

    episodes_used: int
    sim_episodes: int
    n_explorers: int
    returns: np.ndarray
    explored: np.ndarray
    learner: RealWorldLearner
    sim_policy: SACPolicy | None = None


def _info(learner, sim_episodes, n_explorers, sim_policy=None):
    return SACTransferInfo(
        sim_policy=sim_policy,
        episodes_used=learner.episodes_used,
        sim_episodes=sim_episodes,
        n_explorers=n_explorers,
        returns=np.array(learner.returns),
        explored=np.array(learner.explored, dtype=bool),
        learner=learner,
    )


def sac_exploration_transfer(
    sim_env,
    real_env,
    *,
    n_episodes,
    n_policies=15,
    sim_episodes=600,
    alpha=0.1,
    task_threshold=0.5,
    explore_prob=0.5,
    hidden=64,
    gamma=0.9,
    lr=1e-3,
    batch_size=128,
    update_every=1,
    generator=None,
):
    """The practical exploration-policy transfer: a :class:`DiverseEnsembleSAC` of
    ``n_policies`` trained for ``sim_episodes`` simulated episodes, its solving checkpoints
    handed to a :class:`RealWorldLearner` (from scratch) for ``n_episodes`` real episodes.
    Returns ``(policy, info)``: the learner's deterministic :class:`SACPolicy` and a
    :class:`SACTransferInfo`."""
    _env_dims(sim_env, "sim_env")
    _env_dims(real_env, "real_env")
    n_ep = check_int(n_episodes, "n_episodes", minimum=1)
    n_sim = check_int(sim_episodes, "sim_episodes", minimum=1)
    check_int(n_policies, "n_policies", minimum=1)
    check_float(alpha, "alpha", minimum=0.0)
    check_float(task_threshold, "task_threshold")
    check_probability(explore_prob, "explore_prob")
    _opts(hidden, gamma, lr, batch_size, update_every, 0)
    g = _new_generator(check_generator(generator))
    common = dict(
        hidden=hidden, gamma=gamma, lr=lr, batch_size=batch_size, update_every=update_every
    )
    ens = DiverseEnsembleSAC(
        sim_env,
        n=n_policies,
        alpha=alpha,
        task_threshold=task_threshold,
        generator=g,
        **common,
    ).fit(n_sim)
    explorers = ens.explorers()
    learner = RealWorldLearner(
        real_env, explorers, explore_prob=explore_prob, generator=g, **common
    ).fit(n_ep)
    return learner.policy, _info(learner, n_sim, len(explorers))


def sac_direct_transfer(
    sim_env,
    real_env,
    *,
    n_episodes,
    sim_episodes=300,
    hidden=64,
    gamma=0.9,
    lr=1e-3,
    batch_size=128,
    update_every=1,
    generator=None,
):
    """The baseline: SAC trained in simulation (pi^{sim,*}) and fine-tuned with SAC on its own
    real episodes (``n_episodes`` of them). Returns ``(policy, info)`` like
    :func:`sac_exploration_transfer`; ``info.learner.agent`` is the fine-tuned agent."""
    _env_dims(sim_env, "sim_env")
    _env_dims(real_env, "real_env")
    n_ep = check_int(n_episodes, "n_episodes", minimum=1)
    n_sim = check_int(sim_episodes, "sim_episodes", minimum=1)
    _opts(hidden, gamma, lr, batch_size, update_every, 0)
    g = _new_generator(check_generator(generator))
    common = dict(
        hidden=hidden, gamma=gamma, lr=lr, batch_size=batch_size, update_every=update_every
    )
    sim_agent = train_sac(sim_env, n_episodes=n_sim, generator=g, **common)
    sim_policy = sim_agent.policy()
    learner = RealWorldLearner(
        real_env, [], sac_init=sim_agent, explore_prob=0.0, generator=g, **common
    ).fit(n_ep)
    return learner.policy, _info(learner, n_sim, 0, sim_policy)
