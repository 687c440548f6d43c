"""Peers as independent references (run by tests_extras; skip without them)."""

import numpy as np
import pytest
from adacom import BM25Retriever, bleu4, code_tokenize, make_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=12)


@settings(max_examples=100, deadline=None)
@given(h=WORDS, r=WORDS)
def test_bleu4_equals_sacrebleu_add_one(h, r):
    sacrebleu = pytest.importorskip("sacrebleu")
    want = sacrebleu.sentence_bleu(
        " ".join(h), [" ".join(r)], smooth_method="add-k", smooth_value=1, tokenize="none"
    ).score
    assert bleu4(h, r) * 100 == pytest.approx(want, abs=1e-9)


def test_bm25_equals_rank_bm25_with_the_same_idf():
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = make_corpus({"A": 40, "B": 40}, rng=3)
    toks = [code_tokenize(c) for c in corpus.codes]
    peer = rank_bm25.BM25Okapi(toks, k1=1.2, b=0.75)
    ours = BM25Retriever(corpus.codes)
    peer.idf = dict(ours.idf)  # rank-bm25's own idf is ln((N - n + .5)/(n + .5)) with a floor
    for q in corpus.codes[:10]:
        np.testing.assert_allclose(ours.scores(q), peer.get_scores(code_tokenize(q)), rtol=1e-10)
