"""Input validation, return types and the offloading cost model (brief check 7)."""

import math

import numpy as np
import pytest
import specexec as sx
from specexec import MarkovLM, OffloadCostModel


@pytest.fixture
def pair():
    t = MarkovLM.random(5, order=1, rng=0)
    return t, t.perturbed(0.3)


def test_contract_signature():
    import inspect

    sig = inspect.signature(sx.specexec_generate)
    names = list(sig.parameters)
    assert names[:4] == ["target", "draft", "input_ids", "max_new_tokens"]
    for name, default in [("budget", 128), ("temperature", 1.0), ("top_p", 1.0), ("rng", None)]:
        p = sig.parameters[name]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default == default


def test_return_types_and_stats(pair):
    t, d = pair
    for inp in ([0, 1], np.array([[0, 1]])):
        tokens, stats = sx.specexec_generate(t, d, inp, 6, budget=4, rng=0)
        assert isinstance(tokens, np.ndarray) and tokens.shape == (6,)
        assert tokens.dtype == np.int64
        assert isinstance(stats, sx.GenerationStats)
        assert stats.new_tokens == stats.new_tokens == 6
        assert stats.target_calls == len(stats.emitted)
        assert stats.tokens_per_call == pytest.approx(np.mean(stats.emitted))
        with pytest.raises(AttributeError):  # frozen
            stats.new_tokens = 0
        assert sum(stats.emitted) >= 6
        with pytest.raises(AttributeError):
            _ = stats.no_such_key
    empty, st0 = sx.specexec_generate(t, d, [0], 0)
    assert empty.shape == (0,) and st0.target_calls == 0 and st0.tokens_per_call == 0.0


def test_spectr_style_batched_callable_and_1d_callable_agree(pair):
    """Models may be lm(int[B, T]) -> float[B, V] (spectr-decode convention); MarkovLM is one."""
    t, d = pair
    calls = []

    def batched(prefixes):
        calls.append(np.asarray(prefixes).shape)
        return t(prefixes)

    a, _ = sx.specexec_generate(batched, d, [1, 2], 12, budget=8, rng=3)
    b, _ = sx.specexec_generate(t, d, [1, 2], 12, budget=8, rng=3)
    assert a.tolist() == b.tolist()
    assert all(len(s) == 2 for s in calls) and max(s[0] for s in calls) > 1  # nodes batched
    with pytest.raises(ValueError, match=r"float\[B, V\]"):
        sx.specexec_generate(lambda x: np.zeros((len(x) + 1, 5)), d, [0], 3)


def test_eos_stops_generation(pair):
    t, d = pair
    tokens, _ = sx.autoregressive_generate(t, [0], 200, rng=1)
    eos = int(tokens[3])
    first = tokens.tolist().index(eos)
    for fn in (sx.specexec_generate, sx.chain_speculative_generate):
        out, st = fn(t, d, [0], 200, rng=1, eos_token_id=eos)
        assert out[-1] == eos and eos not in out[:-1].tolist()
    out, _ = sx.autoregressive_generate(t, [0], 200, rng=1, eos_token_id=eos)
    assert out.tolist() == tokens[: first + 1].tolist()


def test_greedy_identity_callables(pair):
    t, d = pair
    ref, _ = sx.autoregressive_generate(t, [2, 3], 30, temperature=0)
    for budget in (1, 7, 64):
        out, _ = sx.specexec_generate(t, d, [2, 3], 30, budget=budget, temperature=0)
        assert out.tolist() == ref.tolist()
    out, _ = sx.chain_speculative_generate(t, d, [2, 3], 30, gamma=3, temperature=0)
    assert out.tolist() == ref.tolist()
    for dt in (0.2, 3.0):  # the draft's ranking temperature changes speed only
        out, _ = sx.specexec_generate(
            t, d, [2, 3], 30, budget=9, temperature=0, draft_temperature=dt
        )
        assert out.tolist() == ref.tolist()


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"max_new_tokens": -1}, ValueError, "max_new_tokens"),
        ({"max_new_tokens": 2.5}, TypeError, "max_new_tokens"),
        ({"budget": 0}, ValueError, "budget"),
        ({"budget": -3}, ValueError, "budget"),
        ({"temperature": -0.1}, ValueError, "temperature"),
        ({"temperature": float("nan")}, ValueError, "temperature"),
        ({"top_p": 0.0}, ValueError, "top_p"),
        ({"top_p": 1.5}, ValueError, "top_p"),
        ({"rng": "x"}, TypeError, "rng"),
        ({"input_ids": []}, ValueError, "input_ids"),
        ({"input_ids": [[0, 1], [1, 2]]}, ValueError, "batch size 1"),
        ({"input_ids": [0.5, 1.0]}, TypeError, "input_ids"),
        ({"input_ids": [-1, 2]}, ValueError, "input_ids"),
        ({"input_ids": "hello"}, TypeError, "input_ids"),
        ({"decay": 0.0}, ValueError, "decay"),
        ({"max_depth": 0}, ValueError, "max_depth"),
        ({"draft_temperature": 0.0}, ValueError, "draft_temperature"),
        ({"target": 3}, TypeError, "target"),
    ],
)
def test_specexec_generate_rejects_bad_input(pair, kwargs, exc, match):
    t, d = pair
    args = {"target": t, "draft": d, "input_ids": [0, 1], "max_new_tokens": 4}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        sx.specexec_generate(
            args.pop("target"),
            args.pop("draft"),
            args.pop("input_ids"),
            args.pop("max_new_tokens"),
            **args,
        )


def test_baselines_reject_bad_input(pair):
    t, d = pair
    with pytest.raises(ValueError, match="gamma"):
        sx.chain_speculative_generate(t, d, [0], 4, gamma=0)
    with pytest.raises(ValueError, match="top_p"):
        sx.autoregressive_generate(t, [0], 4, top_p=2.0)
    with pytest.raises(ValueError, match="vocabularies"):
        sx.chain_speculative_generate(t, MarkovLM.random(4), [0], 4)
    with pytest.raises(ValueError, match="vocabularies"):
        sx.specexec_generate(t, MarkovLM.random(4), [0], 4)


def test_larger_draft_vocabulary_and_out_of_vocab_prompt_are_refused_up_front(pair):
    """Regression: a draft with MORE tokens than the target proposed ids the target could not
    index (IndexError inside the model) before the vocabularies were compared."""
    t, _ = pair  # V = 5
    big = MarkovLM.random(7, rng=1)
    for fn in (sx.specexec_generate, sx.chain_speculative_generate):
        for max_new in (0, 1, 4):
            with pytest.raises(ValueError, match="vocabularies differ"):
                fn(t, big, [0, 1], max_new, rng=0)
    with pytest.raises(ValueError, match="input_ids contains token id 5"):
        flat = lambda x: np.zeros((len(x), 5))  # noqa: E731  (a callable that does not check)
        sx.specexec_generate(flat, flat, [0, 5], 4, rng=0)
    with pytest.raises(ValueError, match="input_ids contains token id 6"):
        sx.autoregressive_generate(flat, [6], 2)


def test_vocab_probe_costs_no_extra_model_call(pair):
    """The up-front vocabulary check reuses the root's row: one callable call per depth."""
    t, d = pair
    calls = []

    def counted(prefixes):
        calls.append(np.asarray(prefixes).shape[1])
        return t(prefixes)

    sx.autoregressive_generate(counted, [1, 2], 3, rng=0)
    assert calls == [2, 3, 4]


def test_markov_lm_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        MarkovLM(np.ones((3, 3)))
    with pytest.raises(ValueError, match="shape"):
        MarkovLM(np.ones((3, 4)) / 4)
    lm = MarkovLM.random(3)
    with pytest.raises(ValueError, match="prefix"):
        lm([5])
    assert lm.joint_probs([0], 3).sum() == pytest.approx(1.0)


def test_cost_model_arithmetic():
    """Brief check 7: tokens/s = tokens_per_pass / (C + steps * c); ~tokens_per_pass x when C >> c."""
    m = OffloadCostModel(target_pass_s=5.6, draft_step_s=0.03)
    tpp, steps = 12.0, 10
    assert m.tokens_per_second(tpp, steps) == pytest.approx(tpp / (5.6 + steps * 0.03))
    assert m.autoregressive_tokens_per_second() == pytest.approx(1 / 5.6)
    assert m.speedup(tpp, steps) == pytest.approx(tpp * 5.6 / (5.6 + 0.3))
    big = OffloadCostModel(target_pass_s=100.0, draft_step_s=1e-3)
    assert big.speedup(tpp, steps) == pytest.approx(tpp, rel=1e-3)
    # from_transfer: 140 GB over 25 GB/s = 5.6 s (Llama-2-70B in fp16 over PCIe 4.0)
    assert OffloadCostModel.from_transfer(140e9, 25.0).target_pass_s == pytest.approx(5.6)
    stats = sx.GenerationStats(new_tokens=30, target_calls=3, draft_calls=12, emitted=(10, 10, 10))
    assert m.simulate(stats) == pytest.approx(30 / (3 * 5.6 + 12 * 0.03))
    with pytest.raises(ValueError, match="target_pass_s"):
        OffloadCostModel(0.0, 0.1)
    with pytest.raises(ValueError, match="draft_step_s"):
        OffloadCostModel(1.0, -0.1)
    with pytest.raises(ValueError, match="tokens_per_pass"):
        m.tokens_per_second(math.nan, 1)
    with pytest.raises(TypeError, match="stats"):
        m.simulate({"new_tokens": 30})
    with pytest.raises(ValueError, match="target_calls"):
        m.simulate(sx.GenerationStats())
    # numpy scalars are numbers too (regression: np.float32 was a TypeError)
    assert OffloadCostModel(np.float32(5.0), np.int64(0)).target_pass_s == 5.0
    with pytest.raises(TypeError, match="target_pass_s"):
        OffloadCostModel("5", 0.1)


def test_cost_model_on_a_real_run(pair):
    t, d = pair
    _, st = sx.specexec_generate(t, d, [0], 50, budget=16, rng=0)
    m = OffloadCostModel(target_pass_s=5.0, draft_step_s=0.01)
    steps = st.draft_calls / st.target_calls
    assert m.simulate(st) == pytest.approx(m.tokens_per_second(st.tokens_per_call, steps))
    assert m.simulate(st) > m.autoregressive_tokens_per_second()
