"""Wrong inputs to the public API raise TypeError (wrong type) or ValueError (wrong value) naming
the argument (papershelf's shared vocabulary, `_checks`)."""

from __future__ import annotations

import functools

import numpy as np
import torch
from archs import build
from h2o_cache import (
    H2OCache,
    H2OLayer,
    H2OState,
    h2o_generate,
    h2o_mask_mode,
    h2o_perplexity,
    h2o_token_nll,
    select_keep,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

OPTION_NAMES = {
    "h2o",
    "local",
    "random",
    "full",
    "sum",
    "mean",
    "auto",
    "fused",
    "eager",
    "triton",
    "torch",
    "reference",
}
FEW = settings(max_examples=12, deadline=None)
IDS = torch.randint(1, 64, (1, 12), generator=torch.Generator().manual_seed(0))


@functools.cache
def _model():
    return build("llama")


def _attn(n=3):
    return torch.full((1, 2, n, n), 1.0 / n)


# -- policy core ----------------------------------------------------------------------------------


@FEW
@given(bad=invalid.non_integers().filter(lambda v: v is not None))  # None: "use ratio"
def test_budget_of_the_wrong_type(bad):
    assert_rejects(TypeError, "heavy", H2OState, heavy=bad, recent=2)
    assert_rejects(TypeError, "recent", H2OState, heavy=2, recent=bad)
    assert_rejects(TypeError, "heavy", select_keep, torch.zeros(4), heavy=bad, recent=1)


@FEW
@given(bad=st.integers(max_value=-1))
def test_negative_budget(bad):
    assert_rejects(ValueError, "heavy", H2OState, heavy=bad, recent=2)
    assert_rejects(ValueError, "recent", select_keep, torch.zeros(4), heavy=1, recent=bad)
    assert_rejects(ValueError, "heavy", H2OCache, _model(), heavy=bad, recent=2)


@FEW
@given(
    bad=st.one_of(invalid.non_numeric(), st.floats(allow_nan=False), st.booleans()).filter(
        lambda v: v is not None  # None: "use heavy/recent"
    )
)
def test_ratio_that_is_not_a_pair(bad):
    assert_rejects(TypeError, "ratio", H2OState, ratio=bad)


@FEW
@given(bad=invalid.bad_probabilities(), first=st.booleans())
def test_ratio_out_of_range_or_not_finite(bad, first):
    ratio = (bad, 0.1) if first else (0.1, bad)
    assert_rejects(ValueError, "ratio", H2OState, ratio=ratio)
    assert_rejects(ValueError, "ratio", H2OCache, _model(), ratio=ratio)


@FEW
@given(bad=st.one_of(st.booleans(), st.text(max_size=2), st.none()))
def test_ratio_entries_of_the_wrong_type(bad):
    assert_rejects(TypeError, "ratio", H2OState, ratio=(bad, 0.1))


def test_ratio_of_the_wrong_length():
    for bad in ((), (0.1,), (0.1, 0.1, 0.1)):
        assert_rejects(ValueError, "ratio", H2OState, ratio=bad)


@FEW
@given(bad=st.text(max_size=6).filter(lambda s: s not in OPTION_NAMES))
def test_unknown_options(bad):
    assert_rejects(ValueError, "policy", H2OState, heavy=1, recent=1, policy=bad)
    assert_rejects(ValueError, "score_mode", H2OState, heavy=1, recent=1, score_mode=bad)
    assert_rejects(ValueError, "gqa_reduce", H2OState, heavy=1, recent=1, gqa_reduce=bad)
    assert_rejects(ValueError, "attention", H2OCache, _model(), heavy=1, recent=1, attention=bad)
    assert_rejects(
        ValueError, "attention_backend", H2OCache, heavy=1, recent=1, attention_backend=bad
    )
    assert_rejects(
        ValueError, "policy", h2o_perplexity, _model(), IDS, prefill_len=4, heavy=1, recent=1,
        policy=bad,
    )  # fmt: skip


@FEW
@given(bad=st.one_of(st.integers(), st.floats(), st.none()))
def test_options_of_the_wrong_type(bad):
    assert_rejects(TypeError, "policy", H2OState, heavy=1, recent=1, policy=bad)
    assert_rejects(TypeError, "attention", H2OCache, heavy=1, recent=1, attention=bad)


@FEW
@given(bad=invalid.not_rngs())
def test_generator_that_is_not_a_torch_generator(bad):
    assert_rejects(TypeError, "generator", H2OState, heavy=1, recent=1, generator=bad)
    assert_rejects(TypeError, "generator", H2OCache, heavy=1, recent=1, generator=bad)


@FEW
@given(arr=invalid.wrong_ndim_arrays(ok_ndims=(4,)))
def test_attention_of_the_wrong_shape(arr):
    attn = torch.from_numpy(arr).float()
    assert_rejects(ValueError, "attn", H2OState(heavy=1, recent=1).update, attn, n_kv_heads=1)


@FEW
@given(bad=invalid.non_finite_floats(), where=st.integers(0, 17))
def test_attention_with_nan_or_inf(bad, where):
    attn = _attn().flatten()
    attn[where] = bad
    st_ = H2OState(heavy=1, recent=1)
    assert_rejects(ValueError, "attn", st_.update, attn.view(1, 2, 3, 3), n_kv_heads=1)
    assert_rejects(
        ValueError, "colsum", st_.update_colsum, attn.view(1, 2, 3, 3).sum(2), n_kv_heads=1, q_len=3
    )


def test_attention_of_the_wrong_type():
    st_ = H2OState(heavy=1, recent=1)
    assert_rejects(TypeError, "attn", st_.update, np.ones((1, 1, 2, 2)), n_kv_heads=1)
    assert_rejects(
        TypeError, "attn", st_.update, torch.ones(1, 1, 2, 2, dtype=torch.long), n_kv_heads=1
    )
    assert_rejects(ValueError, "attn", st_.update, torch.ones(1, 1, 0, 2), n_kv_heads=1)
    assert_rejects(TypeError, "scores", select_keep, [1.0, 2.0], heavy=1, recent=1)


@FEW
@given(bad=st.one_of(invalid.non_integers(), invalid.negative_or_zero_ints()))
def test_bad_number_of_kv_heads(bad):
    exc = ValueError if isinstance(bad, int) and not isinstance(bad, bool) else TypeError
    assert_rejects(exc, "n_kv_heads", H2OState(heavy=1, recent=1).update, _attn(), n_kv_heads=bad)


def test_kv_heads_that_do_not_divide_the_heads_and_mismatched_lengths():
    st_ = H2OState(heavy=1, recent=1)
    assert_rejects(ValueError, "n_kv_heads", st_.update, torch.ones(1, 3, 2, 2) / 2, n_kv_heads=2)
    assert_rejects(
        ValueError,
        "new_valid",
        st_.update,
        _attn(),
        n_kv_heads=1,
        new_valid=torch.ones(1, 2, dtype=torch.bool),
    )
    assert_rejects(
        TypeError, "new_valid", st_.update, _attn(), n_kv_heads=1, new_valid=torch.ones(1, 3)
    )
    assert_rejects(
        ValueError,
        "valid",
        select_keep,
        torch.zeros(4),
        heavy=1,
        recent=1,
        valid=torch.ones(3, dtype=torch.bool),
    )
    st_.update(_attn(), n_kv_heads=1)
    assert_rejects(ValueError, "keys", st_.gather, torch.ones(1, 1, 5, 2), torch.ones(1, 1, 5, 2))
    assert_rejects(TypeError, "state", H2OLayer, "not a state")


# -- transformers side ----------------------------------------------------------------------------


@FEW
@given(bad=st.one_of(invalid.non_numeric(), st.integers()))
def test_model_that_is_not_a_model(bad):
    if bad is not None:  # H2OCache(None): a cache for a model already on "h2o"
        assert_rejects(TypeError, "model", H2OCache, bad, heavy=1, recent=1)
    assert_rejects(TypeError, "model", h2o_token_nll, bad, IDS, prefill_len=4, heavy=1, recent=1)


def test_ids_of_the_wrong_dtype_shape_or_size():
    m = _model()
    for fn in (h2o_token_nll, h2o_perplexity, h2o_mask_mode):
        assert_rejects(TypeError, "ids", fn, m, IDS.float(), prefill_len=4, heavy=1, recent=1)
        assert_rejects(TypeError, "ids", fn, m, IDS.numpy(), prefill_len=4, heavy=1, recent=1)
        assert_rejects(ValueError, "ids", fn, m, IDS[None], prefill_len=4, heavy=1, recent=1)
        assert_rejects(ValueError, "ids", fn, m, IDS[:, :0], prefill_len=4, heavy=1, recent=1)
    assert_rejects(
        TypeError, "input_ids", h2o_generate, m, IDS.float(), max_new_tokens=2, heavy=1, recent=1
    )
    assert_rejects(
        ValueError, "input_ids", h2o_generate, m, IDS[:0], max_new_tokens=2, heavy=1, recent=1
    )


@FEW
@given(bad=st.one_of(st.integers(max_value=0), st.integers(min_value=12)))
def test_prefill_len_out_of_range(bad):
    assert_rejects(
        ValueError, "prefill_len", h2o_token_nll, _model(), IDS, prefill_len=bad, heavy=1, recent=1
    )
    assert_rejects(
        ValueError, "prefill_len", h2o_mask_mode, _model(), IDS, prefill_len=bad, heavy=1, recent=1
    )


@FEW
@given(bad=invalid.non_integers())
def test_prefill_len_and_max_new_tokens_of_the_wrong_type(bad):
    assert_rejects(
        TypeError, "prefill_len", h2o_token_nll, _model(), IDS, prefill_len=bad, heavy=1, recent=1
    )
    assert_rejects(
        TypeError,
        "max_new_tokens",
        h2o_generate,
        _model(),
        IDS,
        max_new_tokens=bad,
        heavy=1,
        recent=1,
    )


@FEW
@given(bad=st.one_of(st.floats(max_value=0.0), invalid.non_finite_floats()))
def test_non_positive_or_non_finite_temperature(bad):
    assert_rejects(
        ValueError, "temperature", h2o_generate, _model(), IDS, max_new_tokens=1, heavy=1,
        recent=1, do_sample=True, temperature=bad,
    )  # fmt: skip


@FEW
@given(bad=st.one_of(st.integers(0, 1), st.text(max_size=2), st.none()))
def test_flags_that_are_not_bools(bad):
    m = _model()
    assert_rejects(
        TypeError,
        "do_sample",
        h2o_generate,
        m,
        IDS,
        max_new_tokens=1,
        heavy=1,
        recent=1,
        do_sample=bad,
    )
    assert_rejects(
        TypeError,
        "return_cache",
        h2o_generate,
        m,
        IDS,
        max_new_tokens=1,
        heavy=1,
        recent=1,
        return_cache=bad,
    )
    assert_rejects(
        TypeError,
        "return_masks",
        h2o_mask_mode,
        m,
        IDS,
        prefill_len=4,
        heavy=1,
        recent=1,
        return_masks=bad,
    )


def test_attention_masks_that_do_not_fit():
    m = _model()
    batch = torch.randint(1, 64, (2, 6))
    gen = functools.partial(h2o_generate, m, batch, max_new_tokens=1, heavy=2, recent=2)
    assert_rejects(
        ValueError, "attention_mask", gen, attention_mask=torch.ones(2, 5, dtype=torch.long)
    )
    assert_rejects(
        ValueError, "attention_mask", gen, attention_mask=torch.ones(1, 6, dtype=torch.long)
    )
    assert_rejects(TypeError, "attention_mask", gen, attention_mask=torch.ones(2, 6))
    assert_rejects(ValueError, "attention_mask", gen, attention_mask=torch.full((2, 6), 2))
    right = torch.ones(2, 6, dtype=torch.long)
    right[1, -2:] = 0  # right padding: positions would be wrong
    assert_rejects(ValueError, "attention_mask", gen, attention_mask=right)
    assert_rejects(ValueError, "eos_token_id", gen, eos_token_id=-1)


def test_cache_arguments():
    m = _model()
    assert_rejects(ValueError, "num_layers", H2OCache, heavy=1, recent=1, num_layers=0)
    assert_rejects(TypeError, "num_layers", H2OCache, heavy=1, recent=1, num_layers=1.5)
    cache = H2OCache(heavy=1, recent=1, num_layers=2)
    assert_rejects(ValueError, "layer_idx", cache.kept_positions, 2)
    assert_rejects(TypeError, "layer_idx", cache.kept_positions, "0")
    assert_rejects(ValueError, "recent", H2OCache, m, heavy=1)
    assert_rejects(ValueError, "ratio", H2OCache, m, heavy=1, recent=1, ratio=(0.1, 0.1))
