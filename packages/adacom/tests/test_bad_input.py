"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Text arguments use
``Values`` cases (listed bad values), since the array kinds do not describe texts.
"""

import adacom as ac
import numpy as np
import torch
from hypothesis import strategies as st
from torch import nn

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

CODES = ["def getUser(self): return self.user", "def saveFile(p): write(p)", "def f(x): x"]
COMMENTS = ["returns the user", "stores the file", "does f"]
GEN = ac.GRUCommentGenerator(CODES, COMMENTS, embed=4, hidden=4, max_len=4)
RET = ac.BM25Retriever(CODES)
DET = ac.CompromiseDetector(GEN, CODES, COMMENTS, k=2)
S = np.array([0.1, 0.4, 0.35, 0.8, 0.5])
Y = np.array([0, 0, 1, 1, 1])

TEXT = [(None, TypeError), (3, TypeError), (b"x", TypeError), (["a"], TypeError)]
TEXTS = [(None, TypeError), ("abc", TypeError), (3, TypeError), ([1, 2], TypeError),
         (["a", None], TypeError), ([], ValueError)]  # fmt: skip
TOKENS = [(None, TypeError), (3, TypeError), ([1, "a"], TypeError)]
MODULES = [(None, TypeError), ("gen", TypeError), (object(), TypeError),
           (nn.Linear(2, 2), TypeError)]  # fmt: skip


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def ada(**kw):
    return ac.Adacom(GEN, CODES, COMMENTS, **kw)


CASES = [
    # metrics
    suite.Values("bleu4.hyp", "hyp", lambda v: ac.bleu4(v, "a"), TOKENS),
    suite.Values("bleu4.ref", "ref", lambda v: ac.bleu4("a", v), TOKENS),
    suite.keyword(suite.Flag, ac.bleu4, "smooth", "a b", "a b"),
    suite.Values("rouge_l.hyp", "hyp", lambda v: ac.rouge_l(v, "a"), TOKENS),
    suite.keyword(suite.Number, ac.rouge_l, "beta", "a", "a"),
    suite.keyword(suite.OutOfRange, ac.rouge_l, "beta", "a", "a", values=_floats(hi=0.0)),
    suite.Values("token_f1.a", "a", lambda v: ac.token_f1(v, "x"), TEXT),
    suite.Values("token_f1.b", "b", lambda v: ac.token_f1("x", v), TEXT),
    suite.Values("comment_words.text", "text", ac.comment_words, TEXT),
    suite.Values("contradiction.comments", "comments", ac.contradiction, TEXTS),
    suite.Array("auroc.scores", "scores", lambda v: ac.auroc(v, Y), (5,), (1,)),
    suite.Array("auroc.labels", "labels", lambda v: ac.auroc(S, v), (5,), (1,)),
    suite.Mismatch("auroc.labels", "labels", lambda: ac.auroc(S, Y[:4])),
    suite.Values(
        "auroc.labels.values",
        "labels",
        lambda v: ac.auroc(S, v),
        [(np.array([0, 1, 2, 1, 0]), ValueError), (np.ones(5), ValueError)],
    ),  # fmt: skip
    # retrieval
    suite.Values("code_tokenize.code", "code", ac.code_tokenize, TEXT),
    suite.Values("BM25Retriever.codes", "codes", ac.BM25Retriever, TEXTS),
    suite.keyword(suite.Number, ac.BM25Retriever, "k1", CODES),
    suite.keyword(suite.OutOfRange, ac.BM25Retriever, "k1", CODES, values=_floats(hi=-1e-9)),
    suite.keyword(suite.Number, ac.BM25Retriever, "b", CODES),
    suite.keyword(suite.OutOfRange, ac.BM25Retriever, "b", CODES, values=_floats(lo=1.0001)),
    suite.Values(
        "BM25Retriever.tokenizer",
        "tokenizer",
        lambda v: ac.BM25Retriever(CODES, tokenizer=v),
        [(None, TypeError), ("split", TypeError), (lambda s: s, TypeError)],
    ),  # fmt: skip
    suite.Values("BM25Retriever.query.code", "code", lambda v: RET.query(v, 1), TEXT),
    suite.Values("BM25Retriever.scores.code", "code", RET.scores, TEXT),
    suite.Int("BM25Retriever.query.k", "k", lambda v: RET.query("x", v), minimum=1, maximum=3),
    # generators
    suite.Values(
        "GRUCommentGenerator.codes", "codes", lambda v: ac.GRUCommentGenerator(v, COMMENTS), TEXTS
    ),  # fmt: skip
    suite.Mismatch(
        "GRUCommentGenerator.comments",
        "comments",
        lambda: ac.GRUCommentGenerator(CODES, COMMENTS[:2]),
    ),  # fmt: skip
    *(
        suite.keyword(suite.Int, ac.GRUCommentGenerator, n, CODES, COMMENTS, minimum=1)
        for n in ("embed", "hidden", "max_len")
    ),  # fmt: skip
    suite.Values(
        "GRUCommentGenerator.generator",
        "generator",
        lambda v: ac.GRUCommentGenerator(CODES, COMMENTS, generator=v),
        [(0, TypeError), ("abc", TypeError), (np.random.default_rng(0), TypeError)],
    ),  # fmt: skip
    suite.Values("GRUCommentGenerator.generate.codes", "codes", GEN.generate, TEXTS),
    suite.Values(
        "GRUCommentGenerator.loss.comments", "comments", lambda v: GEN.loss(CODES, v), TEXTS
    ),  # fmt: skip
    suite.Mismatch(
        "GRUCommentGenerator.loss.comments", "comments", lambda: GEN.loss(CODES, COMMENTS[:1])
    ),  # fmt: skip
    suite.Values(
        "train_generator.model", "model", lambda v: ac.train_generator(v, CODES, COMMENTS), MODULES
    ),  # fmt: skip
    suite.keyword(suite.Int, ac.train_generator, "epochs", GEN, CODES, COMMENTS, minimum=1),
    suite.keyword(suite.Int, ac.train_generator, "batch_size", GEN, CODES, COMMENTS, minimum=1),
    suite.keyword(suite.Number, ac.train_generator, "lr", GEN, CODES, COMMENTS),
    suite.keyword(
        suite.OutOfRange, ac.train_generator, "lr", GEN, CODES, COMMENTS, values=_floats(hi=0.0)
    ),  # fmt: skip
    suite.Values(
        "HFCommentGenerator.model", "model", lambda v: ac.HFCommentGenerator(v, None), MODULES
    ),  # fmt: skip
    # Adacom
    suite.Values(
        "Adacom.generator", "generator", lambda v: ac.Adacom(v, CODES, COMMENTS), MODULES
    ),  # fmt: skip
    suite.Values("Adacom.codes", "codes", lambda v: ac.Adacom(GEN, v, COMMENTS), TEXTS),
    suite.Values("Adacom.comments", "comments", lambda v: ac.Adacom(GEN, CODES, v), TEXTS),
    suite.Mismatch("Adacom.comments", "comments", lambda: ac.Adacom(GEN, CODES, COMMENTS[:2])),
    suite.Values(
        "Adacom.detector",
        "detector",
        lambda v: ada(detector=v),
        [(0.7, TypeError), ("always", TypeError)],
    ),  # fmt: skip
    suite.Int("Adacom.k", "k", lambda v: ada(k=v), minimum=1),
    suite.Int("Adacom.m", "m", lambda v: ada(m=v), minimum=1),
    suite.Int("Adacom.steps", "steps", lambda v: ada(steps=v), minimum=0),
    suite.Number("Adacom.lr", "lr", lambda v: ada(lr=v)),
    suite.OutOfRange("Adacom.lr", "lr", lambda v: ada(lr=v), _floats(hi=0.0)),
    suite.Number("Adacom.beta", "beta", lambda v: ada(beta=v)),
    suite.OutOfRange("Adacom.beta", "beta", lambda v: ada(beta=v), _floats(hi=-1e-9)),
    suite.Number("Adacom.kappa", "kappa", lambda v: ada(kappa=v), none_ok=True),
    suite.Option(
        "Adacom.optimizer",
        "optimizer",
        lambda v: ada(optimizer=v),
        valid=frozenset({"adam", "sgd"}),
    ),  # fmt: skip
    suite.Number("Adacom.group_threshold", "group_threshold", lambda v: ada(group_threshold=v)),
    suite.OutOfRange(
        "Adacom.group_threshold",
        "group_threshold",
        lambda v: ada(group_threshold=v),
        _floats(lo=1.0001),
    ),  # fmt: skip
    suite.Values("Adacom.summarize.code", "code", lambda v: ada().summarize(v), TEXT),
    suite.Values(
        "Adacom.summarize_batch.codes", "codes", lambda v: ada().summarize_batch(v), TEXTS
    ),  # fmt: skip
    suite.Values("group_by_agreement.comments", "comments", ac.group_by_agreement, TEXTS),
    suite.keyword(suite.Number, ac.group_by_agreement, "threshold", COMMENTS),
    suite.keyword(
        suite.OutOfRange, ac.group_by_agreement, "threshold", COMMENTS, values=_floats(hi=-1e-9)
    ),  # fmt: skip
    suite.Values(
        "restoring.module",
        "module",
        lambda v: ac.restoring(v).__enter__(),
        [(None, TypeError), (GEN.parameters, TypeError)],
    ),  # fmt: skip
    # detector
    suite.Values(
        "CompromiseDetector.generator",
        "generator",
        lambda v: ac.CompromiseDetector(v, CODES, COMMENTS),
        MODULES,
    ),  # fmt: skip
    suite.Mismatch(
        "CompromiseDetector.comments",
        "comments",
        lambda: ac.CompromiseDetector(GEN, CODES, COMMENTS[:1]),
    ),  # fmt: skip
    suite.keyword(suite.Int, ac.CompromiseDetector, "k", GEN, CODES, COMMENTS, minimum=1),
    suite.keyword(suite.Number, ac.CompromiseDetector, "l2", GEN, CODES, COMMENTS),
    suite.Values(
        "CompromiseDetector.fit.labels",
        "labels",
        lambda v: DET.fit(CODES, v),
        [
            (None, TypeError),
            (["a", "b", "c"], TypeError),
            ([0, 1], ValueError),
            ([0, 1, 2], ValueError),
            ([1, 1, 1], ValueError),
            ([0, np.nan, 1], ValueError),
        ],
    ),  # fmt: skip
    suite.Values("CompromiseDetector.features.codes", "codes", DET.features, TEXTS),
    suite.Values(
        "compromise_labels.generator",
        "generator",
        lambda v: ac.compromise_labels(v, CODES, COMMENTS),
        MODULES,
    ),  # fmt: skip
    suite.keyword(suite.Number, ac.compromise_labels, "quantile", GEN, CODES, COMMENTS),
    suite.keyword(
        suite.OutOfRange,
        ac.compromise_labels,
        "quantile",
        GEN,
        CODES,
        COMMENTS,
        values=_floats(lo=1.0001),
    ),  # fmt: skip
    # synthetic corpus
    suite.Values(
        "make_corpus.counts",
        "counts",
        ac.make_corpus,
        [
            (None, TypeError),
            ([3], TypeError),
            ({}, ValueError),
            ({"Z": 3}, ValueError),
            ({"A": -1}, ValueError),
            ({"A": 1.5}, TypeError),
        ],
    ),  # fmt: skip
    suite.keyword(suite.Number, ac.make_corpus, "cue", {"A": 2}),
    suite.keyword(suite.OutOfRange, ac.make_corpus, "cue", {"A": 2}, values=_floats(lo=1.0001)),
    suite.keyword(suite.Number, ac.make_corpus, "noise", {"A": 2}),
    suite.keyword(suite.Rng, ac.make_corpus, "rng", {"A": 2}),
]


def test_detector_returning_nonsense_is_rejected():
    assert_rejects(TypeError, "detector", ada(detector=lambda c: "high").summarize, "x")
    assert_rejects(ValueError, "detector", ada(detector=lambda c: float("nan")).summarize, "x")


def test_tokenizer_returning_a_string_is_a_type_error():
    assert_rejects(TypeError, "tokenizer", ac.BM25Retriever, CODES, tokenizer=str.lower)


def test_hf_generator_checks_tokenizer_and_prompt():
    class FakeLM(nn.Module):
        def generate(self, **kw):  # pragma: no cover - never called
            raise AssertionError

    class Tok:
        eos_token_id = 1

        def encode(self, text, add_special_tokens=True):
            return [2]

        def decode(self, ids, skip_special_tokens=True):
            return ""

    assert_rejects(TypeError, "tokenizer", ac.HFCommentGenerator, FakeLM(), object())
    assert_rejects(TypeError, "prompt", ac.HFCommentGenerator, FakeLM(), Tok(), prompt=3)
    assert_rejects(ValueError, "prompt", ac.HFCommentGenerator, FakeLM(), Tok(), prompt="{x}")
    for v in (0, 1.5, True):
        exc = ValueError if v == 0 and v is not True else TypeError
        assert_rejects(exc, "max_new_tokens", ac.HFCommentGenerator, FakeLM(), Tok(),
                       max_new_tokens=v)  # fmt: skip
    assert torch.is_tensor(torch.zeros(1))


globals().update(suite.bad_input_suite(CASES))
