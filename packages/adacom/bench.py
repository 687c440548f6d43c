"""Speed of adacom's retrieval and metric against the peers, measured in the same run.

BM25: ``BM25Retriever.query`` (inverted index) vs rank-bm25's ``BM25Okapi.get_scores`` + top-k
on the same tokens (the retrieval step of every adapted sample). BLEU-4: ``bleu4`` vs sacrebleu's
``sentence_bleu(smooth_method="add-k", smooth_value=1, tokenize="none")``, which computes the
same number (checked here and in tests/test_peers.py).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import adacom
import numpy as np

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def _optional(name):
    try:
        return __import__(name)
    except ImportError:  # the peers are in the bench group; without them only ours is timed
        return None


def _bm25_row(table, n, n_q, rank_bm25):
    corpus = adacom.make_corpus({"A": n // 2, "B": n - n // 2}, rng=0)
    queries = list(adacom.make_corpus({"A": n_q, "B": n_q}, rng=1).codes)
    ours = adacom.BM25Retriever(corpus.codes)
    qtok = [adacom.code_tokenize(q) for q in queries]
    a = timeit_ms(lambda: [ours.query(q, 32) for q in queries], repeat=3).best_ms / len(queries)
    if rank_bm25 is None:
        table.add(f"BM25 top-32, N={n} (per query)", round(a, 3), "n/a", "n/a", "n/a")
        return
    peer = rank_bm25.BM25Okapi([adacom.code_tokenize(c) for c in corpus.codes], k1=1.2, b=0.75)
    peer.idf = dict(ours.idf)  # the same idf, so the scores are comparable

    def run_peer():
        return [np.argsort(-peer.get_scores(t), kind="stable")[:32] for t in qtok]

    diff = max(
        float(np.abs(ours.scores(q) - peer.get_scores(t)).max())
        for q, t in zip(queries, qtok, strict=True)
    )
    b = timeit_ms(run_peer, repeat=1 if n > 5000 else 3, warmup=0).best_ms / len(queries)
    table.add(f"BM25 top-32, N={n} (per query)", round(a, 3), round(b, 3), ratio(b, a),
              f"{diff:.1e}")  # fmt: skip


def run(args):
    rank_bm25, sacrebleu = _optional("rank_bm25"), _optional("sacrebleu")

    table = Table(["config", "adacom_ms", "peer_ms", "ratio", "max_abs_diff"])
    sizes = (500,) if args.quick else (2000, 20000)
    n_q = 5 if args.quick else 20
    for n in sizes:
        _bm25_row(table, n, n_q, rank_bm25)
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    pairs = [(" ".join(rng.choice(words, 12)), " ".join(rng.choice(words, 10))) for _ in range(300)]

    def ours_bleu():
        return [adacom.bleu4(h, r) for h, r in pairs]

    def peer_bleu():
        return [
            sacrebleu.sentence_bleu(h, [r], smooth_method="add-k", smooth_value=1,
                                    tokenize="none").score / 100
            for h, r in pairs
        ]  # fmt: skip

    a = timeit_ms(ours_bleu, repeat=3).best_ms / len(pairs)
    if sacrebleu is None:
        table.add("sentence BLEU-4 add-one (per pair)", round(a, 4), "n/a", "n/a", "n/a")
    else:
        diff = float(np.abs(np.array(ours_bleu()) - np.array(peer_bleu())).max())
        b = timeit_ms(peer_bleu, repeat=3).best_ms / len(pairs)
        table.add("sentence BLEU-4 add-one (per pair)", round(a, 4), round(b, 4), ratio(b, a),
                  f"{diff:.1e}")  # fmt: skip
    table.notes = (
        f"{RATIO_NOTE}; rank-bm25 scores every document per query term in Python, adacom only "
        "the postings of the query's terms; peers missing (not in the bench group): n/a"
    )
    return table


main = bench_cli(run, title="adacom: BM25 retrieval and BLEU-4 vs rank-bm25 and sacrebleu")
