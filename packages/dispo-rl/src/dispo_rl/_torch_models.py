"""The neural outcome models of DiSPO and the one-step dynamics MLP (the ``[torch]`` extra).

Imported only when ``DiSPO(model="gmm" | "diffusion")`` or ``OneStepModelMPC`` is fitted, never
by ``import dispo_rl``.

Both outcome models are conditional generative models of the *joint* law of (psi, a) given s:
p(psi, a | s) = p(psi | s) pi(a | s, psi), the paper's outcome model and readout policy in one
(the readout's training pair is the same (s, psi_tgt, a) as the outcome model's). They work in a
scaled space: x = psi / m with m = max_data |phi| / (1 - gamma) per feature (so x lies in
[-1, 1]), and actions mapped to [-1, 1] by the data's bounds (discrete actions: one-hot).
Training is the paper's distributional Bellman bootstrap: for a batch of dataset transitions
(s, a, s', done), x' ~ p_ema(. | s') from an EMA copy, x_tgt = phi(s) / m + gamma (1 - done) x',
and a maximum-likelihood (GMM) or denoising (DDPM) step on (x_tgt, a) given s.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

from ._checks import check_float, check_int
from ._optim import AdamW

__all__ = ["DiffusionOutcomeModel", "GaussianMixtureOutcomeModel"]


def _check_hidden(hidden):
    if not isinstance(hidden, list | tuple):
        raise TypeError(f"hidden must be a tuple of layer widths, got {type(hidden).__name__}")
    return tuple(check_int(h, "hidden", minimum=1) for h in hidden)


def _mlp(sizes, out_act=None):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.SiLU())
    if out_act is not None:
        layers.append(out_act)
    return nn.Sequential(*layers)


def _cosine(step, steps, final=0.1):
    """Cosine decay of the learning rate from 1 to ``final`` (times the base rate)."""
    return final + (1 - final) * 0.5 * (1 + math.cos(math.pi * step / max(steps, 1)))


class _Codec:
    """Scaling of observations (standardised), outcomes (x = psi / m) and actions ([-1, 1] or
    one-hot) between numpy and the networks."""

    def __init__(self, data, phi, gamma):
        obs = data["observations"]
        self.obs_mean = obs.mean(0)
        sd = obs.std(0)
        self.obs_std = np.where(sd > 0, sd, 1.0)
        bound = np.abs(phi).max(0)
        self.m = np.where(bound > 0, bound, 1.0) / (1.0 - gamma)
        a = data["actions"]
        self.discrete = a.ndim == 1 and a.dtype.kind in "iu"
        if self.discrete:
            self.n_actions = int(a.max()) + 1
            self.act_dim = self.n_actions
            self.act_shape = ()
        else:
            a2 = a.reshape(len(a), -1).astype(float)
            self.act_shape = a.shape[1:]
            lo, hi = a2.min(0), a2.max(0)
            self.a_mid = (lo + hi) / 2
            half = (hi - lo) / 2
            self.a_half = np.where(half > 0, half, 1.0)
            self.act_dim = a2.shape[1]

    def obs(self, obs):
        return torch.as_tensor((obs - self.obs_mean) / self.obs_std, dtype=torch.float32)

    def actions(self, a):
        if self.discrete:
            return torch.nn.functional.one_hot(
                torch.as_tensor(a, dtype=torch.int64), self.n_actions
            ).float()
        a2 = a.reshape(len(a), -1).astype(float)
        return torch.as_tensor((a2 - self.a_mid) / self.a_half, dtype=torch.float32)

    def decode_actions(self, z):
        z = z.detach().cpu().numpy()
        if self.discrete:
            return z.argmax(-1)
        a = self.a_mid + self.a_half * np.clip(z, -1.0, 1.0)
        return a.reshape(*z.shape[:-1], *self.act_shape)

    def psi(self, x):
        return x.detach().cpu().double().numpy() * self.m


class _NeuralOutcomeModel:
    """Shared training loop: EMA target, AdamW, gradient clipping, bootstrapped targets."""

    def __init__(self, *, hidden, lr, batch_size, ema, weight_decay=1e-6):
        self.hidden = _check_hidden(hidden)
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self.ema = check_float(ema, "ema", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(hidden={self.hidden}, lr={self.lr}, ema={self.ema})"

    # subclasses: _build(obs_dim, d, act_dim), _loss(cond, z), _sample(net, cond, n, guide)
    def fit(self, data, phi_src, gamma, steps, seed):
        """``phi_src``: phi(s) of every dataset observation (N, d), numpy."""
        self.codec = c = _Codec(data, phi_src, gamma)
        self.gamma = gamma
        self.d = phi_src.shape[1]
        self.gen = torch.Generator().manual_seed(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.net = self._build(len(c.obs_mean), self.d, c.act_dim)
        self.target = copy.deepcopy(self.net).requires_grad_(False)
        s = c.obs(data["observations"])
        s2 = c.obs(data["next_observations"])
        x_phi = torch.as_tensor(phi_src / c.m, dtype=torch.float32)
        a = c.actions(data["actions"])
        cont = torch.as_tensor(1.0 - data["terminals"].astype(float), dtype=torch.float32)
        n = len(s)
        opt = AdamW(
            self.net.parameters(), self.lr, weight_decay=self.weight_decay, max_grad_norm=1.0
        )
        bs = min(self.batch_size, n)
        self.losses = []
        for step in range(steps):
            opt.lr = self.lr * _cosine(step, steps)
            i = torch.randint(0, n, (bs,), generator=self.gen)
            with torch.no_grad():
                x_next = self._sample(self.target, s2[i], 1, None)[:, 0, : self.d]
            z = torch.cat([x_phi[i] + gamma * cont[i, None] * x_next, a[i]], dim=1)
            loss = self._loss(s[i], z)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                for p, q in zip(self.target.parameters(), self.net.parameters()):
                    p.lerp_(q, 1.0 - self.ema)
            self.losses.append(float(loss.detach()))
        return self

    def sample(self, obs, n, *, w=None, guidance=0.0, clip=False):
        """n joint samples per observation: psi (B, n, d) numpy, actions (B, n, ...) numpy.

        ``w``, ``guidance``: draw from the law tilted towards exp(guidance * w^T psi);
        ``clip``: project the outcomes onto the box they must lie in, |psi_j| <= m_j."""
        c = self.codec
        guide = None
        if w is not None and guidance > 0:
            # gradient of guidance * w^T psi(x) in the scaled space x = psi / m
            guide = torch.as_tensor(guidance * w * c.m, dtype=torch.float32)
        out_psi, out_a = [], []
        s = c.obs(obs)
        chunk = max(1, 65536 // n)
        with torch.no_grad():
            for lo in range(0, len(s), chunk):
                z = self._sample(self.target, s[lo : lo + chunk], n, guide)
                if clip:
                    z[..., : self.d] = z[..., : self.d].clamp(-1.0, 1.0)
                out_psi.append(c.psi(z[..., : self.d]))
                out_a.append(c.decode_actions(z[..., self.d :]))
        return np.concatenate(out_psi), np.concatenate(out_a)


class GaussianMixtureOutcomeModel(_NeuralOutcomeModel):
    """A mixture-density network: s -> K diagonal Gaussians over (x, a). Guided sampling is the
    exact exponential tilt p(x, a) exp(g^T x) of the mixture: weights pi_k exp(g^T mu_k +
    |sigma_k g|^2 / 2), means mu_k + sigma_k^2 g on the outcome part, actions untouched
    (independent of x within a component); samples are then clipped to [-1, 1], the range
    outcomes lie in, when planning. Standard deviations lie in [min_std, e] (scaled units)."""

    def __init__(
        self,
        *,
        n_components=8,
        hidden=(256, 256),
        lr=1e-3,
        batch_size=256,
        ema=0.995,
        min_std=0.01,
    ):
        super().__init__(hidden=hidden, lr=lr, batch_size=batch_size, ema=ema)
        self.n_components = check_int(n_components, "n_components", minimum=1)
        self.min_log_std = float(
            np.log(check_float(min_std, "min_std", minimum=0.0, min_inclusive=False))
        )

    def _build(self, obs_dim, d, act_dim):
        self.D = d + act_dim
        K = self.n_components
        return _mlp([obs_dim, *self.hidden, K * (1 + 2 * self.D)])

    def _params(self, net, cond):
        K, D = self.n_components, self.D
        out = net(cond)
        logits = out[:, :K]
        mu = out[:, K : K + K * D].view(-1, K, D)
        log_sd = out[:, K + K * D :].view(-1, K, D).clamp(self.min_log_std, 1.0)
        return logits, mu, log_sd

    def _loss(self, cond, z):
        logits, mu, log_sd = self._params(self.net, cond)
        zz = z[:, None, :]
        logp = (-0.5 * ((zz - mu) / log_sd.exp()) ** 2 - log_sd - 0.5 * math.log(2 * math.pi)).sum(
            -1
        )
        return -(torch.logsumexp(torch.log_softmax(logits, -1) + logp, -1)).mean()

    def _sample(self, net, cond, n, guide):
        logits, mu, log_sd = self._params(net, cond)
        sd = log_sd.exp()
        logw = torch.log_softmax(logits, -1)
        if guide is not None:
            d = len(guide)
            gs = sd[..., :d] * guide
            logw = logw + mu[..., :d] @ guide + 0.5 * (gs**2).sum(-1)
            shift = torch.zeros_like(mu)
            shift[..., :d] = sd[..., :d] ** 2 * guide
            mu = mu + shift
        B, K, D = mu.shape
        k = torch.multinomial(torch.softmax(logw, -1), n, replacement=True, generator=self.gen)
        idx = k[..., None].expand(B, n, D)
        m, s = mu.gather(1, idx), sd.gather(1, idx)
        return m + s * torch.randn(B, n, D, generator=self.gen)


class DiffusionOutcomeModel(_NeuralOutcomeModel):
    """A conditional DDPM over (x, a) with an MLP denoiser eps(z_t, t, s) (sinusoidal time
    embedding), the VP-SDE's discretised linear schedule (beta_min 0.1, beta_max 20 over
    ``n_diffusion_steps``), DDIM sampling with eta = 0 in ``n_inference_steps`` and the
    predicted z_0 clipped to [-1, 1], as in the paper's code. Guidance adds g to the score of the
    outcome part at every step (eps <- eps - sqrt(1 - alpha_bar_t) g), the paper's guided
    diffusion with g = guidance * w * m."""

    def __init__(
        self,
        *,
        hidden=(256, 256, 256),
        n_diffusion_steps=100,
        n_inference_steps=10,
        lr=1e-3,
        batch_size=256,
        ema=0.995,
        time_dim=32,
    ):
        super().__init__(hidden=hidden, lr=lr, batch_size=batch_size, ema=ema)
        self.T = check_int(n_diffusion_steps, "n_diffusion_steps", minimum=2)
        n_inf = check_int(n_inference_steps, "n_inference_steps", minimum=1)
        if n_inf > self.T:
            raise ValueError(
                f"n_inference_steps must be <= n_diffusion_steps = {self.T}, got {n_inf}"
            )
        self.n_inference_steps = n_inf
        self.time_dim = 2 * check_int(time_dim, "time_dim", minimum=2) // 2
        i = torch.arange(self.T, dtype=torch.float64)
        beta = 0.1 / self.T + i / (self.T * max(self.T - 1, 1)) * (20.0 - 0.1)
        self.alpha_bar = torch.cumprod(1 - beta, 0).float()
        self.ts = torch.linspace(self.T - 1, 0, self.n_inference_steps).round().long()

    def _build(self, obs_dim, d, act_dim):
        self.D = d + act_dim
        return _mlp([self.D + self.time_dim + obs_dim, *self.hidden, self.D])

    def _embed(self, t):
        half = self.time_dim // 2
        f = torch.exp(-math.log(1000.0) * torch.arange(half, dtype=torch.float32) / half)
        arg = t.float()[:, None] * f[None]
        return torch.cat([arg.sin(), arg.cos()], -1)

    def _eps(self, net, z, t, cond):
        return net(torch.cat([z, self._embed(t), cond], -1))

    def _loss(self, cond, z):
        t = torch.randint(0, self.T, (len(z),), generator=self.gen)
        ab = self.alpha_bar[t, None]
        e = torch.randn(z.shape, generator=self.gen)
        zt = ab.sqrt() * z + (1 - ab).sqrt() * e
        return ((self._eps(self.net, zt, t, cond) - e) ** 2).mean()

    def _sample(self, net, cond, n, guide):
        B = len(cond)
        c = cond.repeat_interleave(n, 0)
        z = torch.randn(B * n, self.D, generator=self.gen)
        ts = self.ts.tolist()
        for j, t in enumerate(ts):
            ab = self.alpha_bar[t]
            ab_prev = self.alpha_bar[ts[j + 1]] if j + 1 < len(ts) else torch.tensor(1.0)
            e = self._eps(net, z, torch.full((B * n,), t), c)
            if guide is not None:
                e = e.clone()
                e[:, : len(guide)] -= (1 - ab).sqrt() * guide
            z0 = ((z - (1 - ab).sqrt() * e) / ab.sqrt()).clamp(-1.0, 1.0)
            e = (z - ab.sqrt() * z0) / (1 - ab).sqrt()
            z = ab_prev.sqrt() * z0 + (1 - ab_prev).sqrt() * e
        return z.view(B, n, self.D)


class DynamicsMLP:
    """s' = s + f(s, a): an MLP on standardised (s, a) predicting the standardised change,
    fitted by mean squared error (the one-step model of ``OneStepModelMPC``)."""

    def __init__(self, *, hidden=(256, 256), lr=1e-3, batch_size=256):
        self.hidden = _check_hidden(hidden)
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)

    def fit(self, obs, act, nxt, steps, seed):
        x = np.concatenate([obs, act], 1)
        dy = nxt - obs
        self.x_mean, self.x_std = x.mean(0), np.where(x.std(0) > 0, x.std(0), 1.0)
        self.y_mean, self.y_std = dy.mean(0), np.where(dy.std(0) > 0, dy.std(0), 1.0)
        X = torch.as_tensor((x - self.x_mean) / self.x_std, dtype=torch.float32)
        Y = torch.as_tensor((dy - self.y_mean) / self.y_std, dtype=torch.float32)
        gen = torch.Generator().manual_seed(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.net = _mlp([X.shape[1], *self.hidden, Y.shape[1]])
        opt = AdamW(self.net.parameters(), self.lr, weight_decay=0.0)
        bs = min(self.batch_size, len(X))
        self.losses = []
        for _ in range(steps):
            i = torch.randint(0, len(X), (bs,), generator=gen)
            loss = ((self.net(X[i]) - Y[i]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            self.losses.append(float(loss.detach()))
        self.net.requires_grad_(False)
        return self

    def predict(self, obs, act):
        x = np.concatenate([obs, act], -1)
        X = torch.as_tensor((x - self.x_mean) / self.x_std, dtype=torch.float32)
        with torch.no_grad():
            dy = self.net(X).double().numpy()
        return obs + self.y_mean + self.y_std * dy
