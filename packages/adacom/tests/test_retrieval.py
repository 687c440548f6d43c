"""code_tokenize cases and BM25 against a naive per-document scorer."""

import math
from collections import Counter

import numpy as np
import pytest
from adacom import BM25Retriever, code_tokenize

CODES = [
    "def getUser(self): return self.userCache[key]",
    "def load_config(path): return json.load(open(path))",
    "def getUserName(user): return user.name",
    "def saveFile(path, data): open(path, 'w').write(data)",
    "def parseHTTPHeader(raw): return raw.split(':')",
    "def delete_user(user_id): db.delete(user_id)",
]


def test_code_tokenize_splits_identifiers():
    assert code_tokenize("getUserName") == ["get", "user", "name"]
    assert code_tokenize("load_config_v2") == ["load", "config", "v", "2"]
    assert code_tokenize("parseHTTPHeader(x)") == ["parse", "http", "header", "x"]
    assert code_tokenize("XMLHttpRequest") == ["xml", "http", "request"]
    assert code_tokenize("a+b, c.d()") == ["a", "b", "c", "d"]
    assert code_tokenize("") == []


def naive_bm25(query, docs, k1=1.2, b=0.75):
    toks = [code_tokenize(d) for d in docs]
    n_docs = len(toks)
    avgdl = sum(map(len, toks)) / n_docs
    out = []
    for d in toks:
        s = 0.0
        for t in code_tokenize(query):  # every occurrence of a query term counts
            f = d.count(t)
            n = sum(t in e for e in toks)
            if n == 0:
                continue
            idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return np.array(out)


@pytest.mark.parametrize("k1,b", [(1.2, 0.75), (0.5, 0.0), (2.0, 1.0)])
@pytest.mark.parametrize(
    "query", ["def getUser(user)", "user user name", "open path write", "nothing here"]
)
def test_bm25_scores_match_the_formula(query, k1, b):
    r = BM25Retriever(CODES, k1=k1, b=b)
    np.testing.assert_allclose(r.scores(query), naive_bm25(query, CODES, k1, b), rtol=1e-12)
    idx, sims = r.query(query, 3)
    want = sorted(range(len(CODES)), key=lambda i: (-naive_bm25(query, CODES, k1, b)[i], i))[:3]
    assert idx.tolist() == want
    np.testing.assert_allclose(sims, naive_bm25(query, CODES, k1, b)[want])


def test_exact_duplicate_comes_first(corpus):
    r = BM25Retriever(corpus.codes)
    for i in (0, 7, 31):
        assert r.query(corpus.codes[i], 1)[0][0] == corpus.codes.index(corpus.codes[i])


def test_ties_keep_corpus_order_and_k_is_bounded():
    r = BM25Retriever(["a b", "c d", "a b", "e"])
    idx, sims = r.query("a", 4)
    assert idx.tolist() == [0, 2, 1, 3] and sims[2] == sims[3] == 0
    with pytest.raises(ValueError, match="k"):
        r.query("a", 5)


def test_custom_tokenizer_and_idf():
    r = BM25Retriever(["x y", "x"], tokenizer=str.split)
    assert r.idf["x"] == pytest.approx(math.log(1 + 0.5 / 2.5))
    assert r.idf["y"] == pytest.approx(math.log(1 + 1.5 / 1.5))
    assert Counter(r.query("y", 2)[0].tolist()) == Counter([0, 1])
