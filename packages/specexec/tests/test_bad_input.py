"""Bad inputs to the public API raise TypeError / ValueError naming the argument (issue 9 §2)."""

import numpy as np
import pytest
import specexec as sx
from hypothesis import given, settings
from hypothesis import strategies as st
from specexec import DraftTree, MarkovLM, OffloadCostModel

from papershelf_harness import strategies as invalid
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=25, deadline=None)
TARGET = MarkovLM.random(4, rng=0)
DRAFT = TARGET.perturbed(0.5)
TREE = DraftTree.from_parents(tokens=[1, 2], parents=[-1, 0])
GENERATORS = [
    lambda **kw: sx.specexec_generate(TARGET, DRAFT, kw.pop("input_ids", [0, 1]), 3, **kw),
    lambda **kw: sx.chain_speculative_generate(TARGET, DRAFT, kw.pop("input_ids", [0, 1]), 3, **kw),
    lambda **kw: sx.autoregressive_generate(TARGET, kw.pop("input_ids", [0, 1]), 3, **kw),
]


def test_rng_string_is_a_type_error_naming_rng():
    """Regression (issue 10): validate_tree(rng="abc") failed inside numpy's SeedSequence with
    a message that did not name rng; generators took ``seed=`` instead of ``rng=``."""
    assert_rejects(TypeError, "rng", sx.validate_tree, TREE, np.zeros((3, 4)), rng="abc")
    for gen in GENERATORS:
        assert_rejects(TypeError, "rng", gen, rng="abc")
    assert_rejects(TypeError, "rng", MarkovLM.random, 4, rng="abc")


@FAST
@given(rng=invalid.not_rngs())
def test_bad_rng(rng):
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", sx.validate_tree, TREE, np.zeros((3, 4)), rng=rng)
    assert_rejects(exc, "rng", GENERATORS[0], rng=rng)


# bad values of the sampling options, and every function that takes them
BAD_OPTION = {
    "temperature": st.one_of(
        st.floats(max_value=-1e-12), st.sampled_from([np.nan, np.inf, -np.inf])
    ),
    "top_p": st.one_of(invalid.bad_probabilities(), st.just(0.0)),
}
SAMPLING = [
    lambda **kw: sx.warp_probs([0.0, 1.0], **kw),
    lambda **kw: sx.validate_tree(TREE, np.zeros((3, 4)), **kw),
    lambda **kw: sx.expected_tokens_per_pass(TREE, np.zeros((3, 4)), **kw),
    *GENERATORS,
]


@FAST
@pytest.mark.parametrize("name", list(BAD_OPTION))
@given(data=st.data())
def test_bad_sampling_option(name, data):
    value = data.draw(BAD_OPTION[name])
    for fn in SAMPLING:
        assert_rejects(ValueError, name, fn, **{name: value})


@given(value=invalid.non_numeric())
def test_non_numeric_options(value):
    for name in ("temperature", "top_p"):
        assert_rejects(TypeError, name, sx.warp_probs, [0.0, 1.0], **{name: value})
        assert_rejects(TypeError, name, GENERATORS[0], **{name: value})
    assert_rejects(TypeError, "target_pass_s", OffloadCostModel, value, 0.1)
    assert_rejects(TypeError, "noise", TARGET.perturbed, value)


@FAST
@given(n=invalid.non_integers())
def test_non_integer_counts(n):
    assert_rejects(TypeError, "max_new_tokens", sx.specexec_generate, TARGET, DRAFT, [0], n)
    assert_rejects(TypeError, "budget", GENERATORS[0], budget=n)
    assert_rejects(TypeError, "gamma", GENERATORS[1], gamma=n)
    assert_rejects(TypeError, "budget", sx.build_tree, lambda t, i: np.zeros((len(i), 4)), [0], n)
    assert_rejects(TypeError, "node", TREE.path, n)
    assert_rejects(TypeError, "prefix_len", TREE.attention_mask, n)


@FAST
@given(n=st.integers(-(10**6), 0))
def test_out_of_range_counts(n):
    assert_rejects(ValueError, "budget", GENERATORS[0], budget=n)
    assert_rejects(ValueError, "max_depth", GENERATORS[0], max_depth=n)
    assert_rejects(ValueError, "branch_width", GENERATORS[0], branch_width=n)
    assert_rejects(ValueError, "prefix_len", TREE.position_ids, n)
    if n < 0:
        assert_rejects(ValueError, "max_new_tokens", sx.autoregressive_generate, TARGET, [0], n)
        assert_rejects(ValueError, "eos_token_id", GENERATORS[2], eos_token_id=n)


@FAST
@given(logits=invalid.non_finite_arrays(shape=(3, 4)))
def test_nan_or_inf_logits(logits):
    if not (np.isnan(logits).any() or (logits == np.inf).any()):
        logits[0, 0] = np.nan  # -inf alone is a valid "impossible token"
    assert_rejects(ValueError, "logits", sx.warp_probs, logits)
    assert_rejects(ValueError, "target_prob_fn", sx.expected_tokens_per_pass, TREE, logits)


@FAST
@given(x=invalid.wrong_ndim_arrays(ok_ndims=(2,)))
def test_wrong_ndim_target_logits(x):
    assert_rejects(ValueError, "target_logits", sx.validate_tree, TREE, x)
    assert_rejects(ValueError, "target_prob_fn", sx.expected_tokens_per_pass, TREE, x)


globals().update(
    suite.bad_input_suite(
        suite.token_ids(
            f"generator{i}.input_ids", "input_ids", lambda v, g=g: g(input_ids=v), vocab_size=4
        )
        for i, g in enumerate(GENERATORS)
    )
)


def test_empty_and_mismatched_arrays():
    assert_rejects(ValueError, "logits", sx.warp_probs, [])
    assert_rejects(ValueError, "logits", sx.warp_probs, [[-np.inf, -np.inf]])
    assert_rejects(ValueError, "target_logits", sx.validate_tree, TREE, np.zeros((2, 4)))
    assert_rejects(ValueError, "parents", DraftTree, [1, 2], [-1], [1], [0.0])
    assert_rejects(ValueError, "logprobs", DraftTree, [1], [-1], [1], [np.nan])
    assert_rejects(TypeError, "tokens", DraftTree.from_parents, ["a"], [-1])
    assert_rejects(ValueError, "prefix", sx.build_tree, lambda t, i: np.zeros((len(i), 4)), [], 4)
    assert_rejects(ValueError, "probs", MarkovLM, np.ones((3, 3)))
    assert_rejects(ValueError, "probs", MarkovLM, np.full((2, 2), np.nan))
    assert_rejects(ValueError, "n_tokens", TARGET.joint_probs, [0], 0)
    assert_rejects(ValueError, "prefixes", TARGET, np.zeros((1, 1, 2), dtype=int))
    assert_rejects(TypeError, "prefixes", TARGET, [0.5])


def test_wrong_types():
    assert_rejects(TypeError, "tree", sx.validate_tree, "tree", np.zeros((3, 4)))
    assert_rejects(TypeError, "tree", sx.expected_tokens_per_pass, None, np.zeros((3, 4)))
    assert_rejects(TypeError, "draft_logprobs_fn", sx.build_tree, None, [0], 4)
    assert_rejects(TypeError, "target", sx.specexec_generate, 3, DRAFT, [0], 2)
    assert_rejects(TypeError, "draft", sx.chain_speculative_generate, TARGET, "x", [0], 2)
    assert_rejects(TypeError, "stats", OffloadCostModel(1.0, 0.1).simulate, {"new_tokens": 1})
    assert_rejects(TypeError, "cache", sx.prune_cache, object(), [0])
    assert_rejects(TypeError, "keep", sx.prune_cache, object(), [0.5])
    assert_rejects(TypeError, "new_tokens", sx.GenerationStats, new_tokens="3")
    assert_rejects(ValueError, "emitted", sx.GenerationStats, target_calls=2, emitted=(1,))
    assert_rejects(ValueError, "draft_temperature", GENERATORS[0], draft_temperature=0.0)
    assert_rejects(ValueError, "decay", GENERATORS[0], decay=1.5)
    assert_rejects(ValueError, "min_logprob", GENERATORS[0], min_logprob=np.nan)
