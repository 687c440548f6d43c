"""Exactness of SpecExec sampling (brief checks 1, 5, 6) on tabular Markov models."""

import numpy as np
import pytest
import specexec as sx
from scipy import stats as sps
from specexec import MarkovLM, build_tree, expected_tokens_per_pass, validate_tree
from specexec.tree import ROOT
from test_tree import markov_draft_fn


def target_logits_fn(lm, prefix):
    prefix = list(prefix)
    return lambda tree, ids: np.stack(
        [lm(np.array(prefix + ([] if i == ROOT else tree.path_tokens(i).tolist()))) for i in ids]
    )


class MemoPasses:
    """SpecExec passes with trees and target logits memoised per prefix (both are deterministic)."""

    def __init__(self, target, draft, budget, **tree_kw):
        self.target, self.draft, self.budget, self.kw = target, draft, budget, tree_kw
        self.memo = {}

    def one_pass(self, prefix, rng, temperature=1.0, top_p=1.0):
        key = tuple(prefix)
        if key not in self.memo:
            tree = build_tree(markov_draft_fn(self.draft, prefix), prefix, self.budget, **self.kw)
            logits = target_logits_fn(self.target, prefix)(tree, np.arange(-1, len(tree)))
            self.memo[key] = (tree, logits)
        tree, logits = self.memo[key]
        acc, extra, _ = validate_tree(tree, logits, temperature=temperature, top_p=top_p, rng=rng)
        return acc.tolist() + [extra]

    def first_tokens(self, prompt, n, rng, **kw):
        out = []
        while len(out) < n:
            out += self.one_pass(list(prompt) + out, rng, **kw)
        return out[:n]


def chi2_pvalue(counts, probs):
    """Pearson chi-square p-value of counts vs probabilities (cells with p = 0 must be empty)."""
    counts, probs = counts.ravel(), probs.ravel()
    assert counts[probs == 0].sum() == 0, "a zero-probability sequence was generated"
    nz = probs > 0
    exp = probs[nz] * counts.sum()
    stat = ((counts[nz] - exp) ** 2 / exp).sum()
    return sps.chi2.sf(stat, nz.sum() - 1), stat


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.6, 0.9)])
def test_joint_of_first_two_tokens_is_target(temperature, top_p):
    """Brief check 1: |V| = 5, budget 8, draft != target, 30000 runs, p > 0.001."""
    target = MarkovLM.random(5, order=2, rng=11, concentration=0.7)
    draft = target.perturbed(0.6, rng=12)
    prompt = [1, 3]
    passes = MemoPasses(target, draft, budget=8)
    rng = np.random.default_rng(2024)
    counts = np.zeros((5, 5))
    for _ in range(30_000):
        a, b = passes.first_tokens(prompt, 2, rng, temperature=temperature, top_p=top_p)
        counts[a, b] += 1
    p, stat = chi2_pvalue(
        counts, target.joint_probs(prompt, 2, temperature=temperature, top_p=top_p)
    )
    assert p > 1e-3, (stat, p)


def test_chi_square_has_power_against_the_draft():
    """The same test rejects sampling from the draft instead of the target."""
    target = MarkovLM.random(5, order=2, rng=11, concentration=0.7)
    draft = target.perturbed(0.6, rng=12)
    rng = np.random.default_rng(1)
    jd = draft.joint_probs([1, 3], 2).ravel()
    counts = np.bincount(rng.choice(25, size=30_000, p=jd), minlength=25).reshape(5, 5)
    p, _ = chi2_pvalue(counts, target.joint_probs([1, 3], 2))
    assert p < 1e-6


def test_long_generation_transitions_match_target():
    """End to end: every token of one long specexec_generate run is drawn from P(. | context)."""
    target = MarkovLM.random(4, order=2, rng=5, concentration=0.5)
    draft = target.perturbed(0.5, rng=6)
    prompt = [0, 1]
    tokens, stats = sx.specexec_generate(target, draft, prompt, 2500, budget=12, rng=7)
    assert tokens.shape == (2500,) and stats.tokens_per_call > 1.5
    seq = prompt + tokens.tolist()
    counts = np.zeros((4, 4, 4))
    for i in range(2, len(seq)):
        counts[seq[i - 2], seq[i - 1], seq[i]] += 1
    stat, df = 0.0, 0
    for a in range(4):
        for b in range(4):
            n = counts[a, b].sum()
            if n < 20:
                continue
            exp = n * target.probs[a, b]
            stat += ((counts[a, b] - exp) ** 2 / exp).sum()
            df += 3
    assert df >= 30
    assert sps.chi2.sf(stat, df) > 1e-3, stat


@pytest.mark.slow
@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.6, 0.9)])
def test_joint_of_first_two_tokens_end_to_end(temperature, top_p):
    """Brief check 1 through specexec_generate itself (30000 calls; about 2 minutes)."""
    target = MarkovLM.random(5, order=2, rng=11, concentration=0.7)
    draft = target.perturbed(0.6, rng=12)
    counts = np.zeros((5, 5))
    for s in range(30_000):
        t, _ = sx.specexec_generate(
            target, draft, [1, 3], 2, budget=8, temperature=temperature, top_p=top_p, rng=s
        )
        counts[t[0], t[1]] += 1
    p, stat = chi2_pvalue(
        counts, target.joint_probs([1, 3], 2, temperature=temperature, top_p=top_p)
    )
    assert p > 1e-3, (stat, p)


@pytest.mark.parametrize("noise", [0.0, 0.7])
def test_mean_tokens_per_pass_matches_formula(noise):
    """Brief check 5: mean tokens per pass within 3 s.e. of 1 + sum_v P_target(path(v))."""
    target = MarkovLM.random(4, order=1, rng=21, concentration=0.5)
    draft = target.perturbed(noise, rng=22)
    prefix = [2]
    rng = np.random.default_rng(3)
    for k in (1, 4, 16, 64):
        tree = build_tree(markov_draft_fn(draft, prefix), prefix, k, branch_width=4)
        logits = target_logits_fn(target, prefix)(tree, np.arange(-1, len(tree)))
        formula = expected_tokens_per_pass(tree, logits)
        # probabilities instead of log-probs, and the callable form, give the same number
        assert expected_tokens_per_pass(tree, np.exp(logits)) == pytest.approx(formula)
        assert expected_tokens_per_pass(tree, target_logits_fn(target, prefix)) == pytest.approx(
            formula
        )
        n = 5000
        draws = np.array([len(validate_tree(tree, logits, rng=rng)[0]) + 1 for _ in range(n)])
        se = draws.std(ddof=1) / np.sqrt(n)
        assert abs(draws.mean() - formula) < 3 * se + 1e-12, (k, draws.mean(), formula)


def test_draft_equal_target_greedy_accepts_whole_greedy_path():
    lm = MarkovLM.random(6, order=1, rng=2, concentration=0.3)
    tree = build_tree(markov_draft_fn(lm, [0]), [0], 32, branch_width=6)
    logits = target_logits_fn(lm, [0])(tree, np.arange(-1, len(tree)))
    acc, extra, ids = validate_tree(tree, logits, temperature=0)
    # the accepted path is the greedy continuation for as long as the tree contains it
    ctx = [0]
    for t in acc.tolist() + [extra]:
        assert t == int(np.argmax(lm(np.array(ctx))))
        ctx.append(t)
    assert tree.child_with_token(ids[-1] if len(ids) else -1, extra) is None


def test_tokens_per_pass_grows_with_budget_and_tree_beats_chain():
    """Brief check 6: non-decreasing over K in {1, 4, 16, 64, 256}; a K=32 tree beats a 32-chain."""
    target = MarkovLM.random(6, order=2, rng=31, concentration=0.4)
    draft = target.perturbed(0.3, rng=32)
    prompts = [[a, b] for a in range(6) for b in range(6)][:12]

    def mean_expected(k, width):
        vals = []
        for pr in prompts:
            tree = build_tree(markov_draft_fn(draft, pr), pr, k, branch_width=width, max_depth=32)
            vals.append(expected_tokens_per_pass(tree, target_logits_fn(target, pr)))
        return float(np.mean(vals))

    curve = [mean_expected(k, 6) for k in (1, 4, 16, 64, 256)]
    assert all(b >= a - 1e-12 for a, b in zip(curve, curve[1:])), curve
    assert curve[-1] > curve[0] + 1.0
    tree32, chain32 = mean_expected(32, 6), mean_expected(32, 1)
    assert tree32 > chain32, (tree32, chain32)


def test_budget_one_tree_equals_single_token_speculation():
    """K = 1: the tree is the draft's arg-max; P(accept) = q_target(that token)."""
    target = MarkovLM.random(5, rng=41)
    draft = target.perturbed(0.5, rng=42)
    tree = build_tree(markov_draft_fn(draft, [0]), [0], 1)
    assert len(tree) == 1 and tree.tokens[0] == np.argmax(draft(np.array([0])))
    logits = target_logits_fn(target, [0])(tree, np.arange(-1, 1))
    assert expected_tokens_per_pass(tree, logits) == pytest.approx(
        1 + target.probs[0, tree.tokens[0]]
    )


def test_validate_tree_bad_input():
    tree = sx.DraftTree.from_parents(tokens=[1], parents=[-1])
    with pytest.raises(ValueError, match="shape"):
        validate_tree(tree, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="temperature"):
        validate_tree(tree, np.zeros((2, 4)), temperature=-1)
    with pytest.raises(ValueError, match="top_p"):
        validate_tree(tree, np.zeros((2, 4)), top_p=0.0)
    with pytest.raises(ValueError, match="NaN"):
        validate_tree(tree, np.full((2, 4), np.nan))
    with pytest.raises(TypeError, match="DraftTree"):
        validate_tree("tree", np.zeros((2, 4)))


def test_warp_probs_matches_hf_top_p():
    torch = pytest.importorskip("torch")
    from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(20, 30)) * 2
    for temp, top_p in [(1.0, 0.9), (0.6, 0.9), (1.3, 0.5), (0.7, 1.0)]:
        x = torch.tensor(logits, dtype=torch.float64)
        x = TemperatureLogitsWarper(temp)(None, x)
        if top_p < 1:
            x = TopPLogitsWarper(top_p)(None, x)
        ref = torch.softmax(x, -1).numpy()
        np.testing.assert_allclose(
            sx.warp_probs(logits, temperature=temp, top_p=top_p), ref, atol=1e-12
        )


def test_warp_probs_refuses_negative_temperature_and_zero_top_p():
    """Regression (issue 10): warp_probs inverted the distribution at a negative temperature
    (0.1/0.6/0.3 became 0.667/0.111/0.222) and returned NaN at top_p = 0. Temperature is exactly
    0 (greedy) or > 0, top_p in (0, 1]; anything else is a ValueError naming the argument."""
    from papershelf_harness.testing import assert_rejects

    lp = np.log([0.1, 0.6, 0.3])
    for bad in (-1.0, -1e-9, float("nan"), float("inf")):
        assert_rejects(ValueError, "temperature", sx.warp_probs, lp, temperature=bad)
    for bad in (0.0, -0.1, 1.0001, float("nan")):
        assert_rejects(ValueError, "top_p", sx.warp_probs, lp, top_p=bad)
    assert sx.warp_probs(lp, temperature=0).tolist() == [0.0, 1.0, 0.0]  # greedy stays
    np.testing.assert_allclose(sx.warp_probs(lp, top_p=1e-9), [0.0, 1.0, 0.0])
