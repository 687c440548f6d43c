"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import math

import numpy as np
import pytest
import torch
from cappy_scorer import (
    CappyScorer,
    build_training_pairs,
    evaluate_selection,
    generate_candidates,
    roberta_config,
    rouge_l,
    self_score,
    train_scorer,
    word_tokenizer,
)
from conftest import TEXTS, tiny_config
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects
from papershelf_harness.tiny_hf import tiny_causal_lm

TOK = word_tokenizer(TEXTS)
torch.manual_seed(0)
S = CappyScorer.from_config(tiny_config("roberta", len(TOK)), TOK, max_length=32)
LLM = tiny_causal_lm("llama", vocab=len(TOK))
EX = [{"instruction": "the cat", "references": ["sat"], "candidates": ["sat on", "no"]}]
PAIRS = [("the cat", "sat", 1.0), ("a dog", "no", 0.0)]

NOT_TEXTS = (("abc", TypeError), (None, TypeError), ([1, "a"], TypeError), ([], ValueError))
NOT_TEXT = ((1, TypeError), (None, TypeError), (["a"], TypeError), (b"a", TypeError))
NOT_GENERATOR = ((1, TypeError), ("x", TypeError), (np.random.default_rng(0), TypeError))
BAD_MODEL = ((None, TypeError), ("roberta", TypeError), (torch.zeros(2), TypeError))
BAD_TOKENIZER = ((None, TypeError), ("roberta", TypeError), (3, TypeError))
BAD_EXAMPLES = (
    ([], ValueError),
    ("abc", TypeError),
    ({"instruction": "q", "references": ["a"]}, TypeError),  # one dict, not a list
    ([{"references": ["a"]}], ValueError),  # no instruction
    ([{"instruction": "q"}], ValueError),  # no references
    ([{"instruction": 1, "references": ["a"]}], TypeError),
    ([{"instruction": "q", "references": []}], ValueError),
    ([{"instruction": "q", "references": [None]}], TypeError),
    ([{"instruction": "q", "references": ["a"], "candidates": "abc"}], TypeError),
    (["not a dict"], TypeError),
)
BAD_PAIRS = (
    ([], ValueError),
    ("abc", TypeError),
    ([("q", "a")], ValueError),
    ([("q", "a", 1.0, 2)], ValueError),
    ([(1, "a", 1.0)], TypeError),
    ([("q", None, 1.0)], TypeError),
    ([("q", "a", "1")], TypeError),
    ([("q", "a", math.nan)], ValueError),
    ([("q", "a", math.inf)], ValueError),
    ([("q", "a", 1.5)], ValueError),
    ([("q", "a", -0.1)], ValueError),
    ([None], TypeError),
)
POSITIVE = st.sampled_from([0.0, -1e-5, -3.0])
FRACTION_OUT = st.sampled_from([-0.1, 1.01, 5.0])

CASES = [
    # CappyScorer
    suite.Values("CappyScorer.model", "model", lambda v: CappyScorer(v, TOK), bad=BAD_MODEL),
    suite.Values(
        "CappyScorer.tokenizer", "tokenizer", lambda v: CappyScorer(S.model, v), bad=BAD_TOKENIZER
    ),
    suite.keyword(suite.Int, CappyScorer, "max_length", S.model, TOK, minimum=1),
    suite.Values(
        "from_config.config",
        "config",
        lambda v: CappyScorer.from_config(v, TOK),
        bad=((None, TypeError), ({"model_type": "roberta"}, TypeError)),
    ),
    suite.Values(
        "from_config.tokenizer",
        "tokenizer",
        lambda v: CappyScorer.from_config(tiny_config("roberta", 60), v),
        bad=BAD_TOKENIZER,
    ),
    suite.Int(
        "from_config.max_length",
        "max_length",
        lambda v: CappyScorer.from_config(tiny_config("roberta", 60), TOK, max_length=v),
        minimum=1,
    ),
    suite.Mismatch(
        "from_config.vocab",
        "tokenizer",
        lambda: CappyScorer.from_config(tiny_config("roberta", 5), TOK),
    ),
    suite.Values(
        "from_pretrained.path",
        "path",
        lambda v: CappyScorer.from_pretrained(v),
        bad=((None, TypeError), (3, TypeError)),
    ),
    suite.Values("score.instructions", "instructions", lambda v: S.score(v, ["a"]), bad=NOT_TEXTS),
    suite.Values("score.responses", "responses", lambda v: S.score(["a"], v), bad=NOT_TEXTS),
    suite.Mismatch("score.length", "responses", lambda: S.score(["a", "b"], ["a"])),
    suite.keyword(suite.Int, S.score, "batch_size", ["a"], ["b"], minimum=1),
    suite.Values("select.instruction", "instruction", lambda v: S.select(v, ["a"]), bad=NOT_TEXT),
    suite.Values("select.candidates", "candidates", lambda v: S.select("q", v), bad=NOT_TEXTS),
    suite.keyword(suite.Int, S.select, "batch_size", "q", ["b"], minimum=1),
    suite.Values(
        "classify.instruction", "instruction", lambda v: S.classify(v, ["a"]), bad=NOT_TEXT
    ),
    suite.Values("classify.choices", "choices", lambda v: S.classify("q", v), bad=NOT_TEXTS),
    suite.keyword(suite.Int, S.classify, "batch_size", "q", ["b"], minimum=1),
    # rouge_l
    suite.Values("rouge_l.prediction", "prediction", lambda v: rouge_l(v, ["a"]), bad=NOT_TEXT),
    suite.Values(
        "rouge_l.references",
        "references",
        lambda v: rouge_l("a", v),
        bad=((None, TypeError), ([1], TypeError), ([], ValueError), (3.0, TypeError)),
    ),
    suite.keyword(suite.Flag, rouge_l, "stem", "a", ["a"]),
    # build_training_pairs
    suite.Values(
        "build_training_pairs.examples", "examples", build_training_pairs, bad=BAD_EXAMPLES
    ),
    suite.keyword(suite.Int, build_training_pairs, "negatives_per_positive", EX, minimum=0),
    suite.keyword(suite.Int, build_training_pairs, "train_size", EX, minimum=1, none_ok=True),
    suite.keyword(suite.Rng, build_training_pairs, "rng", EX),
    suite.keyword(suite.Flag, build_training_pairs, "stem", EX),
    # train_scorer
    suite.Values(
        "train_scorer.scorer",
        "scorer",
        lambda v: train_scorer(v, PAIRS),
        bad=((None, TypeError), (S.model, TypeError), ("s", TypeError)),
    ),
    suite.Values("train_scorer.pairs", "pairs", lambda v: train_scorer(S, v), bad=BAD_PAIRS),
    suite.keyword(suite.Number, train_scorer, "lr", S, PAIRS),
    suite.keyword(
        suite.OutOfRange, train_scorer, "lr", S, PAIRS, id="train_scorer.lr_range", values=POSITIVE
    ),
    suite.keyword(suite.Int, train_scorer, "epochs", S, PAIRS, minimum=1),
    suite.keyword(suite.Int, train_scorer, "batch_size", S, PAIRS, minimum=1),
    suite.keyword(suite.Int, train_scorer, "grad_accum", S, PAIRS, minimum=1),
    suite.keyword(suite.Number, train_scorer, "warmup", S, PAIRS),
    suite.keyword(
        suite.OutOfRange,
        train_scorer,
        "warmup",
        S,
        PAIRS,
        id="train_scorer.warmup_range",
        values=FRACTION_OUT,
    ),
    suite.keyword(suite.Number, train_scorer, "weight_decay", S, PAIRS),
    suite.keyword(
        suite.OutOfRange,
        train_scorer,
        "weight_decay",
        S,
        PAIRS,
        id="train_scorer.weight_decay_range",
        values=st.sampled_from([-0.01, -1.0]),
    ),
    suite.keyword(suite.Values, train_scorer, "generator", S, PAIRS, bad=NOT_GENERATOR),
    # self_score
    suite.Values("self_score.llm", "llm", lambda v: self_score(v, TOK, "q", ["a"]), bad=BAD_MODEL),
    suite.Values(
        "self_score.tokenizer",
        "tokenizer",
        lambda v: self_score(LLM, v, "q", ["a"]),
        bad=BAD_TOKENIZER,
    ),
    suite.Values(
        "self_score.instruction",
        "instruction",
        lambda v: self_score(LLM, TOK, v, ["a"]),
        bad=NOT_TEXT,
    ),
    suite.Values(
        "self_score.candidates",
        "candidates",
        lambda v: self_score(LLM, TOK, "q", v),
        bad=(*NOT_TEXTS, ([""], ValueError)),  # an empty candidate has no tokens
    ),
    suite.Option(
        "self_score.reduce",
        "reduce",
        lambda v: self_score(LLM, TOK, "q", ["a"], reduce=v),
        valid=frozenset({"sum", "mean"}),
    ),
    suite.keyword(suite.Int, self_score, "batch_size", LLM, TOK, "q", ["a"], minimum=1),
    # generate_candidates
    suite.Values(
        "generate_candidates.llm",
        "llm",
        lambda v: generate_candidates(v, TOK, "q"),
        bad=BAD_MODEL,
    ),
    suite.Values(
        "generate_candidates.instruction",
        "instruction",
        lambda v: generate_candidates(LLM, TOK, v),
        bad=NOT_TEXT,
    ),
    suite.keyword(suite.Int, generate_candidates, "max_new_tokens", LLM, TOK, "q", minimum=1),
    suite.keyword(
        suite.Int, generate_candidates, "min_new_tokens", LLM, TOK, "q", minimum=0, maximum=64
    ),
    suite.keyword(
        suite.Values,
        generate_candidates,
        "decodings",
        LLM,
        TOK,
        "q",
        bad=(
            ({}, ValueError),
            ("beam", TypeError),
            ({"x": 1}, TypeError),
            ({"x": (0, {})}, ValueError),
        ),
    ),
    suite.keyword(suite.Values, generate_candidates, "generator", LLM, TOK, "q", bad=NOT_GENERATOR),
    # evaluate_selection
    suite.Values(
        "evaluate_selection.examples",
        "examples",
        lambda v: evaluate_selection(S, v),
        bad=(
            *BAD_EXAMPLES,
            ([{"instruction": "q", "references": ["a"], "candidates": []}], ValueError),
        ),
    ),
    suite.Values(
        "evaluate_selection.scorer",
        "scorer",
        lambda v: evaluate_selection(v, EX),
        bad=((None, TypeError), (S.model, TypeError)),
    ),
    suite.Mismatch(
        "evaluate_selection.self_scores",
        "self_scores",
        lambda: evaluate_selection(S, EX, self_scores=[[0.0, 1.0], [1.0, 0.0]]),
    ),
    suite.Mismatch(
        "evaluate_selection.self_scores_shape",
        "self_scores",
        lambda: evaluate_selection(S, EX, self_scores=[[0.0, 1.0, 2.0]]),
    ),
    suite.keyword(suite.Rng, evaluate_selection, "rng", S, EX),
    suite.keyword(suite.Flag, evaluate_selection, "stem", S, EX),
    # roberta_config
    suite.Values("roberta_config.tokenizer", "tokenizer", roberta_config, bad=BAD_TOKENIZER),
    suite.keyword(suite.Int, roberta_config, "hidden_size", TOK, minimum=1),
    suite.keyword(suite.Int, roberta_config, "num_layers", TOK, minimum=1),
    suite.keyword(suite.Int, roberta_config, "num_heads", TOK, minimum=1),
    suite.keyword(suite.Int, roberta_config, "max_length", TOK, minimum=1),
    suite.keyword(suite.Number, roberta_config, "dropout", TOK),
    suite.keyword(
        suite.OutOfRange,
        roberta_config,
        "dropout",
        TOK,
        id="roberta_config.dropout_range",
        values=st.sampled_from([-0.1, 1.0, 2.0]),
    ),
    suite.Mismatch(
        "roberta_config.heads_divide", "num_heads", lambda: roberta_config(TOK, num_heads=3)
    ),
    # word_tokenizer
    suite.Values("word_tokenizer.texts", "texts", word_tokenizer, bad=NOT_TEXTS),
    suite.keyword(suite.Flag, word_tokenizer, "lowercase", ["a b"]),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_self_scores_must_be_finite(bad):
    assert_rejects(
        ValueError, "self_scores", lambda v: evaluate_selection(S, EX, self_scores=[[0.0, v]]), bad
    )


def test_instruction_without_tokens_cannot_prompt_a_causal_lm():
    from papershelf_harness.tiny_hf import tiny_causal_lm as lm

    class NoSpecials:
        """A tokenizer adding no BOS: an empty instruction has no tokens."""

        def __call__(self, text, add_special_tokens=True):
            return TOK(text, add_special_tokens=False)

    assert_rejects(
        ValueError, "instruction", lambda v: self_score(lm(vocab=60), NoSpecials(), v, ["a"]), ""
    )


def test_two_label_model():
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_config(tiny_config("roberta", 60))
    assert_rejects(ValueError, "model", lambda v: CappyScorer(v, TOK), model)
