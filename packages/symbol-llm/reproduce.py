"""Reproduce the headline claims of Symbol-LLM (NeurIPS 2023) at small scale.

The paper's numbers come from HICO with CLIP zero-shot as System-1, BLIP-2 as the symbol
checker and gpt-3.5-turbo rules; none of these run here. What runs is the brief's synthetic
HOI-like world: 20 activities, 60 symbols, 2-3 planted rules of 2-3 symbols per activity,
images whose symbols follow their labels (plus distractors), a System-1 score of AUC ~0.7 and a
symbol checker of AUC ~0.9. Rules come either planted, or from generate_rules driven by a
scripted oracle LLM that knows the planted rules (answers with noise and paraphrases).

    python reproduce.py [--quick] [--json PATH]
"""

from __future__ import annotations

import re

import numpy as np
import symbol_llm as sl

from papershelf_harness import Claim, reproduce_cli

N_ACT, N_SYM, N_IMG = 20, 60, 2000
GRID = np.linspace(0.0, 6.0, 25)


def symbol_name(s: int) -> str:
    return f"hands touching object {s}"


def make_world(rng: np.random.Generator):
    rules = []  # (activity, tuple of symbol ids)
    for a in range(N_ACT):
        for _ in range(int(rng.integers(2, 4))):
            rules.append((a, tuple(sorted(rng.choice(N_SYM, int(rng.integers(2, 4)), False)))))
    Y = np.zeros((N_IMG, N_ACT), bool)
    present = rng.random((N_IMG, N_SYM)) < 0.06  # distractor symbols
    for i in range(N_IMG):
        for a in rng.choice(N_ACT, 1 + int(rng.random() < 0.3), replace=False):
            Y[i, a] = True
            mine = [r for r in rules if r[0] == a]
            present[i, list(mine[int(rng.integers(len(mine)))][1])] = True
    s1 = 1 / (1 + np.exp(-(Y + rng.normal(0, 1.35, Y.shape))))  # AUC ~0.70
    P = 1 / (1 + np.exp(-4 * (present - 0.5 + rng.normal(0, 0.55, present.shape))))  # ~0.90
    return rules, Y, present, s1, P


def auc(score, y):
    ranks = np.argsort(np.argsort(score)) + 1
    npos = y.sum()
    return (ranks[y].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))


def matrices(rules):
    M = np.zeros((len(rules), N_SYM), bool)
    for r, (_, syms) in enumerate(rules):
        M[r, list(syms)] = True
    return M, np.array([a for a, _ in rules])


def candidates_of(s1, frac=0.25):
    c = np.zeros_like(s1, bool)
    k = int(frac * s1.shape[0])
    top = np.argsort(-s1, axis=0, kind="stable")[:k]
    np.put_along_axis(c, top, True, axis=0)
    return c


def evaluate(world, M, ra, *, weight=None):
    """mAP of System-1 and of the fusion on the test half; weights tuned on the other half
    unless given. Returns (map_s1, map_fused, weights)."""
    _, Y, _, s1, P = world
    R = sl.activity_scores(P, M, ra, n_activities=N_ACT)
    val, test = slice(0, N_IMG // 2), slice(N_IMG // 2, None)
    cv, ct = candidates_of(s1[val]), candidates_of(s1[test])
    if weight is None:
        weight = sl.tune_weights(s1[val], R[val], Y[val], cv, grid=GRID)
    fused = sl.fuse(s1[test], R[test], ct, weight=weight)
    return sl.mean_ap(s1[test], Y[test]), sl.mean_ap(fused, Y[test]), weight


class RuleOracle:
    """A scripted LLM that knows the planted rules of one activity. With probability ``noise``
    a reply is replaced by a random choice/symbol; conditions come back as word-order
    paraphrases half of the time (the encoder maps them back to the known symbol)."""

    def __init__(self, planted, rng, noise=0.1):
        self.planted = [set(s) for s in planted]
        self.rng, self.noise = rng, noise

    @staticmethod
    def ids(text):
        return {int(x) for x in re.findall(r"object (\d+)", text)}

    def __call__(self, messages):
        text = messages[-1]["content"]
        noisy = self.rng.random() < self.noise
        if "What are his hands doing" in text:
            firsts = dict.fromkeys(min(r) for r in self.planted)
            return "\n".join(f"{k + 1}. {symbol_name(s)}" for k, s in enumerate(firsts))
        have = self.ids(text.split("THEN")[0] if "[condition]" in text else text)
        if "Estimate the probability" in text:
            if noisy:
                return "(" + "abcdef"[int(self.rng.integers(6))] + ")"
            if any(r <= have for r in self.planted):
                return "(e) 0.95"
            return "(c) 0.7" if any(have <= r for r in self.planted) else "(a) 0.1"
        options = [r - have for r in self.planted if (r & have) and r - have]
        if noisy or not options:
            new = int(self.rng.integers(N_SYM))
        else:
            new = min(min(options, key=len))
        words = symbol_name(new).split()
        phrase = " ".join(words[2:] + words[:2]) if self.rng.random() < 0.5 else symbol_name(new)
        return f"[condition] is: [{phrase}]."


def generated_rules(world, rng, noise=0.1):
    rules, *_ = world
    enc = sl.HashingEncoder()
    out, n_calls, n_rules = [], 0, 0
    for a in range(N_ACT):
        llm = sl.ScriptedLLM(RuleOracle([s for b, s in rules if b == a], rng, noise))
        rb = sl.generate_rules(f"doing activity {a}", llm, enc, max_loops=6)
        n_calls += len(llm.calls)
        n_rules += len(rb.rules)
        for r in rb.rules:
            out.append((a, tuple(sorted(RuleOracle.ids(p).pop() for p in r.premises))))
    return out, n_calls, n_rules


def claims(args):
    rng = np.random.default_rng(0)
    world = make_world(rng)
    rules, Y, present, s1, P = world
    auc1 = np.mean([auc(s1[:, a], Y[:, a]) for a in range(N_ACT)])
    aucp = np.mean([auc(P[:, s], present[:, s]) for s in range(N_SYM)])
    M, ra = matrices(rules)
    m1, mf, w = evaluate(world, M, ra)
    gen, n_calls, n_rules = generated_rules(world, np.random.default_rng(1))
    g1, gf, _ = evaluate(world, *matrices(gen))
    # brief check 5: fusing the rules' evidence raises System-1's mAP by >= 10 points, with the
    # planted rules and with the rules generate_rules finds (System-1 mAP, fused mAP)
    for claim, paper, (base, fused), note in (
        (
            "fusing rule evidence with System-1 raises mAP (planted rules, tuned lambda)",
            ">= +10 mAP (brief check 5)",
            (m1, mf),
            f"System-1 AUC {auc1:.2f}, checker AUC {aucp:.2f}, 1000 val / 1000 test images",
        ),
        (
            "rules from generate_rules (scripted oracle LLM, 10% noisy replies) also give >= +10",
            ">= +10 mAP",
            (g1, gf),
            f"{n_rules} rules from {n_calls} LLM queries over {N_ACT} activities",
        ),
    ):
        gain = 100 * (fused - base)
        measured = f"{100 * base:.2f} -> {100 * fused:.2f} (+{gain:.2f})"
        yield Claim(claim, paper=paper, measured=measured, holds=gain >= 10, note=note)
    perm = np.roll(np.arange(N_ACT), 7)
    _, sf, _ = evaluate(world, M, perm[ra], weight=w)
    _, st, _ = evaluate(world, M, perm[ra])
    yield Claim(
        "shuffled rules (rule -> activity permuted) give no gain or a loss",
        paper="no gain (brief check 5)",
        measured=f"{100 * (sf - m1):+.2f} (true-rule lambda), {100 * (st - m1):+.2f} (re-tuned)",
        holds=bool(sf - m1 <= 0 and st - m1 < 0.2 * (mf - m1)),
        note="re-tuned: lambda searched on the validation half with the shuffled rules",
    )
    curve = {}
    fracs = (0.0, 0.3) if args.quick else (0.0, 0.3, 0.6, 1.0)
    for frac in fracs:
        noisy = list(rules)
        r2 = np.random.default_rng(2)
        for r in r2.choice(len(rules), int(round(frac * len(rules))), replace=False):
            a, syms = rules[r]
            noisy[r] = (a, tuple(sorted(r2.choice(N_SYM, len(syms), False))))
        Mn, ran = matrices(noisy)
        n1, nf, _ = evaluate(world, Mn, ran)
        curve[frac] = 100 * (nf - n1)
    yield Claim(
        "replacing 30% of the rules by random ones shrinks the gain",
        paper="gain shrinks (noisy LLM rules)",
        measured=", ".join(f"{int(100 * f)}%: {g:+.2f}" for f, g in curve.items()),
        holds=bool(curve[0.3] < curve[0.0]),
        note="mAP gain over System-1 by share of random rules",
    )
    cand = candidates_of(s1)
    fused = sl.fuse(s1, activity_scores_all(world, M, ra), cand, weight=w)
    above = all(fused[cand[:, a], a].min() > fused[~cand[:, a], a].max() for a in range(N_ACT))
    same = all(
        np.array_equal(np.argsort(fused[~cand[:, a], a]), np.argsort(s1[~cand[:, a], a]))
        for a in range(N_ACT)
    )
    yield Claim(
        "offset 100: every candidate above every non-candidate, non-candidate order unchanged",
        paper="release fusion s1 + lambda R + 100",
        measured=f"above={above}, order kept={same}",
        holds=above and same,
    )
    yield Claim.not_run(
        "HICO mAP of CLIP zero-shot + Symbol-LLM reasoning",
        paper="43.21",
        why="needs HICO images, CLIP, BLIP-2 symbol checks and the released GPT rules (GPU, "
        "downloads); the pipeline pieces (min/max reasoning, fusion +100, 11-point AP) are "
        "the release's and are tested",
    )


def activity_scores_all(world, M, ra):
    return sl.activity_scores(world[4], M, ra, n_activities=N_ACT)


main = reproduce_cli(claims, quick=True)
