"""SpecTr decoding on tabular Markov models: exact laws (brief checks 4-5), greedy, warping, errors."""

import math

import numpy as np
import pytest
import spectr_decode as sd
from _reference import block_law, expected_length, first_two_law
from scipy import stats


def _toy(seed, V):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(V), size=V), rng.dirichlet(np.ones(V), size=V)


def test_reference_block_law_is_exact():
    # the enumeration itself: implied first-two-token law equals the target joint (both variants)
    T, D = _toy(3, 3)
    for k in (1, 2):
        for winner_only in (False, True):
            law = block_law(T, D, 0, k, 2, winner_only=winner_only)
            assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
            np.testing.assert_allclose(first_two_law(law, T), T[0][:, None] * T, atol=1e-12)


@pytest.mark.parametrize("k", [1, 2])
def test_check4_iteration_law_matches_enumeration(k):
    T, D = _toy(3, 3)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    L, n = 2, 2000
    law = block_law(T, D, 0, k, L)
    rng = np.random.default_rng(10 + k)
    blocks, lengths, pairs = {}, [], np.zeros((3, 3))
    for _ in range(n):
        toks, st = sd.spectr_generate(tgt, drf, [0], L + 1, k=k, L=L, rng=rng)
        b = tuple(int(t) for t in toks[: st.emitted[0]])
        blocks[b] = blocks.get(b, 0) + 1
        lengths.append(st.emitted[0])
        pairs[toks[0], toks[1]] += 1
    # sequence-level exactness: first two tokens vs the target joint (df = 8)
    assert stats.chisquare(pairs.ravel(), n * (T[0][:, None] * T).ravel()).pvalue > 1e-3
    # the whole block law (which tokens, how many) vs the enumeration; pool cells with E < 5
    keys = sorted(law)
    exp = np.array([n * law[b] for b in keys])
    obs = np.array([blocks.get(b, 0) for b in keys])
    assert sum(blocks.values()) == obs.sum()  # no block outside the support
    small = exp < 5
    exp = np.append(exp[~small], exp[small].sum())
    obs = np.append(obs[~small], obs[small].sum())
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3
    # mean block length within 4 standard errors of the exact value
    m, se = np.mean(lengths), np.std(lengths) / math.sqrt(n)
    assert abs(m - expected_length(law)) < 4 * se
    if k == 2:
        # keeping only the winning draft (instead of every draft carrying the accepted token) is
        # also exact but accepts less; the observed length must be separated from that law
        bad = expected_length(block_law(T, D, 0, k, L, winner_only=True))
        assert abs(m - bad) > 2 * se and abs(expected_length(law) - bad) > 4 * se


def test_check5_tokens_per_call_rises_with_k():
    T, D = _toy(11, 5)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    eff = {}
    for k in (1, 2, 4):
        _, st = sd.spectr_generate(tgt, drf, [0], 1500, k=k, L=4, rng=k)
        eff[k] = st.tokens_per_call
        assert st.target_calls == st.target_calls and st.draft_calls == 4 * st.target_calls
        assert st.reached[0] == st.target_calls and np.all(np.diff(st.reached) <= 0)
    assert eff[1] < eff[2] < eff[4]
    assert eff[4] > 1.1 * eff[1]
    _, st1 = sd.speculative_generate(tgt, drf, [0], 1500, L=4, rng=1)
    assert st1.tokens_per_call == eff[1] and st1.k == 1  # k = 1 is speculative decoding


def test_first_position_acceptance_matches_kseq_closed_form():
    T, D = _toy(5, 4)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    n, k = 1000, 3
    rng = np.random.default_rng(0)
    acc = [sd.spectr_generate(tgt, drf, [2], 1, k=k, L=1, rng=rng)[1].accepted[0] for _ in range(n)]
    a = sd.kseq_acceptance(D[2], T[2], k)
    assert abs(np.mean(acc) - a) < 4 * math.sqrt(a * (1 - a) / n)


def test_greedy_is_target_argmax_chain():
    T, D = _toy(2, 6)
    D = 0.5 * T + 0.5 * D  # a draft that often agrees with the target's argmax
    toks, st = sd.spectr_generate(sd.MarkovLM(T), sd.MarkovLM(D), [1], 40, k=4, L=3, temperature=0)
    expect, prev = [], 1
    for _ in range(40):
        prev = int(T[prev].argmax())
        expect.append(prev)
    assert toks.tolist() == expect
    ar, st_ar = sd.autoregressive_generate(sd.MarkovLM(T), [1], 40, temperature=0)
    assert ar.tolist() == expect and st_ar.target_calls == 40 and st_ar.tokens_per_call == 1.0
    assert st.target_calls < 40


def test_warped_sampling_is_exact():
    T, D = _toy(4, 5)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    temp, top_p, n = 0.7, 0.8, 1500
    q = sd.warp(np.log(T[3]), temperature=temp, top_p=top_p)
    assert (q == 0).any()  # top-p removed something
    rng = np.random.default_rng(1)
    counts = np.zeros(5)
    for _ in range(n):
        toks, _ = sd.spectr_generate(
            tgt, drf, [3], 1, k=3, L=2, temperature=temp, top_p=top_p, rng=rng
        )
        counts[toks[0]] += 1
    keep = q > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], n * q[keep]).pvalue > 1e-3


def test_warp_reference():
    lp = np.log(np.array([[0.1, 0.6, 0.3]]))
    np.testing.assert_allclose(sd.warp(lp), [[0.1, 0.6, 0.3]])
    np.testing.assert_allclose(sd.warp(lp, temperature=0.0), [[0, 1, 0]])
    t = np.array([0.1, 0.6, 0.3]) ** 2
    np.testing.assert_allclose(sd.warp(lp, temperature=0.5), [t / t.sum()])
    np.testing.assert_allclose(sd.warp(lp, top_p=0.6), [[0, 1, 0]])  # 0.6 reaches top_p alone
    np.testing.assert_allclose(sd.warp(lp, top_p=0.61), [[0, 2 / 3, 1 / 3]])


def test_warp_refuses_negative_temperature_and_zero_top_p():
    """Regression (issue 10): a negative temperature inverted the distribution (the least likely
    token became the most likely) and top_p = 0 returned NaN; both are ValueErrors naming the
    argument now, in warp and in every decoder."""
    from papershelf_harness.testing import assert_rejects

    lp = np.log(np.array([0.1, 0.6, 0.3]))
    T, D = _toy(0, 3)
    for bad in (-0.5, -1e-9, float("nan"), float("inf")):
        assert_rejects(ValueError, "temperature", sd.warp, lp, temperature=bad)
        assert_rejects(
            ValueError,
            "temperature",
            sd.spectr_generate,
            sd.MarkovLM(T),
            sd.MarkovLM(D),
            [0],
            3,
            temperature=bad,
        )
    for bad in (0.0, -0.2, 1.5, float("nan")):
        assert_rejects(ValueError, "top_p", sd.warp, lp, top_p=bad)
        assert_rejects(
            ValueError, "top_p", sd.autoregressive_generate, sd.MarkovLM(T), [0], 3, top_p=bad
        )
    assert_rejects(ValueError, "logprobs", sd.warp, [np.nan, 0.0])
    assert_rejects(ValueError, "logprobs", sd.warp, [-np.inf, -np.inf])


def test_seed_reproducible_and_eos_stops():
    T, D = _toy(8, 4)
    a, _ = sd.spectr_generate(sd.MarkovLM(T), sd.MarkovLM(D), [0], 30, rng=5)
    b, _ = sd.spectr_generate(sd.MarkovLM(T), sd.MarkovLM(D), np.array([[0]]), 30, rng=5)
    assert a.tolist() == b.tolist() and a.dtype == np.int64
    toks, st = sd.spectr_generate(sd.MarkovLM(T), sd.MarkovLM(D), [0], 200, rng=5, eos_token_id=2)
    assert toks[-1] == 2 and 2 not in toks[:-1].tolist() and st.new_tokens == len(toks)
    empty, st0 = sd.spectr_generate(sd.MarkovLM(T), sd.MarkovLM(D), [0], 0)
    assert empty.shape == (0,) and st0.target_calls == 0


def test_bad_arguments():
    T, D = _toy(0, 3)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    cases = [
        (dict(input_ids=[]), ValueError, "input_ids"),
        (dict(input_ids=[[0], [1]]), ValueError, "input_ids"),
        (dict(input_ids=[0.5]), TypeError, "input_ids"),
        (dict(input_ids=[7]), ValueError, "vocabulary"),
        (dict(max_new_tokens=-1), ValueError, "max_new_tokens"),
        (dict(k=0), ValueError, "k"),
        (dict(L=0), ValueError, "L"),
        (dict(temperature=-1.0), ValueError, "temperature"),
        (dict(temperature=float("nan")), ValueError, "temperature"),
        (dict(top_p=0.0), ValueError, "top_p"),
        (dict(top_p=1.5), ValueError, "top_p"),
    ]
    for kw, exc, match in cases:
        args = {"input_ids": [0], "max_new_tokens": 5, **kw}
        with pytest.raises(exc, match=match):
            sd.spectr_generate(tgt, drf, args.pop("input_ids"), args.pop("max_new_tokens"), **args)
    with pytest.raises(TypeError, match="draft"):
        sd.spectr_generate(tgt, object(), [0], 3)
    with pytest.raises(ValueError, match="vocabularies"):
        sd.spectr_generate(sd.MarkovLM(np.full((4, 4), 0.25)), drf, [0], 3)
    with pytest.raises(ValueError, match="table"):
        sd.MarkovLM([[0.5, 0.4], [0.5, 0.5]])


def test_vocab_checked_before_any_forward():
    # regression: a draft with a LARGER vocabulary than a plain-callable target used to pass its
    # out-of-range drafts into the target (the user's IndexError); the prompt's ids reached the
    # models unchecked (the model's own error, naming "prefixes" rather than input_ids)
    T, _ = _toy(0, 3)
    tab = sd.MarkovLM(T)

    def target(prefixes):  # no vocab_size attribute: the size comes from one probe call
        return tab._log[np.asarray(prefixes)[:, -1]]

    big = sd.MarkovLM(np.full((4, 4), 0.25))
    for tgt, drf in [(target, big), (big, target)]:
        with pytest.raises(ValueError, match="vocabularies differ"):
            sd.spectr_generate(tgt, drf, [0], 5, rng=0)
    with pytest.raises(ValueError, match="input_ids contain token 7"):
        sd.spectr_generate(target, tab, [0, 7], 5, rng=0)
    with pytest.raises(ValueError, match="input_ids contain token 7"):
        sd.autoregressive_generate(target, [7], 5, rng=0)
    # the probe does not change results or call counts
    a, sa = sd.spectr_generate(target, tab, [0], 12, k=2, L=3, rng=3)
    b, sb = sd.spectr_generate(tab, tab, [0], 12, k=2, L=3, rng=3)
    assert np.array_equal(a, b) and sa.target_calls == sb.target_calls


def test_numpy_scalar_arguments_accepted():
    # regression: numpy float scalars (np.float32) for temperature / top_p were rejected
    T, D = _toy(1, 4)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    a, _ = sd.spectr_generate(
        tgt, drf, [0], 8, k=np.int64(2), temperature=np.float32(0.5), top_p=np.float32(0.75), rng=1
    )
    b, _ = sd.spectr_generate(tgt, drf, [0], 8, k=2, temperature=0.5, top_p=0.75, rng=1)
    assert np.array_equal(a, b)
    with pytest.raises(TypeError, match="temperature"):
        sd.spectr_generate(tgt, drf, [0], 3, temperature=True)


def test_callable_models_with_k_ge_2_and_L_1():
    """Regression (issue 10): with callables, k >= 2 and L = 1 crashed once an iteration had
    accepted a draft other than the first (the draft's history has one row, and keep() sliced it
    with the winning draft's index). The first three tokens (two or three iterations) must follow
    the target's joint law."""
    T, D = _toy(6, 3)
    tgt, drf = sd.MarkovLM(T), sd.MarkovLM(D)
    rng = np.random.default_rng(4)
    n = 1200
    counts = np.zeros((3, 3, 3))
    for _ in range(n):
        toks, st = sd.spectr_generate(tgt, drf, [0], 3, k=4, L=1, rng=rng)
        counts[tuple(toks)] += 1
    joint = T[0][:, None, None] * T[:, :, None] * T[None, :, :]
    exp, obs = n * joint.ravel(), counts.ravel()
    small = exp < 5  # pool rare cells into one
    exp = np.append(exp[~small], exp[small].sum()) if small.any() else exp
    obs = np.append(obs[~small], obs[small].sum()) if small.any() else obs
    assert stats.chisquare(obs, exp).pvalue > 1e-3
