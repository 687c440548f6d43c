"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import functools
import math

import llm_unlearn as lu
import pytest
import torch
from conftest import FORGET, NORMAL, POOL, make_model
from llm_unlearn import Unlearner, encode_qa, generate_answers, mismatch_loss, sample_mismatch

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects


@functools.cache
def M():
    return make_model("llama")


@functools.cache
def T():
    from papershelf_tinylm import ByteTokenizer

    return ByteTokenizer()


def B(**change):
    return {**encode_qa(FORGET, T()), **change}


QS = [q for q, _ in FORGET]
ids = B()["input_ids"]

BAD_PAIRS = (
    ([], ValueError),
    ("question answer", TypeError),
    ([("q", "a", "b")], ValueError),
    ([("q",)], ValueError),
    ([("q", 3)], TypeError),
    ([(None, "a")], TypeError),
    (["qa"], TypeError),
    ({"q": "a"}, TypeError),
    (None, TypeError),
)
BAD_TEXTS = (([], ValueError), ("one string", TypeError), ([1, 2], TypeError), (None, TypeError))
BAD_BATCH = (
    (None, TypeError),
    ([1, 2], TypeError),
    ({"input_ids": ids}, ValueError),
    ({"labels": ids}, ValueError),
    ({"input_ids": ids.float(), "labels": ids}, TypeError),
    ({"input_ids": ids, "labels": ids[:, :-1]}, ValueError),
    ({"input_ids": ids[0], "labels": ids[0]}, ValueError),
    ({"input_ids": ids, "labels": ids, "attention_mask": 2 * torch.ones_like(ids)}, ValueError),
    ({"input_ids": ids, "labels": torch.full_like(ids, -100)}, ValueError),
    ({"input_ids": ids.tolist(), "labels": ids}, TypeError),
)
BAD_EPS = (
    ("abc", TypeError),
    (1.0, TypeError),
    ((0.5, 1.0), ValueError),
    ((0.5, 1.0, 1.0, 1.0), ValueError),
    ((-1.0, 1.0, 1.0), ValueError),
    ((math.nan, 1.0, 1.0), ValueError),
    (("a", 1.0, 1.0), TypeError),
    ((0.0, 0.0, 0.0), ValueError),
)
NOT_MODELS = ((None, TypeError), ("gpt2", TypeError), (lambda ids: ids, TypeError))
NOT_TOKENIZERS = ((None, TypeError), ("gpt2", TypeError), ({"pad_token_id": 0}, TypeError))


def unlearner(**kw):
    return Unlearner(M(), T(), **{"answer_pool": POOL, **kw})


CASES = [
    suite.Values("encode_qa.pairs", "pairs", lambda v: encode_qa(v, T()), bad=BAD_PAIRS),
    suite.Values(
        "encode_qa.tokenizer", "tokenizer", lambda v: encode_qa(FORGET, v), bad=NOT_TOKENIZERS
    ),
    suite.Values(
        "encode_qa.template",
        "template",
        lambda v: encode_qa(FORGET, T(), template=v),
        bad=(
            ("Q: {q}", ValueError),
            ("{a} {a} {q}", ValueError),
            ("A: {a}", ValueError),
            (None, TypeError),
            (3, TypeError),
        ),
    ),
    suite.keyword(suite.Int, encode_qa, "max_length", FORGET, T(), minimum=2, none_ok=True),
    suite.keyword(
        suite.Option, encode_qa, "padding_side", FORGET, T(), valid=frozenset({"right", "left"})
    ),
    suite.Values("answer_nll.model", "model", lambda v: lu.answer_nll(v, B()), bad=NOT_MODELS),
    suite.Values("answer_nll.batch", "batch", lambda v: lu.answer_nll(M(), v), bad=BAD_BATCH),
    suite.Values("forget_loss.batch", "batch", lambda v: lu.forget_loss(M(), v), bad=BAD_BATCH[:3]),
    suite.Values(
        "mismatch_loss.questions",
        "questions",
        lambda v: mismatch_loss(M(), T(), v, POOL),
        bad=BAD_TEXTS,
    ),
    suite.Values(
        "mismatch_loss.answer_pool",
        "answer_pool",
        lambda v: mismatch_loss(M(), T(), QS, v),
        bad=BAD_TEXTS,
    ),
    suite.keyword(suite.Int, mismatch_loss, "k", M(), T(), QS, POOL, minimum=1),
    suite.keyword(suite.Rng, mismatch_loss, "rng", M(), T(), QS, POOL),
    suite.keyword(suite.Rng, sample_mismatch, "rng", QS, POOL),
    suite.keyword(suite.Int, sample_mismatch, "k", QS, POOL, minimum=1),
    suite.Values(
        "kl_to_reference.ref_model",
        "ref_model",
        lambda v: lu.kl_to_reference(M(), v, B()),
        bad=NOT_MODELS,
    ),
    suite.Values(
        "kl_to_reference.batch",
        "batch",
        lambda v: lu.kl_to_reference(M(), M(), v),
        bad=BAD_BATCH[:8],
    ),
    suite.keyword(
        suite.Option,
        lu.kl_to_reference,
        "positions",
        M(),
        M(),
        B(),
        valid=frozenset({"all", "answer"}),
    ),
    suite.Values(
        "Unlearner.model", "model", lambda v: Unlearner(v, T(), answer_pool=POOL), bad=NOT_MODELS
    ),
    suite.Values(
        "Unlearner.tokenizer",
        "tokenizer",
        lambda v: Unlearner(M(), v, answer_pool=POOL),
        bad=NOT_TOKENIZERS,
    ),
    suite.Values(
        "Unlearner.answer_pool", "answer_pool", lambda v: unlearner(answer_pool=v), bad=BAD_TEXTS
    ),
    suite.Values(
        "Unlearner.ref_model", "ref_model", lambda v: unlearner(ref_model=v), bad=NOT_MODELS[1:]
    ),
    suite.Values("Unlearner.eps", "eps", lambda v: unlearner(eps=v), bad=BAD_EPS),
    suite.Int("Unlearner.k", "k", lambda v: unlearner(k=v), minimum=1),
    suite.Number("Unlearner.lr", "lr", lambda v: unlearner(lr=v)),
    suite.OutOfRange(
        "Unlearner.lr_range",
        "lr",
        lambda v: unlearner(lr=v),
        values=suite.st.sampled_from([0.0, -1e-3]),
    ),
    suite.Int("Unlearner.max_steps", "max_steps", lambda v: unlearner(max_steps=v), minimum=1),
    suite.Number(
        "Unlearner.max_forget_loss", "max_forget_loss", lambda v: unlearner(max_forget_loss=v)
    ),
    suite.Values(
        "Unlearner.lora",
        "lora",
        lambda v: unlearner(lora=v),
        bad=(({"r": 4}, TypeError), ("lora", TypeError)),
    ),
    suite.Rng("Unlearner.rng", "rng", lambda v: unlearner(rng=v)),
    suite.Values(
        "Unlearner.template",
        "template",
        lambda v: unlearner(template=v),
        bad=(("Q: {q}", ValueError), (1, TypeError)),
    ),
    suite.Option(
        "Unlearner.kl_positions",
        "kl_positions",
        lambda v: unlearner(kl_positions=v),
        valid=frozenset({"all", "answer"}),
    ),
    suite.Values(
        "generate_answers.questions",
        "questions",
        lambda v: generate_answers(M(), T(), v),
        bad=BAD_TEXTS,
    ),
    suite.keyword(suite.Int, generate_answers, "max_new_tokens", M(), T(), QS, minimum=1),
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))


@pytest.fixture(scope="module")
def u():
    return unlearner(rng=0)


@pytest.mark.parametrize(
    "name, call",
    [
        ("forget_pairs", lambda u: u.step([], NORMAL)),
        ("normal_pairs", lambda u: u.step(FORGET, "abc")),
        ("forget_pairs", lambda u: u.run(None, NORMAL)),
        ("batch_size", lambda u: u.run(FORGET, NORMAL, batch_size=0)),
        ("batch_size", lambda u: u.run(FORGET, NORMAL, batch_size=1.5)),
    ],
)
def test_step_and_run_reject_bad_pairs(u, name, call):
    with pytest.raises((TypeError, ValueError), match=name):
        call(u)
    assert u.n_steps == 0  # nothing was updated


def test_k_larger_than_the_pool_and_pad_less_tokenizer():
    assert_rejects(ValueError, "k", sample_mismatch, QS, POOL, k=len(POOL) + 1)
    assert_rejects(ValueError, "k", unlearner, k=len(POOL) + 1)

    class NoPad:
        pad_token_id = eos_token_id = None

        def __call__(self, text):
            return {"input_ids": list(text.encode())}

    assert_rejects(ValueError, "tokenizer", encode_qa, FORGET, NoPad())
