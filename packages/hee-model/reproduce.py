"""Reproduce the headline claims of Neural Sampling in Hierarchical Exponential-family
Energy-based Models (Dong & Wu, NeurIPS 2023) at small scale: the brief's checks 1-6.

    python reproduce.py [--quick] [--full] [--json PATH]

1. Fast neurons (interneurons) estimate the log-partition gradient A'(eta): running mean of T over
   2000 fast steps vs the closed form (Gaussian: 2% relative; Bernoulli: 0.01 absolute).
2. Inference samples the exact posterior: linear-Gaussian model d0 = 8, d1 = 3, known W;
   20 000 samples after burn-in (2000 chains x 10, thinned) vs the closed-form Gaussian posterior,
   5% relative Frobenius error, with interneurons (default tau_fast = 0.1 and tau_fast = 0.01)
   and with the exact grad_A.
3. Local learning = maximum likelihood: data from a linear-Gaussian model (d0 = 10, d1 = 3,
   5000 samples, noise sigma = 1); held-out log-likelihood after `learn` (no negative phase) vs
   the closed-form ML at the same sigma and scikit-learn's `PCA(3).score`, within 2%.
4. Adaptation as momentum: steps until the running posterior-mean error stays below 0.1 on a
   2-D Gaussian posterior with condition number 100, same step size; median over 20 runs.
5. Marginal vs joint generation: 64-32-16 HEE (Gaussian conditionals, tanh) trained on sklearn
   digits; MMD (RBF, median heuristic) to held-out digits, marginal < joint in most seeds.
6. V1-like filters: one layer, Laplace prior, 8x8 whitened natural patches; fraction of filters
   (columns of W) with Gabor-fit R^2 > 0.6.

Default: about three minutes on 2 loaded cores; --full: the brief's scale for 5 (5 seeds,
1000 samples, joint generation with interneurons) and longer training for 6; --quick: seconds
(smoke test, most claims not checkable).
"""

from __future__ import annotations

import math
import time

import hee_model as hm
import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli

torch.set_num_threads(1)  # tiny tensors: intra-op threads only contend on a loaded machine
F64 = torch.float64


# ----------------------------------------------------------------------------- 1. fast neurons
def claims_fast(args):
    steps = 200 if args.quick else 2000
    g = torch.Generator().manual_seed(0)
    eta = torch.randn(10, generator=g, dtype=F64)
    out = {}
    # the Bernoulli jump process is exact for any step: 0.5 (refresh probability 0.39) keeps the
    # Monte Carlo error of a 2000-step mean well below 0.01 (at 0.1 its s.e. is about 0.005)
    for name, fam, dt in (
        ("gaussian", hm.GaussianFixedVar(1.0), 0.1),
        ("bernoulli", hm.Bernoulli(), 0.5),
    ):
        e = eta.expand(100, 10)
        x = fam.sample(e, generator=g)  # the fast neurons start at an exact draw (as in infer)
        acc = torch.zeros_like(e)
        for _ in range(steps):
            x = fam.fast_step(x, e, dt=dt, generator=g)
            acc += fam.T(x)
        est, exact = (acc / steps).mean(0), fam.grad_A(eta)
        out[name] = (
            float((est - exact).norm() / exact.norm()),
            float((est - exact).abs().max()),
        )
    rel, worst = out["gaussian"][0], out["bernoulli"][1]
    # (claim, paper, measured, error, tolerance, note): one row per family
    for claim, paper, measured, err, tol, note in (
        (
            "fast Langevin neurons estimate A'(eta) (Gaussian, within 2%)",
            "T(x_fast) samples the gradient of the decomposed normaliser",
            f"relative error {100 * rel:.2f}%",
            rel,
            0.02,
            f"d = 10, eta ~ N(0, I), sigma = 1, fast step 0.1, {steps} steps, mean of 100 chains",
        ),
        (
            "fast jump neurons estimate A'(eta) = sigmoid(eta) (Bernoulli, within 0.01)",
            "as above",
            f"max abs error {worst:.4f}",
            worst,
            0.01,
            f"refresh rate 1, fast step 0.5 (exact jump process), {steps} steps, 100 chains",
        ),
    ):
        holds = None if args.quick else err < tol
        yield Claim(claim, paper=paper, measured=measured, holds=holds, note=note)


# ----------------------------------------------------------------------------- 2. posterior
def _posterior_model():
    g = torch.Generator().manual_seed(1)
    m = hm.HEE([8, 3], families=[hm.GaussianFixedVar(1.0)], generator=g)
    m.W[0] = 0.5 * torch.randn(8, 3, generator=g, dtype=F64)
    m.b[0] = 0.1 * torch.randn(8, generator=g, dtype=F64)
    x0 = torch.randn(1, 8, generator=g, dtype=F64) + 1.0
    return m, x0


def claims_posterior(args):
    m, x0 = _posterior_model()
    post = hm.linear_gaussian_posterior(m, x0)
    chains, burn, keep, thin = (100, 100, 2, 20) if args.quick else (2000, 300, 10, 50)
    rows = []
    for label, kw in (
        ("interneurons, tau_fast = 0.1 (default)", dict(interneurons=True)),
        ("interneurons, tau_fast = 0.01", dict(interneurons=True, tau_fast=0.01)),
        ("exact grad_A", dict(interneurons=False)),
    ):
        res = hm.infer(m, x0.expand(chains, -1), n_steps=burn + keep * thin, dt=0.01,
                       generator=torch.Generator().manual_seed(2), **kw)  # fmt: skip
        s = res.samples[0][burn + thin - 1 :: thin].reshape(-1, 3)
        e_mean = float((s.mean(0) - post.mean[0]).norm() / post.mean[0].norm())
        e_cov = float((torch.cov(s.T) - post.cov).norm() / post.cov.norm())
        rows.append((label, e_mean, e_cov, s.shape[0]))
    for label, e_mean, e_cov, n in rows:
        yield Claim(
            f"neural sampling matches the exact Gaussian posterior ({label})",
            paper="samples the posterior (5% relative Frobenius, brief)",
            measured=f"mean error {100 * e_mean:.1f}%, covariance error {100 * e_cov:.1f}%",
            holds=None if args.quick else (e_mean < 0.05 and e_cov < 0.05),
            note=f"d0 = 8, d1 = 3, dt = 0.01, {n} samples after {burn} burn-in steps",
        )


# ----------------------------------------------------------------------------- 3. learning
def _ppca_ml(X, q, s2):
    S = np.cov(X.T, bias=True)
    lam, U = np.linalg.eigh(S)
    lam = np.r_[np.maximum(lam[::-1][:q], s2), np.full(len(lam) - q, s2)]
    return X.mean(0), U[:, ::-1] @ np.diag(lam) @ U[:, ::-1].T


def _avg_loglik(X, mean, C):
    d = X - mean
    quad = np.einsum("bi,ij,bj->b", d, np.linalg.inv(C), d).mean()
    return float(-0.5 * (quad + np.linalg.slogdet(C)[1] + X.shape[1] * math.log(2 * math.pi)))


def claims_learning(args):
    from sklearn.decomposition import PCA, FactorAnalysis

    rng = np.random.default_rng(3)
    d0, d1 = 10, 3
    n = 500 if args.quick else 5000
    Wt = rng.normal(size=(d0, d1))
    mu = rng.normal(size=d0)

    def draw(k):
        return rng.normal(size=(k, d1)) @ Wt.T + mu + rng.normal(size=(k, d0))

    X, Xte = draw(n), draw(2000)
    pca_score = float(PCA(d1).fit(X).score(Xte))
    fa_score = float(FactorAnalysis(d1, random_state=0).fit(X).score(Xte))
    ml = _avg_loglik(Xte, *_ppca_ml(X, d1, 1.0))
    epochs = 1 if args.quick else (10 if args.full else 3)
    batch, lr = (100, 0.02) if args.full or args.quick else (500, 0.05)
    for inter in (False, True):
        m = hm.HEE([d0, d1], families=[hm.GaussianFixedVar(1.0)],
                   generator=torch.Generator().manual_seed(4))  # fmt: skip
        t0 = time.perf_counter()
        hm.learn(m, X, epochs=epochs, lr=lr, batch_size=batch, interneurons=inter,
                 n_steps=10 if args.quick else 50, generator=torch.Generator().manual_seed(5))  # fmt: skip
        secs = time.perf_counter() - t0
        ll = float(hm.log_marginal(m, Xte).mean())
        gap_ml, gap_pca = (ml - ll) / abs(ml), (pca_score - ll) / abs(pca_score)
        how = "fast-neuron A'" if inter else "exact grad_A"
        yield Claim(
            f"local learning reaches the ML log-likelihood within 2% ({how})",
            paper="local in space and time, no negative phase, easy to converge",
            measured=(
                f"held-out LL {ll:.3f} vs ML at sigma {ml:.3f} ({100 * gap_ml:.2f}%) and "
                f"PCA.score {pca_score:.3f} ({100 * gap_pca:.2f}%); FactorAnalysis {fa_score:.3f}"
            ),
            holds=None if args.quick else max(gap_ml, gap_pca) < 0.02,
            note=(
                f"d0 = 10, d1 = 3, n = {n}, sigma = 1 fixed, {epochs} epochs, batch {batch}, "
                f"50 steps (updates after 16), dt = 0.05, lr = {lr}; {secs:.0f} s"
            ),
        )


# ----------------------------------------------------------------------------- 4. momentum
def claims_momentum(args):
    th = 0.5
    R = torch.tensor([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]], dtype=F64)
    m = hm.HEE([2, 2], families=[hm.GaussianFixedVar(1.0)])
    m.W[0] = R @ torch.diag(torch.tensor([1.0, math.sqrt(199.0)], dtype=F64)) @ R.T
    P = torch.eye(2, dtype=F64) + m.W[0].T @ m.W[0]
    x0 = torch.linalg.solve(m.W[0].T, P @ torch.tensor([3.0, -2.0], dtype=F64))[None]
    target = hm.linear_gaussian_posterior(m, x0).mean[0]
    runs, chains = (2, 5) if args.quick else (20, 20)
    n_steps = 300 if args.quick else 6000
    dt = 0.005

    def steps(momentum):
        r = hm.infer(m, x0.expand(runs * chains, -1), n_steps=n_steps, dt=dt, interneurons=False,
                     momentum=momentum, generator=torch.Generator().manual_seed(6))  # fmt: skip
        s = r.samples[0].reshape(n_steps, runs, chains, 2).mean(2)
        run = s.cumsum(0) / torch.arange(1, n_steps + 1, dtype=F64)[:, None, None]
        err = (run - target).norm(dim=2)  # [n_steps, runs]
        out = []
        for k in range(runs):
            bad = torch.nonzero(err[:, k] >= 0.1)
            out.append(int(bad[-1]) + 2 if len(bad) else 1)
        return np.array(out)

    plain, mom = steps(None), steps(0.1)
    med_p, med_m = float(np.median(plain)), float(np.median(mom))
    capped = int((plain > n_steps).sum())
    yield Claim(
        "adaptation (momentum) needs >= 2x fewer inference steps",
        paper="neural adaptation significantly accelerates inference",
        measured=(
            f"median steps {med_p:.0f} (Langevin) vs {med_m:.0f} (momentum 0.1): "
            f"{med_p / med_m:.1f}x" + (f"; {capped} runs never settled" if capped else "")
        ),
        holds=None if args.quick else med_p >= 2 * med_m,
        note=(
            f"2-D posterior, eigenvalues 2 and 200 (condition 100), dt = {dt}, exact grad_A; "
            f"{runs} runs of {chains} chains, running mean of the chains' average stays < 0.1"
        ),
    )


# ----------------------------------------------------------------------------- 5. generation
def claims_generation(args):
    from hee_model.data import sklearn_digits

    x, _ = sklearn_digits(dtype=torch.float32)
    if args.quick:
        seeds, epochs, n_gen, inter, n_train, n_joint = 1, 1, 50, False, 200, 50
    elif args.full:
        seeds, epochs, n_gen, inter, n_train, n_joint = 5, 8, 1000, True, 1297, 1000
    else:
        seeds, epochs, n_gen, inter, n_train, n_joint = 3, 2, 300, False, 1297, 1000
    wins, rows = 0, []
    for seed in range(seeds):
        perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(100 + seed))
        train, test = x[perm[:n_train]], x[perm[-500:]]
        g = torch.Generator().manual_seed(seed)
        m = hm.HEE([64, 32, 16], families=[hm.GaussianFixedVar(0.4), hm.GaussianFixedVar(1.0)],
                   nonlinearity="tanh", generator=g, dtype=torch.float32)  # fmt: skip
        hm.learn(m, train, epochs=epochs, lr=0.02, dt=0.03, generator=g)
        marg = hm.generate(m, n_gen, mode="marginal", generator=g)[0]
        joint = hm.generate(m, n_gen, mode="joint", n_steps=n_joint, dt=0.01, interneurons=inter,
                            generator=g)[0]  # fmt: skip
        mm, mj = hm.mmd_rbf(marg, test), hm.mmd_rbf(joint, test)
        rows.append((mm, mj))
        wins += mm < mj
    need = math.ceil(0.8 * seeds)
    yield Claim(
        "marginal generation beats joint generation (MMD to held-out digits)",
        paper="marginal outperforms joint (on par with other EBMs)",
        measured=f"marginal < joint in {wins}/{seeds} seeds; MMD^2 marginal/joint "
        + ", ".join(f"{a:.4f}/{b:.4f}" for a, b in rows),
        holds=None if args.quick else wins >= need,
        note=(
            f"64-32-16, sigma 0.4/1, tanh, {epochs} epochs, {n_gen} generated vs 500 held-out; "
            f"joint: {n_joint} steps of dt 0.01 from zero, "
            f"{'fast-neuron' if inter else 'exact'} A'; pass if >= {need}/{seeds}"
        ),
    )


# ----------------------------------------------------------------------------- 6. filters
def claims_filters(args):
    from hee_model.data import natural_patches

    n = 300 if args.quick else (10000 if args.full else 3000)
    epochs = 1 if args.quick else (6 if args.full else 2)
    X = natural_patches(size=8, n=n, rng=7)
    g = torch.Generator().manual_seed(8)
    m = hm.HEE([64, 64], families=[hm.GaussianFixedVar(0.5)], top_prior="laplace", generator=g)
    hm.learn(m, X, epochs=epochs, lr=0.01, dt=0.02, n_steps=10 if args.quick else 50, generator=g)
    W = m.W[0].T.reshape(64, 8, 8).numpy()
    k = 2 if args.quick else (64 if args.full else 16)
    r2 = np.array([hm.gabor_fit(w) for w in W[:k]])
    frac = float((r2 > 0.6).mean())
    from sklearn.decomposition import FastICA

    ica = FastICA(whiten=False, random_state=0, max_iter=30 if args.quick else 400, tol=1e-3)
    ica.fit(X.numpy())
    r2_ica = np.array([hm.gabor_fit(w.reshape(8, 8)) for w in ica.components_[:k]])
    frac_ica = float((r2_ica > 0.6).mean())
    yield Claim(
        "learned filters are V1-like (Gabor fit R^2 > 0.6 for a majority)",
        paper="representations akin to the biological visual system (qualitative)",
        measured=(
            f"HEE {100 * frac:.0f}% of {k} filters fitted (median R^2 {np.median(r2):.2f}); "
            f"FastICA baseline {100 * frac_ica:.0f}% (median {np.median(r2_ica):.2f})"
        ),
        holds=None if args.quick else frac > 0.5,
        note=(
            f"8x8 ZCA-whitened patches of the sklearn sample images, n = {n}, 64 units, "
            f"Laplace prior, sigma 0.5, {epochs} epochs, lr 0.01, dt 0.02"
        ),
    )


main = reproduce_cli(
    [
        claims_fast,
        claims_posterior,
        claims_learning,
        claims_momentum,
        claims_generation,
        claims_filters,
    ],  # fmt: skip
    full_help="the brief's scale for the generation check (5 seeds, 1000 samples, "
    "interneurons in joint generation) and longer training (several minutes)",
)
