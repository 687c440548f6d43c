"""Bad inputs to the public API raise TypeError / ValueError naming the argument (issue 9 §2)."""

from functools import partial

import numpy as np
import pytest
import spectr_decode as sd
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=25, deadline=None)
P = np.array([0.2, 0.3, 0.5])
Q = np.array([0.5, 0.25, 0.25])
_rng = np.random.default_rng(0)
TARGET = sd.MarkovLM(_rng.dirichlet(np.ones(3), size=3))
DRAFT = sd.MarkovLM(_rng.dirichlet(np.ones(3), size=3))
GENERATORS = [
    lambda **kw: sd.spectr_generate(TARGET, DRAFT, kw.pop("input_ids", [0]), 3, **kw),
    lambda **kw: sd.speculative_generate(TARGET, DRAFT, kw.pop("input_ids", [0]), 3, **kw),
    lambda **kw: sd.autoregressive_generate(TARGET, kw.pop("input_ids", [0]), 3, **kw),
]
PAIR_FUNCTIONS = [
    lambda p, q: sd.beta(p, q, 1.5),
    lambda p, q: sd.solve_rho(p, q, 2),
    lambda p, q: sd.kseq_acceptance(p, q, 2),
    lambda p, q: sd.kseq_residual(p, q, 2),
    lambda p, q: sd.kseq_output_distribution(p, q, 2),
    lambda p, q: sd.kseq_select([0, 1], p, q, rng=0),
    sd.maximal_coupling_acceptance,
    lambda p, q: sd.acceptance_upper_bound(p, q, 2),
    lambda p, q: sd.optimal_acceptance_lp(p, q, 2),
    lambda p, q: sd.optimal_acceptance_mincut(p, q, 2),
]


def test_rng_string_is_a_type_error_naming_rng():
    """Regression (issue 10): kseq_select(rng="abc") failed inside numpy's SeedSequence with a
    message that did not name rng; the decoders took ``seed=`` instead of ``rng=``."""
    assert_rejects(TypeError, "rng", sd.kseq_select, [0, 1], P, Q, rng="abc")
    for gen in GENERATORS:
        assert_rejects(TypeError, "rng", gen, rng="abc")


@FAST
@given(rng=invalid.not_rngs())
def test_bad_rng(rng):
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", sd.kseq_select, [0, 1], P, Q, rng=rng)
    assert_rejects(exc, "rng", GENERATORS[0], rng=rng)


# bad values of the sampling options; warp and every generator take them
BAD_OPTION = {
    "temperature": st.one_of(
        st.floats(max_value=-1e-12), st.sampled_from([np.nan, np.inf, -np.inf])
    ),
    "top_p": st.one_of(invalid.bad_probabilities(), st.just(0.0)),
}


@FAST
@pytest.mark.parametrize("name", list(BAD_OPTION))
@given(data=st.data())
def test_bad_sampling_option(name, data):
    value = data.draw(BAD_OPTION[name])
    for fn in [lambda **kw: sd.warp(np.log(P), **kw), *GENERATORS]:
        assert_rejects(ValueError, name, fn, **{name: value})


@FAST
@given(value=invalid.non_numeric())
def test_non_numeric(value):
    for name in ("temperature", "top_p"):
        assert_rejects(TypeError, name, sd.warp, np.log(P), **{name: value})
        assert_rejects(TypeError, name, GENERATORS[0], **{name: value})
    assert_rejects(TypeError, "rho", sd.beta, P, Q, value)
    assert_rejects(TypeError, "p", sd.maximal_coupling_acceptance, [value, 0.5], Q)
    assert_rejects(TypeError, "table", sd.MarkovLM, [[value]])


@FAST
@given(n=invalid.non_integers())
def test_non_integer_counts(n):
    assert_rejects(TypeError, "k", sd.kseq_acceptance, P, Q, n)
    assert_rejects(TypeError, "k", GENERATORS[0], k=n)
    assert_rejects(TypeError, "L", GENERATORS[1], L=n)
    assert_rejects(TypeError, "max_new_tokens", sd.autoregressive_generate, TARGET, [0], n)
    assert_rejects(TypeError, "max_variables", sd.optimal_acceptance_lp, P, Q, 2, max_variables=n)


@FAST
@given(n=st.integers(-(10**6), 0))
def test_out_of_range_counts(n):
    assert_rejects(ValueError, "k", sd.solve_rho, P, Q, n)
    assert_rejects(ValueError, "k", GENERATORS[0], k=n)
    assert_rejects(ValueError, "L", GENERATORS[0], L=n)
    assert_rejects(ValueError, "max_vocab", sd.optimal_acceptance_mincut, P, Q, 2, max_vocab=n)
    if n < 0:
        assert_rejects(ValueError, "max_new_tokens", sd.spectr_generate, TARGET, DRAFT, [0], n)
        assert_rejects(ValueError, "eos_token_id", GENERATORS[2], eos_token_id=n)


@FAST
@given(x=invalid.non_finite_arrays(shape=(3,), base=0.3))
def test_nan_or_inf_distributions(x):
    for fn in PAIR_FUNCTIONS:
        assert_rejects(ValueError, "p", fn, x, Q)
        assert_rejects(ValueError, "q", fn, P, x)


@FAST
@given(x=invalid.non_finite_arrays(shape=(2, 3)))
def test_nan_or_inf_logprobs(x):
    if not (np.isnan(x).any() or (x == np.inf).any()):
        x[0, 0] = np.nan  # -inf alone marks an impossible token
    assert_rejects(ValueError, "logprobs", sd.warp, x)


@FAST
@given(x=invalid.wrong_ndim_arrays(ok_ndims=(1,)))
def test_wrong_ndim_distributions(x):
    for fn in PAIR_FUNCTIONS:
        assert_rejects(ValueError, "p", fn, x, Q)
    assert_rejects(ValueError, "draft_tokens", sd.kseq_select, x.astype(int), P, Q)


def _feed_ids(generate, ids):
    return generate(input_ids=ids)


IDS = [partial(suite.token_ids, f"decoder{i}.input_ids", "input_ids") for i in range(3)]
globals().update(
    suite.bad_input_suite([c(partial(_feed_ids, g), vocab_size=3) for c, g in zip(IDS, GENERATORS)])
)


def test_empty_mismatched_and_out_of_range():
    for fn in PAIR_FUNCTIONS:
        assert_rejects(ValueError, "p", fn, [], Q)
        assert_rejects(ValueError, "q", fn, P, [0.5, 0.5])  # length mismatch
        assert_rejects(ValueError, "p", fn, [0.6, 0.6, -0.2], Q)  # negative
        assert_rejects(ValueError, "q", fn, P, [0.5, 0.5, 0.5])  # does not sum to 1
    assert_rejects(ValueError, "rho", sd.beta, P, Q, 0.5)
    assert_rejects(ValueError, "rho", sd.kseq_residual, P, Q, 2, rho=3.0)
    assert_rejects(ValueError, "tol", sd.solve_rho, P, Q, 2, tol=0.0)
    assert_rejects(ValueError, "draft_tokens", sd.kseq_select, [], P, Q)
    assert_rejects(ValueError, "draft_tokens", sd.kseq_select, [3], P, Q)
    assert_rejects(TypeError, "draft_tokens", sd.kseq_select, [0.5], P, Q)
    assert_rejects(ValueError, "logprobs", sd.warp, [])
    assert_rejects(ValueError, "logprobs", sd.warp, [-np.inf, -np.inf])
    assert_rejects(ValueError, "table", sd.MarkovLM, np.ones((2, 3)) / 3)
    assert_rejects(ValueError, "table", sd.MarkovLM, [[0.5, 0.4], [0.5, 0.5]])
    assert_rejects(ValueError, "prefixes", TARGET, np.zeros(3, dtype=int))
    assert_rejects(TypeError, "prefixes", TARGET, [[0.5]])
    assert_rejects(ValueError, "n", TARGET.joint, 0, 0)
    assert_rejects(ValueError, "last", TARGET.joint, 5, 2)


def test_wrong_types():
    assert_rejects(TypeError, "target", sd.spectr_generate, 3, DRAFT, [0], 2)
    assert_rejects(TypeError, "draft", sd.spectr_generate, TARGET, object(), [0], 2)
    assert_rejects(TypeError, "target", sd.autoregressive_generate, "lm", [0], 2)
    assert_rejects(TypeError, "new_tokens", sd.GenerationStats, new_tokens="3")
    assert_rejects(ValueError, "reached", sd.GenerationStats, L=2, reached=[1])
    assert_rejects(ValueError, "wall_time_s", sd.GenerationStats, wall_time_s=-1.0)
