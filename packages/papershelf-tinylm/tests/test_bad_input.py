"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import papershelf_tinylm as tl
from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

SETTINGS = settings(max_examples=20, deadline=None)
RECIPE = ["steps", "batch_size", "seq_len", "warmup"]


@SETTINGS
@given(value=invalid.non_integers(), name=st.sampled_from(RECIPE))
def test_train_spec_integers_refuse_other_types(value, name):
    # 0.1: ValueError for steps=1.5 / None; now TypeError naming the field
    assert_rejects(TypeError, name, tl.TrainSpec, **{name: value})


@SETTINGS
@given(
    value=invalid.negative_or_zero_ints(), name=st.sampled_from(["steps", "batch_size", "seq_len"])
)
def test_train_spec_sizes_must_be_positive(value, name):
    assert_rejects(ValueError, name, tl.TrainSpec, **{name: value})


@SETTINGS
@given(value=st.one_of(invalid.non_finite_floats(), st.floats(max_value=0.0)), name=st.just("lr"))
def test_train_spec_lr_must_be_positive_and_finite(value, name):
    assert_rejects(ValueError, name, tl.TrainSpec, lr=value)


@pytest.mark.parametrize(("name", "value"), [("lr", "3e-3"), ("weight_decay", None)])
def test_train_spec_floats_refuse_strings_and_none(name, value):
    # 0.1: math.isfinite("3e-3") raised a TypeError that did not name lr
    assert_rejects(TypeError, name, tl.TrainSpec, **{name: value})


def test_train_spec_canonicalises_numpy_numbers():
    # numpy ints would serialise as strings in the spec JSON and change the content key
    a = tl.TrainSpec(steps=np.int64(300), lr=np.float32(0.5))
    assert type(a.steps) is int and type(a.lr) is float
    assert tl.content_key(tl.model_spec("draft", train=a)) == tl.content_key(
        tl.model_spec("draft", train=tl.TrainSpec(steps=300, lr=float(np.float32(0.5))))
    )


@SETTINGS
@given(rng=invalid.not_rngs())
def test_batch_rng_must_be_a_generator_or_seed(rng):
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", tl.lm_batch, rng, 2, 16)
    assert_rejects(exc, "rng", tl.header_recall_batch, rng, 2, 64)


@SETTINGS
@given(
    value=st.one_of(invalid.non_integers(), invalid.negative_or_zero_ints()),
    name=st.sampled_from(["b", "t"]),
)
def test_batch_sizes(value, name):
    exc = TypeError if not isinstance(value, int) or isinstance(value, bool) else ValueError
    if name == "b":
        assert_rejects(exc, "batch_size", tl.lm_batch, 0, value, 16)
    else:
        assert_rejects(exc, "seq_len", tl.lm_batch, 0, 2, value)


@pytest.mark.parametrize(
    ("fn", "args", "kwargs", "exc", "name"),
    [
        (tl.corpus, ("test",), {}, ValueError, "split"),
        (
            tl.corpus,
            (["train"],),
            {},
            TypeError,
            "split",
        ),  # 0.1: unhashable-type error from a cache
        (tl.lm_batch, (0, 2, 10**9), {}, ValueError, "seq_len"),
        (tl.lm_batch, (0, 2, 16), {"split": "dev"}, ValueError, "split"),
        (tl.header_recall_batch, (0, 1, 10), {}, ValueError, "seq_len"),
        (tl.header_recall_batch, (0, 1, 96), {"key_len": 0}, ValueError, "key_len"),
        (tl.model_spec, ("huge",), {}, ValueError, "config_name"),
        (tl.model_spec, (3,), {}, TypeError, "config_name"),
        (tl.model_spec, ("draft",), {"seed": -1}, ValueError, "seed"),
        (tl.model_spec, ("draft",), {"seed": 1.0}, TypeError, "seed"),
        (tl.model_spec, ("draft",), {"task": "qa"}, ValueError, "task"),
        (tl.model_spec, ("draft",), {"train": {"steps": 3}}, TypeError, "train"),
        (tl.model_spec, ("draft",), {"data_key": 7}, TypeError, "data_key"),
        (tl.model_config, ("draft",), {"vocab_size": 300}, ValueError, "vocab_size"),
        (tl.train_model, ("micro-draft",), {"batch_fn": tl.lm_batch}, ValueError, "data_key"),
        (tl.train_model, ("micro-draft",), {"data_key": "x"}, ValueError, "data_key"),
        (tl.train_model, ("micro-draft",), {"batch_fn": 3, "data_key": "x"}, TypeError, "batch_fn"),
        (tl.train_model, ("micro-draft",), {"cache": "no"}, TypeError, "cache"),
        (tl.load_pair, (), {"micro": 1}, TypeError, "micro"),
        (tl.heldout_loss, ("model",), {}, TypeError, "model"),
        (tl.content_key, ([1, 2],), {}, TypeError, "spec"),
        (tl.load_saved, (3,), {}, TypeError, "path"),
        (tl.encode, (b"bytes",), {}, TypeError, "text"),
        (tl.encode, ("a",), {"add_bos": 1}, TypeError, "add_bos"),
        (tl.decode, ([1000],), {}, ValueError, "ids"),
        (tl.decode, ([1.5],), {}, TypeError, "ids"),
        (tl.decode, ([[1, 2]],), {}, ValueError, "ids"),
        (tl.decode, (None,), {}, TypeError, "ids"),
    ],
)
def test_bad_arguments(fn, args, kwargs, exc, name):
    assert_rejects(exc, name, fn, *args, **kwargs)


def test_heldout_loss_options():
    m = torch.nn.Linear(2, 2)
    assert_rejects(ValueError, "n_seqs", tl.heldout_loss, m, n_seqs=0)
    assert_rejects(ValueError, "seq_len", tl.heldout_loss, m, seq_len=1)
    assert_rejects(TypeError, "seed", tl.heldout_loss, m, seed="a")


@SETTINGS
@given(value=invalid.non_numeric())
def test_tokenizer_text_must_be_str_or_strings(value):
    if isinstance(value, str):
        return
    tok = tl.ByteTokenizer()
    assert_rejects(TypeError, "text", tok, value)
    assert_rejects(TypeError, "text", tok, ["ok", value])


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"return_tensors": "tf"}, ValueError, "return_tensors"),
        ({"return_tensors": 1}, TypeError, "return_tensors"),
        ({"padding": "yes"}, TypeError, "padding"),
        ({"add_special_tokens": None}, TypeError, "add_special_tokens"),
    ],
)
def test_tokenizer_options(kwargs, exc, name):
    assert_rejects(exc, name, tl.ByteTokenizer(), "a", **kwargs)
