"""Reproduce Adacom's headline claims (NeurIPS 2023) at small scale, on a synthetic corpus.

The paper's corpora (4 datasets), its 7 generators (CodeT5, UniXcoder, ...) and its code are
not available: the design is inferred (see the README). Here: a synthetic code -> comment corpus
whose projects comment the same code in contradictory ways (A 40%, B 60%, a rare project C of
20 pairs), a small GRU encoder-decoder trained briefly, and the brief's checks 1-6.

    python reproduce.py [--quick] [--seeds N] [--json PATH]
"""

from __future__ import annotations

import os
import statistics
import time

import adacom
import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli

SIZES = {  # (train A, train B, test per project, validation per project, epochs)
    "default": (400, 600, 20, 30, 2),
    "quick": (30, 40, 2, 4, 1),
}
STEPS, LR, K, M = 10, 3e-3, 32, 8
_CACHE: dict = {}


def _extra(parser):
    parser.add_argument(
        "--seeds", type=int, default=3, help="seeds to average (default 3; --quick: 1)"
    )


def _bleus(hyps, refs, metric=adacom.bleu4):
    return np.array([metric(h, r) for h, r in zip(hyps, refs, strict=True)])


def run_seed(seed: int, quick: bool) -> dict:
    n_a, n_b, n_test, n_val, epochs = SIZES["quick" if quick else "default"]
    torch.manual_seed(seed)
    train = adacom.make_corpus({"A": n_a, "B": n_b, "C": 20}, rng=seed)
    val = adacom.make_corpus({"A": n_val, "B": n_val, "C": n_val // 3 or 1}, rng=1000 + seed)
    test = adacom.make_corpus({"A": n_test, "B": n_test, "C": n_test}, rng=2000 + seed)
    gen = adacom.GRUCommentGenerator(
        train.codes,
        train.comments,
        embed=32,
        hidden=64,
        generator=torch.Generator().manual_seed(seed),
    )
    t0 = time.perf_counter()
    adacom.train_generator(
        gen, train.codes, train.comments, epochs=epochs, lr=1e-2,
        generator=torch.Generator().manual_seed(seed),
    )  # fmt: skip
    train_s = time.perf_counter() - t0
    det = adacom.CompromiseDetector(gen, train.codes, train.comments, k=8)
    y_val = adacom.compromise_labels(gen, val.codes, val.comments)
    codes, refs = list(test.codes), list(test.comments)
    base = gen.generate(codes)
    b_base, r_base = _bleus(base, refs), _bleus(base, refs, adacom.rouge_l)
    y_test = (b_base < np.median(b_base)).astype(int)
    out = {"seed": seed, "train_s": train_s}
    if y_val.min() == y_val.max():  # all BLEU tied (an untrained --quick model): flag all
        p = np.ones(len(codes))
    else:
        det.fit(val.codes, y_val)
        p = det.predict_proba(codes)
    feats = det.features(codes)
    if 0 < y_test.sum() < len(y_test) and y_val.min() < y_val.max():
        out["auroc"] = adacom.auroc(p, y_test)
        out["auroc_contradiction"] = adacom.auroc(feats[:, 3], y_test)
    flagged = p > 0.5
    out["flagged_frac"] = float(flagged.mean())
    proj = np.array(test.projects)
    steps = 2 if quick else STEPS
    for beta in (0.5, 0.0):
        ada = adacom.Adacom(gen, train.codes, train.comments, k=K, m=M, steps=steps, lr=LR,
                            beta=beta, detector=None)  # fmt: skip
        hyps, secs, all_hyps = list(base), [], None
        cpu = []
        if beta == 0.5:  # every sample adapted (detector off) for the per-project gains;
            all_hyps = []  # the flagged ones are used below
            for i, c in enumerate(codes):
                t_cpu = time.process_time()
                h, info = ada.summarize(c)
                all_hyps.append(h)
                if flagged[i]:
                    hyps[i] = h
                    secs.append(info["seconds"])
                    cpu.append(time.process_time() - t_cpu)
        else:
            for i in np.flatnonzero(flagged):
                t_cpu = time.process_time()
                hyps[i], info = ada.summarize(codes[i])
                secs.append(info["seconds"])
                cpu.append(time.process_time() - t_cpu)
        b, r = _bleus(hyps, refs), _bleus(hyps, refs, adacom.rouge_l)
        key = f"beta{beta}"
        out[key] = {
            "flagged_base": float(b_base[flagged].mean()) if flagged.any() else None,
            "flagged_ada": float(b[flagged].mean()) if flagged.any() else None,
            "all_base": float(b_base.mean()),
            "all_ada": float(b.mean()),
            "rouge_base": float(r_base.mean()),
            "rouge_ada": float(r.mean()),
            "seconds_per_flagged": float(np.mean(secs)) if secs else None,
            "cpu_seconds_per_flagged": float(np.mean(cpu)) if cpu else None,
        }
        if all_hyps is not None:
            ba = _bleus(all_hyps, refs)
            out["per_project"] = {
                pr: (float(b_base[proj == pr].mean()), float(ba[proj == pr].mean()))
                for pr in ("A", "B", "C")
            }
    return out


def exact_properties() -> dict[str, bool]:
    corpus = adacom.make_corpus({"A": 30, "B": 30}, rng=7)
    gen = adacom.GRUCommentGenerator(corpus.codes, corpus.comments, embed=8, hidden=16)
    adacom.train_generator(gen, corpus.codes, corpus.comments, epochs=1)
    snap = {k: v.clone() for k, v in gen.state_dict().items()}
    same = lambda: all(torch.equal(snap[k], v) for k, v in gen.state_dict().items())  # noqa: E731
    ada = adacom.Adacom(gen, corpus.codes, corpus.comments, k=8, m=4, steps=3, lr=1e-2)
    ada.summarize(corpus.codes[0])
    restored = same()
    calls = {"n": 0}
    original = gen.loss

    def flaky(*a):
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("injected")
        return original(*a)

    gen.loss = flaky
    try:
        ada.summarize(corpus.codes[1])
        raised = False
    except RuntimeError:
        raised = True
    finally:
        del gen.loss
    restored_exc = raised and same()
    quiet = adacom.Adacom(gen, corpus.codes, corpus.comments, detector=lambda c: 0.0, lr=1.0)
    unflagged = [quiet.summarize(c)[0] for c in corpus.codes[:10]] == gen.generate(
        list(corpus.codes[:10])
    )
    ret = adacom.BM25Retriever(corpus.codes)
    dup = all(ret.query(c, 1)[0][0] == corpus.codes.index(c) for c in corpus.codes)
    selfbleu = all(adacom.bleu4(c, c) == 1.0 for c in corpus.comments)
    return {"restored": restored, "restored_on_exception": restored_exc,
            "unflagged_identical": unflagged, "duplicate_first": dup, "self_bleu_1": selfbleu}  # fmt: skip


def _results(args) -> list[dict]:
    key = (args.quick, args.seeds)
    if key not in _CACHE:
        torch.set_num_threads(1)
        seeds = 1 if args.quick else args.seeds
        _CACHE[key] = [run_seed(s, args.quick) for s in range(seeds)]
    return _CACHE[key]


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else float("nan")


def _holds(ok, *values):
    """None (not checkable) when a value is NaN (e.g. a --quick model with every BLEU at 0)."""
    return None if any(v != v for v in values) else bool(ok)


def _gain(before, after):
    return (after - before) / before if before > 0 else float("nan")


def claims_exact(args):
    props = exact_properties()
    yield Claim(
        "weights restored bit for bit (also on an exception); unflagged = base output; "
        "exact duplicate retrieved first; BLEU-4(x, x) = 1",
        paper="(design property)",
        measured=", ".join(f"{k}={v}" for k, v in props.items()),
        holds=all(props.values()),
    )


def claims_method(args):
    res = _results(args)
    n = len(res)
    au = _mean(r.get("auroc") for r in res)
    auc = _mean(r.get("auroc_contradiction") for r in res)
    yield Claim("(1) the detector predicts 'BLEU-4 below the median': AUROC >= 0.7",
                paper="(inferred check; no number)", measured=f"{au:.3f}",
                holds=_holds(au >= 0.7, au), note=f"mean of {n} seeds, held-out test codes")  # fmt: skip
    yield Claim("(1) the contradiction feature alone: AUROC >= 0.6",
                paper="(inferred check)", measured=f"{auc:.3f}", holds=_holds(auc >= 0.6, auc),
                note=f"mean of {n} seeds")  # fmt: skip
    for beta in ("beta0.5",):
        fb = _mean(r[beta]["flagged_base"] for r in res)
        fa = _mean(r[beta]["flagged_ada"] for r in res)
        g = _gain(fb, fa)
        yield Claim("(3) BLEU-4 of flagged samples: relative gain >= 10%",
                    paper="+14.9% (BLEU-4, mean over 7 generators x 4 datasets)",
                    measured=f"{100 * g:+.1f}% ({fb:.3f} -> {fa:.3f})", holds=_holds(g >= 0.10, g),
                    note=f"beta=0.5, {STEPS} Adam steps, lr {LR}, mean of {n} seeds")  # fmt: skip
        ab = _mean(r[beta]["all_base"] for r in res)
        aa = _mean(r[beta]["all_ada"] for r in res)
        yield Claim("(3) overall test BLEU-4 does not decrease", paper="(implied)",
                    measured=f"{ab:.3f} -> {aa:.3f}", holds=bool(aa >= ab))  # fmt: skip
        rb = _mean(r[beta]["rouge_base"] for r in res)
        ra = _mean(r[beta]["rouge_ada"] for r in res)
        yield Claim.reported("ROUGE-L relative gain (whole test set)", paper="+7.4%",
                    measured=f"{100 * _gain(rb, ra):+.1f}% ({rb:.3f} -> {ra:.3f})",                    note="different data and models: reported, not compared")  # fmt: skip
    yield Claim.not_run("METEOR relative gain", paper="+12.2%",
                        why="METEOR needs WordNet data (nltk); not implemented")  # fmt: skip
    g5 = _mean(_gain(r["beta0.5"]["flagged_base"], r["beta0.5"]["flagged_ada"]) for r in res
               if r["beta0.5"]["flagged_base"])  # fmt: skip
    g0 = _mean(_gain(r["beta0.0"]["flagged_base"], r["beta0.0"]["flagged_ada"]) for r in res
               if r["beta0.0"]["flagged_base"])  # fmt: skip
    yield Claim("(4) unlearning S_o matters: gain(beta=0) <= gain(beta=0.5)",
                paper="'strengthen helpful + unlearn harmful' (no ablation number read)",
                measured=f"beta=0: {100 * g0:+.1f}%, beta=0.5: {100 * g5:+.1f}%",
                holds=_holds(g0 <= g5, g0, g5),
                note=f"flagged samples, mean of the {n} per-seed relative gains")  # fmt: skip
    sec = _mean(r["beta0.5"]["seconds_per_flagged"] for r in res)
    cpu = _mean(r["beta0.5"]["cpu_seconds_per_flagged"] for r in res)
    frac = _mean(r["flagged_frac"] for r in res)
    yield Claim("(2) cost: <= 0.5 s added per flagged sample (10 steps, toy model, CPU)",
                paper="'cost-effective, acceptable on the fly' (no number read)",
                measured=f"CPU {cpu:.2f} s (wall {sec:.2f} s) per flagged sample; "
                f"{100 * frac:.0f}% flagged",
                holds=None if args.quick else _holds(cpu <= 0.5, cpu),
                note="judged on CPU time (1 torch thread), as the shared 2-core machine's wall "
                f"time depends on the other jobs (load average {os.getloadavg()[0]:.0f} at the "
                "end); includes retrieval and generation")  # fmt: skip
    ga = _mean(_gain(*r["per_project"]["A"]) for r in res)
    gc = _mean(_gain(*r["per_project"]["C"]) for r in res)
    yield Claim("(6) out-of-distribution: gain on rare project C >= gain on project A",
                paper="'adapts well on out-of-distribution code' (no number read)",
                measured=f"C: {100 * gc:+.1f}%, A: {100 * ga:+.1f}%", holds=_holds(gc >= ga, gc, ga),
                note="every sample adapted (no detector), beta=0.5")  # fmt: skip


def _details(args):
    return {"seeds": _results(args)}


main = reproduce_cli([claims_exact, claims_method], extra_args=_extra, details=_details)
