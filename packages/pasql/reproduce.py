"""Reproduce the headline claims of "Periodic agent-state based Q-learning for POMDPs" (Sinha,
Geist, Mahajan, NeurIPS 2024) at small scale.

The phase example is the paper's (closed forms). The paper's six-state example is given only as a
figure that could not be transcribed: `pasql.six_state_standin()` is a labelled STAND-IN with the
same shape (6 states, 2 actions, observations 0-2 -> 0 and 3-5 -> 1, rewards in {0, 0.5, 1}),
found by a seeded search so that periodic policies beat stationary ones. Its numbers are ours,
not the paper's.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import numpy as np
import pasql as pq

from papershelf_harness import Claim, reproduce_cli

OBS = pq.LastObservation


def _steps(args, default, quick, full):
    return quick if args.quick else (full if args.full else default)


def _greedy_J(pom, ag, Q):
    return pq.evaluate_periodic(pom, ag, pq.greedy_periodic(Q))


# ---------------------------------------------------------------------- phase example
def phase_example(args):
    g = 0.9
    pom, ag = pq.phase_pomdp(gamma=g), OBS(1)
    j1 = pq.best_periodic_bruteforce(pom, ag, 1).value
    j2 = pq.best_periodic_bruteforce(pom, ag, 2).value
    yield Claim(
        "phase example: J*_1 = 1/(1-g^2), J*_2 = 1/(1-g) (brute force, g = 0.9)",
        paper="5.263 / 10",
        measured=f"{j1:.3f} / {j2:.3f}",
        holds=bool(abs(j1 - 1 / (1 - g**2)) < 1e-10 and abs(j2 - 1 / (1 - g)) < 1e-10),
    )
    mu = np.full((2, 1, 2), 0.5)
    Q2 = pq.limit_q(pom, ag, mu)
    Q1 = pq.limit_q(pom, ag, mu[0])
    err2 = np.abs(Q2 - [[[10, 9]], [[9, 10]]]).max()
    err1 = np.abs(Q1 - 5).max()
    yield Claim(
        "phase example: Theorem-1 limits, uniform behaviour: PASQL (L=2) and ASQL (L=1)",
        paper="Q^0 = (10, 9), Q^1 = (9, 10); ASQL (5, 5)",
        measured=f"Q^0 = ({Q2[0, 0, 0]:.6f}, {Q2[0, 0, 1]:.6f}), Q^1 = ({Q2[1, 0, 0]:.6f}, "
        f"{Q2[1, 0, 1]:.6f}); ASQL ({Q1[0, 0]:.6f}, {Q1[0, 1]:.6f})",
        holds=bool(err2 < 1e-10 and err1 < 1e-10),
        note="ASQL's chain is 2-periodic: its limit uses the Cesaro (time-averaged) law",
    )
    T = _steps(args, 200_000, 10_000, 1_000_000)
    R = 4 if args.quick else 8
    Q = pq.pasql_many(pom, ag, mu, T, R, rng=0)
    err = np.abs(Q - Q2).max(axis=(1, 2, 3))
    Js = [_greedy_J(pom, ag, q) for q in Q]
    yield Claim(
        f"phase example: PASQL (L=2) after {T:,} steps is within 0.05 of the limit, greedy J = J*_2",
        paper="within 0.05; J = 10",
        measured=f"max error {err.max():.1e} over {R} seeds; greedy J = {min(Js):.3f}..{max(Js):.3f}",
        holds=bool(err.max() < 0.05 and all(abs(j - 10) < 1e-9 for j in Js)),
    )
    Qa = pq.pasql_many(pom, ag, mu[0], T, R, rng=1)
    erra = np.abs(Qa - 5).max(axis=(1, 2))
    Ja = sorted({round(_greedy_J(pom, ag, q), 3) for q in Qa})
    yield Claim(
        f"phase example: ASQL (L=1) on the same kind of data after {T:,} steps",
        paper="Q = (5, 5): both actions tie, J in {5.263, 4.737}",
        measured=f"max |Q - 5| = {erra.max():.3f} over {R} seeds; greedy J in {Ja}",
        holds=bool(erra.max() < 0.15 and set(Ja) <= {5.263, 4.737}),
        note="ASQL's rewards alternate with the hidden phase, so it converges more noisily "
        "(tolerance 0.15 for ASQL vs 0.05 for PASQL)",
    )


# ---------------------------------------------------------------------- behaviour dependence
def _three_behaviours(pom, ag):
    best = pq.best_periodic_bruteforce(pom, ag, 2)
    mus = np.stack(
        [
            pq.epsilon_greedy(best.policy, 0.3),  # mu1: around the optimal period-2 policy
            np.full((2, ag.n_states, pom.n_actions), 1.0 / pom.n_actions),  # mu2: uniform
            pq.epsilon_greedy(best.policy[::-1], 0.3),  # mu3: around the phase-swapped optimum
        ]
    )
    return best, mus


def behaviour_dependence(args):
    T = _steps(args, 200_000, 10_000, 1_000_000)
    seeds = 1 if args.quick else 2
    n_random = 1 if args.quick else (5 if args.full else 3)
    instances = [("stand-in", pq.six_state_standin())] + [
        (f"random{k}", pq.random_pomdp(4 + k, 2, 2, rng=100 + k)) for k in range(n_random)
    ]
    ag = OBS(2)
    worst, differ, details = 0.0, 0, []
    for name, pom in instances:
        best, mus = _three_behaviours(pom, ag)
        lims = [pq.limit_q(pom, ag, mu) for mu in mus]
        Q = pq.pasql_many(pom, ag, np.repeat(mus, seeds, axis=0), T, 3 * seeds, rng=7)
        for k in range(3 * seeds):
            lim = lims[k // seeds]
            worst = max(worst, float(np.abs(Q[k] - lim).max() / np.abs(lim).max()))
        Js = [_greedy_J(pom, ag, lim) for lim in lims]
        differ += len({round(j, 9) for j in Js}) >= 2
        details.append(f"{name}: J(mu1, mu2, mu3) = " + ", ".join(f"{j:.3f}" for j in Js))
        if name == "stand-in":
            stand = (best.value, Js)
    yield Claim(
        f"PASQL (L=2) iterates match their own Theorem-1 limit, 3 behaviours x {seeds} seeds, "
        f"{len(instances)} POMDPs, {T:,} steps",
        paper="iterates converge to the limits (Fig. 2)",
        measured=f"worst max-abs relative error {100 * worst:.2f}%",
        holds=bool(worst < 0.02),
        note="tolerance 2%; instances: the six-state stand-in and random POMDPs with "
        f"{', '.join(str(4 + k) for k in range(len(instances) - 1))} states, 2 actions, "
        "2 observations",
    )
    j2, Js = stand
    yield Claim(
        "the limit depends on the behaviour policy: greedy limit policies of mu1/mu2/mu3",
        paper="only mu1 reaches J*_2 (paper's example)",
        measured=f"stand-in: J*_2 = {j2:.3f}; mu1 {Js[0]:.3f}, mu2 {Js[1]:.3f}, mu3 {Js[2]:.3f}; "
        f"the three J differ in {differ}/{len(instances)} POMDPs",
        holds=bool(abs(Js[0] - j2) < 1e-9 and max(Js[1:]) < j2 - 1e-9),
        note="holds = on the stand-in only mu1's limit reaches J*_2 (the random POMDPs are "
        "reported, not required); mu1 = 0.3-greedy around the optimal period-2 policy, mu2 uniform, mu3 0.3-greedy "
        "around the phase-swapped optimum; " + "; ".join(details),
    )


# ---------------------------------------------------------------------- periodic vs stationary
def periodic_vs_stationary(args):
    pom, ag = pq.six_state_standin(), OBS(2)
    J = {L: pq.best_periodic_bruteforce(pom, ag, L).value for L in range(1, 5)}
    n = 21 if args.quick else 101
    grid = np.linspace(0, 1, n)
    stoch = max(
        (pq.evaluate_periodic(pom, ag, np.array([[1 - p, p], [1 - q, q]])), p, q)
        for p in grid
        for q in grid
    )
    stat = [np.full((2, 2), 0.5)] + [
        pq.epsilon_greedy(np.eye(2)[np.array(a)], 0.3) for a in ((0, 0), (0, 1), (1, 0), (1, 1))
    ]
    asql_J = [_greedy_J(pom, ag, pq.limit_q(pom, ag, mu)) for mu in stat]
    yield Claim(
        "periodic beats stationary (stand-in): J*_2 > best stationary deterministic, stochastic, "
        "and ASQL limits",
        paper="J*_2 > stochastic stationary (p ~ 0.39) > deterministic stationary",
        measured=f"J*_2 = {J[2]:.3f} > stochastic {stoch[0]:.3f} (p = ({stoch[1]:.2f}, "
        f"{stoch[2]:.2f})) > J*_1 = {J[1]:.3f}; best ASQL limit {max(asql_J):.3f}",
        holds=bool(J[2] > stoch[0] > J[1] and J[2] > max(asql_J)),
        note=f"stand-in, not the paper's instance; stochastic: {n}x{n} grid over p(a=1|z); ASQL: "
        "uniform and 0.3-greedy around the 4 deterministic stationary policies",
    )
    T = _steps(args, 200_000, 10_000, 1_000_000)
    R = 4 if args.quick else 8
    best, mus = _three_behaviours(pom, ag)
    Q = pq.pasql_many(pom, ag, mus[0], T, R, rng=3)
    Js = [_greedy_J(pom, ag, q) for q in Q]
    hits = sum(abs(j - J[2]) < 1e-6 for j in Js)
    yield Claim(
        f"PASQL (L=2, mu1) learns a policy with J = J*_2 on the stand-in, {T:,} steps",
        paper="PASQL with mu1 reaches J*_2",
        measured=f"{hits}/{R} seeds (J = {min(Js):.3f}..{max(Js):.3f})",
        holds=hits == R,
    )
    # frame-stack Q-learning (stationary, with memory) as a baseline
    rows = []
    for k, acts in ((2, None), (2, 2), (3, None)):
        fs = pq.FrameStack(k, 2, acts)
        mu = np.full((fs.n_states, 2), 0.5)
        lim = pq.limit_q(pom, fs, mu)
        Qf = pq.pasql_many(pom, fs, mu, T, 2, rng=5)
        learned = [_greedy_J(pom, fs, q) for q in Qf]
        rows.append(
            f"k={k}{' +actions' if acts else ''} (Z={fs.n_states}): limit {_greedy_J(pom, fs, lim):.3f}, "
            f"learned {min(learned):.3f}..{max(learned):.3f}"
        )
    yield Claim.reported(
        "baseline: frame-stack Q-learning (ASQL on the last k observations), uniform behaviour",
        paper="memory is an alternative to periodicity (T-maze discussion)",
        measured="; ".join(rows),
        note=f"stand-in; compare J*_2 = {J[2]:.3f} with a period-2 table of 2x2x2 entries",
    )


# ---------------------------------------------------------------------- J*_L
def multiples(args):
    pom, ag = pq.six_state_standin(), OBS(2)
    Lmax = 4 if args.quick else (10 if args.full else 7)
    JL = [pq.best_periodic_bruteforce(pom, ag, L).value for L in range(1, Lmax + 1)]
    mono = all(
        JL[k * L - 1] >= JL[L - 1] - 1e-12
        for L in range(1, Lmax + 1)
        for k in range(2, Lmax // L + 1)
    )
    yield Claim(
        f"J*_L for L = 1..{Lmax} on the stand-in (brute force over deterministic periodic policies)",
        paper="table of J*_L, L = 1..10; J*_L > J*_1 for suitable L",
        measured=" ".join(f"{j:.3f}" for j in JL),
        holds=bool(mono and max(JL) > JL[0]),
        note="holds = J*_kL >= J*_L along the table and some L beats L = 1",
    )
    n = 5 if args.quick else 20
    worst, strict = np.inf, 0
    for seed in range(n):
        p = pq.random_pomdp(4, 2, 2, rng=seed)
        J = {L: pq.best_periodic_bruteforce(p, ag, L).value for L in (1, 2, 3, 4, 6)}
        gaps = [J[2] - J[1], J[4] - J[2], J[6] - J[3]]
        worst = min(worst, min(gaps))
        strict += any(g > 1e-9 for g in gaps)
    yield Claim(
        f"J*_kL >= J*_L: (1,2), (2,4), (3,6) on {n} random POMDPs (exact)",
        paper="always (period-L policies are period-kL)",
        measured=f"min gap {worst:+.1e}; strict improvement somewhere in {strict}/{n}",
        holds=bool(worst >= -1e-12),
        note="random POMDPs: 4 states, 2 actions, 2 observations, gamma 0.9",
    )


main = reproduce_cli(
    [phase_example, behaviour_dependence, periodic_vs_stationary, multiples],
    full_help="brief scale: 10^6 steps, 5 random POMDPs for the behaviour check, J*_L to L = 10",
)
