"""Reproduce the headline claims of Consistency Models for Scalable and Fast Simulation-Based Inference (NeurIPS 2024) at small scale.

    python reproduce.py [--quick] [--full] [--json PATH]

1. Parameterisation facts: f(theta, eps, x) = theta exactly (random networks, float32); the
   Karras grid's endpoints are eps and T; N(k) for s0 = 10, s1 = 50, K = 1000 is 11, 21, 41, 51
   at k = 0, 301, 602, 903.
2. Conjugate Gaussian (theta ~ N(0, I_2), x ~ N(theta, 0.5^2 I)): posterior-mean RMSE (prior
   s.d. units), posterior s.d. ratio and SBC chi-square p-values against the closed form.
3. Two moons, budget 4096, CPU-sized training (100 epochs, lr 1e-3 with the authors' cosine
   decay; the paper: 5000 epochs at 5e-4), x_obs = (0, 0): C2ST of 10-step sampling against
   the analytic reference <= 0.75, and 1-step sampling worse than 10-step (U-shape, left arm).
4. Speed: wall time per posterior draw, CMPE with 10 steps vs FMPE with 1000 Euler steps on the
   same MLP (paper: orders of magnitude; brief: >= 20x); sbi's NPE (MAF) timed beside them.
5. Low budget, bimodal GMM (10 i.i.d. observations, DeepSet summary trained jointly), budgets
   512 and 2048: C2ST against the exact reference of CMPE (10 steps) vs FMPE (same network and
   epochs) vs sbi's NPE (masked affine autoregressive flow with the same DeepSet embedding).

Default: CPU-sized training (a few minutes on 2 idle cores); --full: the paper's two-moons
training length (5000 epochs at lr 5e-4, hours on a CPU); --quick: seconds (claims not
checkable).
sbi (in the bench dependency group) is needed for the NPE rows; without it they are not run.
"""

from __future__ import annotations

import tempfile
import warnings

import cmpe
import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli, timeit_ms

torch.set_num_threads(1)  # small tensors: intra-op threads only contend on a loaded machine


def _folds(args):
    return 2 if args.quick else 5  # sbibm's 5-fold C2ST; 2 folds in the smoke run


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def claims_parameterisation(args):
    torch.manual_seed(0)
    worst = 0.0
    for d, c in ((1, 1), (2, 2), (4, 10)):
        m = cmpe.ConsistencyPosterior(
            d, c, width=64, sigma2=float(np.random.default_rng(d).uniform(0.1, 5))
        )
        for p in m.parameters():
            torch.nn.init.normal_(p, std=2.0)
        theta, x = 5 * torch.randn(256, d), torch.randn(256, c)
        with torch.no_grad():
            worst = max(worst, float((m.consistency(theta, m.eps, x) - theta).abs().max()))
    grid = cmpe.karras_grid(1e-3, 10.0, 11)
    n_k = [cmpe.discretization_steps(k, 1000, s0=10, s1=50) for k in (0, 301, 602, 903)]
    yield Claim(
        "boundary condition f(theta, eps, x) = theta",
        paper="exact by construction",
        measured=f"max |f - theta| = {worst:.1e} (float32, random nets)",
        holds=worst == 0.0,
    )
    yield Claim(
        "Karras grid endpoints; N(k) schedule at k = 0, 301, 602, 903 (K = 1000)",
        paper="eps, T; 11, 21, 41, 51",
        measured=f"{grid[0]:g}, {grid[-1]:g}; {', '.join(map(str, n_k))}",
        holds=grid[0] == 1e-3 and grid[-1] == 10.0 and n_k == [11, 21, 41, 51],
    )


def claims_conjugate(args):
    m_sims, epochs, width = (256, 2, 32) if args.quick else (4096, 30, 256)
    theta, x = cmpe.gaussian_conjugate(m_sims, rng=0)
    torch.manual_seed(0)
    model = cmpe.ConsistencyPosterior(2, 2, width=width)
    hist = model.fit(theta, x, epochs=epochs, generator=_gen(0))
    theta_o, x_o = cmpe.gaussian_conjugate(200, rng=1)
    s = model.sample(x_o, 199, n_steps=10, generator=_gen(1)).numpy()
    mean, var = cmpe.gaussian_conjugate_posterior(x_o)
    rmse = float(np.sqrt(((s.mean(1) - mean) ** 2).mean()))
    ratio = float(s.std(1).mean() / np.sqrt(var))
    p = cmpe.sbc_chi2(cmpe.sbc_ranks(theta_o, s), 199, bins=10)
    setting = f"{m_sims} sims, {hist.n_steps} steps in {hist.seconds:.0f} s; 200 test x"
    checkable = not args.quick
    yield Claim(
        "conjugate Gaussian: posterior-mean RMSE (prior s.d. units)",
        paper="< 0.1 (brief)",
        measured=f"{rmse:.3f}",
        holds=(rmse < 0.1) if checkable else None,
        note=setting,
    )
    yield Claim(
        "conjugate Gaussian: posterior s.d. ratio",
        paper="in [0.8, 1.25] (brief)",
        measured=f"{ratio:.3f}",
        holds=(0.8 <= ratio <= 1.25) if checkable else None,
    )
    yield Claim(
        "conjugate Gaussian: SBC ranks uniform (chi-square p per coordinate)",
        paper="p > 0.01 (brief)",
        measured=", ".join(f"{v:.3f}" for v in p),
        holds=bool(np.all(p > 0.01)) if checkable else None,
        note="199 draws per test x, 10 bins",
    )


def claims_two_moons(args):
    # CPU-sized default: 100 epochs at lr 1e-3 (cosine decay); --full: the paper's 5000 at 5e-4
    if args.quick:
        m_sims, epochs, lr, n_draws = 256, 1, 1e-3, 60
    elif args.full:
        m_sims, epochs, lr, n_draws = 4096, 5000, 5e-4, 4000
    else:
        m_sims, epochs, lr, n_draws = 4096, 100, 1e-3, 1000
    theta, x = cmpe.two_moons(m_sims, rng=0)
    torch.manual_seed(0)
    model = cmpe.ConsistencyPosterior(2, 2)  # the paper's two-moons settings are the defaults
    hist = model.fit(theta, x, epochs=epochs, lr=lr, generator=_gen(0))
    x_obs = np.zeros((1, 2))
    ref = cmpe.two_moons_reference(x_obs[0], n_draws, rng=1)
    scores = {}
    for steps in (1, 10):
        s = model.sample(x_obs, n_draws, n_steps=steps, generator=_gen(2))[0].numpy()
        scores[steps] = cmpe.c2st(ref, s, folds=_folds(args))
    checkable = not args.quick
    setting = (
        f"{m_sims} sims, {epochs} epochs at lr {lr:g} ({hist.n_steps} steps, {hist.seconds:.0f} s);"
        f" {n_draws} draws"
    )
    yield Claim(
        "two moons (budget 4096): C2ST of 10-step CMPE vs analytic reference",
        paper="<= 0.75 (brief, CPU-sized); paper's best-in-class at 4096 with 5000 epochs",
        measured=f"{scores[10]:.3f}",
        holds=(scores[10] <= 0.75) if checkable else None,
        note=setting,
    )
    yield Claim(
        "two moons: 1-step sampling is worse than 10-step (U-shape, left arm)",
        paper="C2ST(1) > C2ST(10)",
        measured=f"C2ST(1) = {scores[1]:.3f}, C2ST(10) = {scores[10]:.3f}",
        holds=(scores[1] > scores[10]) if checkable else None,
    )


def claims_speed(args):
    n_draws = 20 if args.quick else 1000
    torch.manual_seed(0)
    cm = cmpe.ConsistencyPosterior(2, 2)
    fm = cmpe.FlowMatchingPosterior(2, 2)
    fm.net.load_state_dict(cm.net.state_dict())  # the same MLP: time does not depend on weights
    x_obs = np.zeros((1, 2))
    t_cm = timeit_ms(lambda: cm.sample(x_obs, n_draws, n_steps=10), repeat=3).best_ms
    t_fm = timeit_ms(lambda: fm.sample(x_obs, n_draws, n_steps=1000), repeat=1, warmup=0).best_ms
    speedup = t_fm / t_cm
    peer = "sbi not installed"
    if _sbi() is not None:  # sbi's NPE (MAF) beside them: a flow also draws in one pass
        theta, x = cmpe.two_moons(256, rng=0)
        box = _box_prior()
        post = _npe(theta, x, box, epochs=1)
        t_npe = timeit_ms(lambda: _npe_draws(post, x_obs[0], n_draws), repeat=3).best_ms
        peer = f"sbi NPE (MAF) {1e3 * t_npe / n_draws:.1f} us per draw"
    yield Claim(
        "time per posterior draw: CMPE (10 steps) vs FMPE (1000 Euler steps)",
        paper="orders of magnitude faster (brief: >= 20x)",
        measured=f"{1e3 * t_cm / n_draws:.2f} us vs {1e3 * t_fm / n_draws:.1f} us per draw: {speedup:.0f}x",
        holds=speedup >= 20,
        note=f"{n_draws} draws in one batch, width-256 MLP, 1 CPU thread; {peer}",
    )


def _box_prior():
    from sbi.utils import BoxUniform

    return BoxUniform(-torch.ones(2), torch.ones(2))


def _sbi():
    try:
        from sbi.inference import NPE
        from sbi.neural_nets import posterior_nn
    except ImportError:
        return None
    return NPE, posterior_nn


def _npe(theta, x, prior, *, epochs, embedding=None, seed=0):
    """sbi's NPE (MAF, sbi's defaults: 5 transforms of 50 hidden units) trained on (theta, x)."""
    npe_cls, posterior_nn = _sbi()
    torch.manual_seed(seed)
    net = posterior_nn(
        "maf", embedding_net=embedding if embedding is not None else torch.nn.Identity()
    )
    from sbi.utils.tracking import TensorBoardTracker
    from torch.utils.tensorboard import SummaryWriter

    logs = SummaryWriter(tempfile.mkdtemp(prefix="cmpe-sbi-logs-"))  # not ./sbi-logs
    inference = npe_cls(
        prior=prior,
        density_estimator=net,
        tracker=TensorBoardTracker(logs),
        show_progress_bars=False,
    )
    with warnings.catch_warnings():  # "max_num_epochs reached": the budget is the point
        warnings.simplefilter("ignore", UserWarning)
        inference.append_simulations(
            torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
        ).train(
            training_batch_size=64,
            learning_rate=5e-4,
            max_num_epochs=epochs,
            show_train_summary=False,
        )
    return inference.build_posterior()


def _npe_draws(posterior, x_obs, n):
    x = torch.as_tensor(x_obs, dtype=torch.float32)[None]
    return posterior.sample((n,), x=x, show_progress_bars=False).numpy()


def claims_gmm_low_budget(args):
    """Brief check 5 (CMPE vs FMPE vs NPE at a small simulation budget, bimodal GMM)."""
    from time import perf_counter

    budgets = (256,) if args.quick else (512, 2048)
    n_test, n_draws = (1, 60) if args.quick else (3, 500)
    steps_target = 16 if args.quick else 1600  # optimiser steps per run (epochs = steps / batches)
    _, x_test = cmpe.gmm_bimodal(n_test, rng=123)
    refs = [cmpe.gmm_bimodal_reference(x_test[i], n_draws, rng=i) for i in range(n_test)]
    have_sbi = _sbi() is not None
    for m_sims in budgets:
        theta, x = cmpe.gmm_bimodal(m_sims, rng=m_sims)
        epochs = max(1, steps_target // -(-m_sims // 64))
        scores, seconds = {}, {}
        models = {
            "CMPE": lambda s: cmpe.ConsistencyPosterior(
                2, 4, n_blocks=3, dropout=0.1, t_max=1.0, s1=1280, summary_net=s
            ),
            "FMPE": lambda s: cmpe.FlowMatchingPosterior(
                2, 4, n_blocks=3, dropout=0.1, summary_net=s
            ),
        }
        for name, make in models.items():
            torch.manual_seed(0)
            model = make(cmpe.DeepSet(2, 4, width=64))
            hist = model.fit(
                theta, x, epochs=epochs, lr=1e-3, weight_decay=1e-4, generator=_gen(m_sims)
            )
            seconds[name] = hist.seconds
            steps = {"n_steps": 10} if name == "CMPE" else {"n_steps": 100}
            draws = model.sample(x_test, n_draws, generator=_gen(7), **steps).numpy()
            scores[name] = float(
                np.mean([cmpe.c2st(r, d, folds=_folds(args)) for r, d in zip(refs, draws)])
            )
        if have_sbi:
            prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
            torch.manual_seed(0)
            start = perf_counter()
            post = _npe(theta, x, prior, epochs=epochs, embedding=cmpe.DeepSet(2, 4, width=64))
            seconds["NPE"] = perf_counter() - start
            scores["NPE"] = float(
                np.mean(
                    [
                        cmpe.c2st(r, _npe_draws(post, x_test[i], n_draws), folds=_folds(args))
                        for i, r in enumerate(refs)
                    ]
                )
            )
        rivals = [k for k in ("FMPE", "NPE") if k in scores]
        measured = ", ".join(f"{k} {v:.3f}" for k, v in scores.items())
        yield Claim(
            f"GMM bimodal, budget {m_sims}: C2ST of CMPE (10 steps) below FMPE and NPE",
            paper="CMPE best of CMPE/FMPE/NSF/affine flow at every budget (Fig. 3; no table)",
            measured=measured,
            holds=(all(scores["CMPE"] < scores[k] for k in rivals) and have_sbi)
            if not args.quick
            else None,
            note=f"{epochs} epochs each, lr 1e-3 cosine; train s "
            + ", ".join(f"{k} {v:.0f}" for k, v in seconds.items())
            + f"; {n_test} test sets x {n_draws} draws"
            + ("" if have_sbi else "; sbi not installed: NPE not run"),
        )


main = reproduce_cli(
    [
        claims_parameterisation,
        claims_conjugate,
        claims_two_moons,
        claims_speed,
        claims_gmm_low_budget,
    ]
)
