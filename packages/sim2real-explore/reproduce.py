"""Reproduce the headline claims of "Overcoming the Sim-to-Real Gap: Leveraging Simulation to
Learn to Explore for Real-World RL" (Wagenmaker et al., NeurIPS 2024) at small scale.

The paper's robots (TychoEnv, Franka hammering, real Franka puck pushing) cannot run here. The
checks use the didactic combination lock (exact MDPs, the real one reached only through the
gymnasium API), random low-rank MDPs with TV-perturbed real systems, a 2-D point mass with an
action-scale mismatch as the continuous stand-in (8 moves: Algorithm 1 with FQI on a grid), and
its continuous-action version for the paper's practical algorithm (the [torch] extra: SAC
exploration ensembles with a diversity discriminator in sim, a SAC learner in real).

    python reproduce.py [--quick] [--full] [--sac-seeds N] [--json PATH]
"""

from __future__ import annotations

import numpy as np
import sim2real_explore as se

from papershelf_harness import Claim, reproduce_cli

ZETAS = (0.1, 0.5, 1.0)


def _finds_lock(real, policy):
    return bool(se.policy_value(real, policy)[0, 0] > 0.55)  # 0.6 = lock, 0.5 = corridor


def lock_claims(args, details):
    seeds = 1 if args.quick else (50 if args.full else 20)
    T = 200 if args.quick else 2000
    out = {}
    for q_sim in (0.4, 0.0):
        sim, real = se.two_corridor_lock(16, q_sim=q_sim, q_real=0.6, safe_reward=0.5)
        wins = sum(
            _finds_lock(real, se.sim2real_transfer(sim, real, n_episodes=T, rng=s)[0])
            for s in range(seeds)
        )
        zeta = {
            z: sum(
                _finds_lock(
                    real, se.zeta_greedy_transfer(sim, real, n_episodes=T, zeta=z, rng=s)[0]
                )
                for s in range(seeds)
            )
            for z in ZETAS
        }
        out[q_sim] = (wins, zeta)
        details[f"lock q_sim={q_sim}"] = {"explore": wins, "zeta": zeta, "seeds": seeds, "T": T}
    sim, real = se.two_corridor_lock(16)
    v_direct = float(se.policy_value(real, se.direct_transfer(sim))[0, 0])
    wins, zeta = out[0.4]
    yield Claim(
        f"lock (H=16, q_sim=0.4, q_real=0.6): exploration transfer returns the lock policy, T={T}",
        paper="succeeds (Sec. 6); brief >= 19/20; issue measured 17/20",
        measured=f"{wins}/{seeds} seeds",
        holds=wins >= 0.85 * seeds,
        note=f"Algorithm 1: tabular coverage policies + random tails, {T - 2 * (T // 4)} exploration "
        f"episodes, FQI, 2 x {T // 4} evaluation episodes; holds = at least the issue's 17/20",
    )
    yield Claim(
        "lock: direct transfer (pi^{sim,*}) stays in the safe corridor",
        paper="direct transfer fails (safe 0.5 < 0.6)",
        measured=f"real value {v_direct:.3f} (exact)",
        holds=abs(v_direct - 0.5) < 1e-12,
    )
    wins0, zeta0 = out[0.0]
    yield Claim(
        "lock, uninformative sim (q_sim=0): zeta-greedy (zeta 0.1/0.5/1) returns the safe policy",
        paper=">= 19/20 seeds each (Omega(2^{H/2}) lower bound)",
        measured="lock found " + " / ".join(f"{zeta0[z]}/{seeds}" for z in ZETAS),
        holds=all(seeds - zeta0[z] >= 0.95 * seeds for z in ZETAS),
        note="every lock digit needs a random key action: (zeta/2)^15 per episode",
    )
    yield Claim(
        "lock, informative sim (q_sim=0.4): zeta-greedy (zeta 0.1/0.5/1) returns the safe policy",
        paper="brief: >= 19/20 seeds each",
        measured="lock found " + " / ".join(f"{zeta[z]}/{seeds}" for z in ZETAS),
        holds=all(seeds - zeta[z] >= 0.95 * seeds for z in ZETAS),
        note="with q_sim > 0 the sim optimum plays the key inside the lock, so zeta-greedy only "
        "needs the entry deviation ((zeta/2)(1-zeta/2)^14 per episode); the paper's lower bound "
        "is for a simulator that says nothing about the key (row above)",
    )
    yield Claim(
        "lock, uninformative sim (q_sim=0): exploration transfer beats every zeta-greedy",
        paper="coverage is learned in sim whatever the sim reward (Thm. 1)",
        measured=f"{wins0}/{seeds} vs zeta-greedy max {max(zeta0.values())}/{seeds}",
        holds=wins0 > max(zeta0.values()),
        note="the last lock state is reachable in sim, so its key is covered by the random tail; "
        "fewer successes than at q_sim=0.4 (no sim policy is drawn to reach the goal)",
    )


def coverage_claims(args, details):
    n = 1 if args.quick else (30 if args.full else 10)
    eps_grid = (0.0, 0.01, 0.03, 0.1, 0.3)
    worst, median = {}, {}
    for eps in eps_grid:
        ratios = []
        for seed in range(n):
            sim, phi = se.random_low_rank_mdp(30, 3, 5, horizon=8, rng=seed)
            real = se.perturb(sim, eps, rng=1000 + seed)
            design = se.e_optimal_design(sim, phi)
            r = [
                se.min_eigenvalues(se.feature_coverage(real, design[h], phi)[h])
                / se.min_eigenvalues(se.feature_coverage(sim, design[h], phi)[h])
                for h in range(8)
            ]
            ratios.append(min(r))
        worst[eps], median[eps] = float(np.min(ratios)), float(np.median(ratios))
    details["coverage ratio"] = {"worst": worst, "median": median, "instances": n}
    monotone = all(median[a] >= median[b] - 1e-9 for a, b in zip(eps_grid, eps_grid[1:]))
    yield Claim(
        "coverage transfers: lambda_min(real) / lambda_min(sim) of the sim-designed mixture, "
        "random low-rank MDPs (S=30, A=3, H=8, d=5)",
        paper=">= 1/2 when eps_sim <= 0.01, degrading with eps (brief)",
        measured="worst over steps and instances, eps 0/0.01/0.03/0.1/0.3: "
        + " / ".join(f"{worst[e]:.3f}" for e in eps_grid),
        holds=worst[0.01] >= 0.5 and monotone,
        note=f"{n} instances, greedy E-optimal design in sim with uniform tails; medians "
        + " / ".join(f"{median[e]:.3f}" for e in eps_grid),
    )


def selection_claims(args, details):
    n = 1 if args.quick else (40 if args.full else 20)
    T = 400 if args.quick else 2000
    regret0, sel, better_ok = [], 0, 0
    for seed in range(n):
        sim = se.random_low_rank_mdp(10, 3, 4, horizon=5, rng=seed)[0]
        pol, _ = se.sim2real_transfer(sim, sim, n_episodes=T, rng=seed)
        regret0.append(
            float(sim.init @ (se.optimal_policy(sim)[0][0] - se.policy_value(sim, pol)[0]))
        )
        real = se.perturb(sim, 0.5, rng=50 + seed)
        pol, info = se.sim2real_transfer(sim, real, n_episodes=T, rng=seed)
        v = {
            k: float(real.init @ se.policy_value(real, p)[0])
            for k, p in (("fqi", info.fqi_policy), ("sim", info.sim_policy), ("returned", pol))
        }
        sel += info.selected == "fqi"
        better_ok += v["returned"] >= max(v["fqi"], v["sim"]) - 0.02
    details["selection"] = {"regret_eps0": regret0, "fqi_selected_eps0.5": sel, "seeds": n}
    yield Claim(
        "selection, sim = real: returned policy's real value >= V* - 0.02",
        paper="epsilon-optimal (Thm. 2, case pi^{sim,*})",
        measured=f"{sum(r <= 0.02 for r in regret0)}/{n} seeds; max regret {max(regret0):.3f}",
        holds=all(r <= 0.02 for r in regret0),
        note=f"random low-rank MDPs S=10, A=3, H=5, d=4, T={T}",
    )
    yield Claim(
        "selection, large gap (eps_tv=0.5): the FQI candidate is selected",
        paper="brief: >= 90% of seeds",
        measured=f"{sel}/{n} seeds; returned within 0.02 of the better candidate in {better_ok}/{n}",
        holds=sel >= 0.9 * n,
        note="where pi^{sim,*} is kept, it is (nearly) as good in real: selection errs only "
        "between candidates within noise",
    )


def point2d_claims(args, details):
    seeds = 1 if args.quick else (20 if args.full else 10)
    T = 300 if args.quick else 1000
    sim, real = se.action_scale_mismatch()
    direct = se.plan_on_grid(sim, bins=50)
    explorers = se.waypoint_explorers(sim)
    enc = se.GridEncoder([0, 0], [1, 1], 20)
    n_eval = 20 if args.quick else 200
    d_sim = float((se.evaluate(sim, direct, n_eval, horizon=30, rng=0) > 0).mean())
    d_real = float((se.evaluate(real, direct, n_eval, horizon=30, rng=0) > 0).mean())

    def run(expl, gamma, s):
        pol, _ = se.exploration_transfer(
            real,
            expl,
            direct,
            n_episodes=T,
            horizon=30,
            encoder=enc,
            pool_steps=True,
            gamma=gamma,
            rng=s,
        )
        return float((se.evaluate(real, pol, n_eval, horizon=30, rng=100 + s) > 0).mean())

    ours = [run(explorers, 0.95, s) for s in range(seeds)]
    ab = max(1, seeds // 2)
    undiscounted = [run(explorers, 1.0, s) for s in range(ab)]
    sim_only = [run([direct], 0.95, s) for s in range(ab)]
    details["point2d"] = {
        "direct_sim": d_sim,
        "direct_real": d_real,
        "ours": ours,
        "gamma1": undiscounted,
        "explore_with_sim_policy": sim_only,
    }
    yield Claim(
        "2-D action-scale mismatch (0.6): direct transfer of the sim optimum",
        paper="0/6 real successes (puck pushing)",
        measured=f"real success {d_real:.2f} (sim {d_sim:.2f})",
        holds=d_real == 0.0 and d_sim >= 0.95,
        note="closed-loop sim optimum (backward induction on a 50x50 grid model of the sim): it "
        "heads for the far target, out of reach at 0.6",
    )
    yield Claim(
        f"2-D mismatch: exploration transfer success with {T} real episodes",
        paper="6/6 real successes; brief >= 0.8",
        measured=f"mean {np.mean(ours):.2f} over {seeds} seeds (min {min(ours):.2f})",
        holds=bool(np.mean(ours) >= 0.8),
        note="16 waypoint explorers planned in sim + random tails, FQI on a 20x20 grid pooled over "
        f"steps, gamma 0.95; ablations ({ab} seeds): gamma 1 -> {np.mean(undiscounted):.2f}, "
        f"exploring with pi^{{sim,*}} + random tails only -> {np.mean(sim_only):.2f}",
    )


def _per_100(returns):
    k = min(100, len(returns))
    return [round(float(x), 3) for x in returns[: len(returns) // k * k].reshape(-1, k).mean(1)]


def _success(env, policy, n, seed):
    return float((se.rollout_returns(env, policy, n, rng=seed) > 0).mean())


def sac_claims(args, details):
    try:
        import torch
    except ImportError:
        for text in ("direct transfer", "exploration transfer"):
            yield Claim.not_run(
                f"continuous 2-D mismatch, practical version (SAC): {text}",
                paper="6/6 real pushes vs 0/6",
                why="needs the [torch] extra (pip install 'sim2real-explore[torch]')",
            )
        return

    torch.set_num_threads(1)
    seeds = 1 if args.quick else (args.sac_seeds or (6 if args.full else 1))
    T = 30 if args.quick else 1000
    n_sim, n_pol = (30, 2) if args.quick else (400, 8)
    n_eval = 10 if args.quick else 100
    sim, real = se.continuous_action_scale_mismatch()
    sim_plain = se.ContinuousPoint2D()  # the simulator's dynamics without the shaping term
    rows = []
    for s in range(seeds):
        policy, info = se.sac_exploration_transfer(
            sim,
            real,
            n_episodes=T,
            n_policies=n_pol,
            sim_episodes=n_sim,
            alpha=0.2,
            update_every=2,
            generator=torch.Generator().manual_seed(s),
        )
        explore = _success(real, policy, n_eval, 100 + s)
        d_policy, d_info = se.sac_direct_transfer(
            sim,
            real,
            n_episodes=T,
            sim_episodes=n_sim // 2,
            update_every=2,
            generator=torch.Generator().manual_seed(s),
        )
        sim_agent = d_info.sim_policy
        rows.append(
            {
                "seed": s,
                "explore_success": explore,
                "n_explorers": info.n_explorers,
                "explorer_episode_success": float((info.returns[info.explored] > 0).mean())
                if info.explored.any()
                else None,
                "direct_sim_success": _success(sim_plain, sim_agent, n_eval, 200 + s),
                "direct_zero_shot_success": _success(real, sim_agent, n_eval, 300 + s),
                "direct_finetuned_success": _success(real, d_policy, n_eval, 400 + s),
                "real_returns_per_100": _per_100(info.returns),
                "finetune_real_returns_per_100": _per_100(d_info.returns),
            }
        )
    details["sac continuous mismatch"] = {"T": T, "sim_episodes": n_sim, "rows": rows}
    ex = [r["explore_success"] for r in rows]
    zs = [r["direct_zero_shot_success"] for r in rows]
    ss = [r["direct_sim_success"] for r in rows]
    ft = [r["direct_finetuned_success"] for r in rows]
    yield Claim(
        "continuous 2-D mismatch (action scale 0.5), practical version: the sim-trained SAC "
        "policy (direct transfer) in the real system",
        paper="direct transfer gets 0 reward (TychoEnv); 0/6 real pushes",
        measured=f"real success {np.mean(zs):.2f} (sim {np.mean(ss):.2f}), {seeds} seed(s)",
        holds=max(zs) == 0.0 and min(ss) >= 0.9,
        note="SAC on the shaped simulator; it heads for the far target, out of reach at 0.5",
    )
    first = [r["real_returns_per_100"][0] for r in rows]
    first_ft = [r["finetune_real_returns_per_100"][0] for r in rows]
    yield Claim(
        f"continuous 2-D mismatch: SAC exploration transfer success after {T} real episodes",
        paper="6/6 real pushes; issue >= 0.8",
        measured="success per seed " + ", ".join(f"{e:.2f}" for e in ex),
        holds=min(ex) >= 0.8,
        note=f"{n_pol} policies (one skill-conditioned SAC + discriminator, alpha 0.2, diversity "
        f"gated at task return 0.5) trained {n_sim} sim episodes; real: explorer or learner "
        "episode with prob. 1/2, SAC on the shared buffer from scratch; success = the "
        f"deterministic learner reaches a target, {n_eval} real episodes; holds = every seed "
        ">= 0.8",
    )
    yield Claim(
        f"continuous 2-D mismatch: direct transfer + SAC fine-tuning fails with the same {T} "
        "real episodes",
        paper="0/6 real pushes",
        measured="success per seed "
        + ", ".join(f"{f:.2f}" for f in ft)
        + "; mean real return over the first 100 episodes: fine-tuning "
        + ", ".join(f"{f:.3f}" for f in first_ft)
        + " vs exploration transfer "
        + ", ".join(f"{f:.3f}" for f in first),
        holds=max(ft) < 0.8,
        note="holds = fine-tuning stays below 0.8 in every seed; on this small testbed the "
        "fine-tuned SAC's own entropy exploration finds the near target within the budget",
    )


def claims(args):
    CLAIM_DETAILS.clear()
    details = CLAIM_DETAILS
    yield from lock_claims(args, details)
    yield from coverage_claims(args, details)
    yield from selection_claims(args, details)
    yield from point2d_claims(args, details)
    yield from sac_claims(args, details)


CLAIM_DETAILS: dict = {}


def _extra_args(parser):
    parser.add_argument(
        "--sac-seeds",
        type=int,
        default=None,
        help="seeds of the SAC claims (default 1, 6 with --full; each takes minutes on a CPU)",
    )


main = reproduce_cli(
    claims,
    full_help="more seeds: 50 lock seeds, 30 coverage instances, 40 selection seeds, 20 2-D "
    "seeds, 6 SAC seeds",
    extra_args=_extra_args,
    details=lambda args: dict(CLAIM_DETAILS),
)
