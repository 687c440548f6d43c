"""Scoring throughput: CappyScorer.score against sentence-transformers' CrossEncoder.predict on
the same RoBERTa regression model (saved to a temporary directory and loaded by both), and
against scoring one pair at a time. The scores must agree (CrossEncoder with an identity
activation: Cappy's score is the raw logit).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import tempfile

import numpy as np
import torch

from papershelf_harness import Table, bench_cli, describe_machine, ratio, timeit_ms

torch.set_num_threads(1)


def _pairs(rng, n, vocab):
    def text(lo, hi):
        return " ".join(rng.choice(vocab, size=int(rng.integers(lo, hi))))

    return [text(8, 40) for _ in range(n)], [text(3, 20) for _ in range(n)]


def _peer(scorer):
    """The same model loaded by CrossEncoder (identity activation), or None without the peer."""
    try:  # the bench group has it; the fast tests' smoke run goes without it
        from sentence_transformers import CrossEncoder
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        scorer.save_pretrained(tmp)
        return CrossEncoder(tmp, max_length=128, activation_fn=torch.nn.Identity(), device="cpu")


def _row(table, scorer, peer, instructions, responses, repeat, label):
    pairs = list(zip(instructions, responses))
    ours = timeit_ms(lambda: scorer.score(instructions, responses, batch_size=32), repeat=repeat)
    one = timeit_ms(lambda: scorer.score(instructions, responses, batch_size=1), repeat=1)
    peer_ms, vs_peer, diff = "not installed", "n/a", "n/a"
    if peer is not None:
        theirs = timeit_ms(
            lambda: peer.predict(pairs, batch_size=32, show_progress_bar=False), repeat=repeat
        )
        a = scorer.score(instructions, responses, batch_size=32)
        b = np.asarray(peer.predict(pairs, batch_size=32, show_progress_bar=False))
        peer_ms, vs_peer = round(theirs.best_ms, 2), ratio(theirs.best_ms, ours.best_ms)
        diff = f"{float(np.max(np.abs(a - b))):.1e}"
    table.add(
        label,
        len(pairs),
        round(ours.best_ms, 2),
        peer_ms,
        round(one.best_ms, 2),
        vs_peer,
        ratio(one.best_ms, ours.best_ms),
        diff,
    )


def run(args):
    from cappy_scorer import CappyScorer, roberta_config, word_tokenizer

    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(500)]
    tok = word_tokenizer([" ".join(vocab)])
    table = Table(
        [
            "config",
            "pairs",
            "cappy_ms",
            "crossencoder_ms",
            "one_at_a_time_ms",
            "vs_crossencoder",
            "vs_one_at_a_time",
            "max_abs_diff",
        ]
    )
    configs = [(2, 64, 16)] if args.quick else [(2, 64, 256), (4, 256, 256)]
    for layers, d, n in configs:
        cfg = roberta_config(
            tok, hidden_size=d, num_layers=layers, num_heads=4, max_length=128, dropout=0.1
        )
        torch.manual_seed(0)
        scorer = CappyScorer.from_config(cfg, tok, max_length=128)
        instructions, responses = _pairs(rng, n, vocab)
        _row(
            table,
            scorer,
            _peer(scorer),
            instructions,
            responses,
            3 if args.quick else 5,
            f"RoBERTa {layers} x {d}",
        )
    table.notes = (
        f"{table.notes} Batch size 32, 1 torch thread, {describe_machine()}. CappyScorer sorts "
        "pairs by length before batching (less padding); CrossEncoder tokenises each batch in "
        "one call and pads it to its longest pair. max_abs_diff: CappyScorer vs CrossEncoder "
        "(identity activation) scores."
    )
    return table


main = bench_cli(run, title="cappy-scorer: scoring throughput vs CrossEncoder")
