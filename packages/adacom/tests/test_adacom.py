"""Adacom: restoration, gating, S_p / S_o selection and the exact adaptation objective."""

import adacom
import pytest
import torch
from adacom import Adacom, group_by_agreement, restoring
from torch import nn


def snapshot(module):
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def assert_bitwise_equal(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_weights_restored_bit_for_bit(corpus, gru):
    before = snapshot(gru)
    grads = [None if p.grad is None else p.grad.clone() for p in gru.parameters()]
    ada = Adacom(gru, corpus.codes, corpus.comments, k=8, m=4, steps=3, lr=1e-2)
    _, info = ada.summarize(corpus.codes[0])
    assert info["flagged"] and len(info["losses"]) == 3
    assert info["ce_support"][1] < info["ce_support"][0]  # adaptation did change the model
    assert_bitwise_equal(before, snapshot(gru))
    for g, p in zip(grads, gru.parameters()):
        assert (g is None and p.grad is None) or torch.equal(g, p.grad)


class Boom(RuntimeError):
    pass


def test_weights_restored_when_adaptation_raises(corpus, gru):
    before = snapshot(gru)
    calls = {"n": 0}
    original = gru.loss

    def flaky(codes, comments):
        calls["n"] += 1
        if calls["n"] == 6:  # mid-adaptation, after some optimiser steps
            raise Boom("injected")
        return original(codes, comments)

    gru.loss = flaky
    try:
        ada = Adacom(gru, corpus.codes, corpus.comments, k=8, m=4, steps=5, lr=1e-1)
        with pytest.raises(Boom):
            ada.summarize(corpus.codes[3])
    finally:
        del gru.loss
    assert calls["n"] == 6
    assert_bitwise_equal(before, snapshot(gru))


def test_restoring_also_restores_grads_and_modes():
    lin = nn.Linear(2, 2)
    lin.weight.grad = torch.ones(2, 2)
    lin.eval()
    before = snapshot(lin)
    with pytest.raises(ValueError):
        with restoring(lin):
            lin.train()
            lin.weight.grad = None
            with torch.no_grad():
                lin.weight.add_(1.0)
            raise ValueError("x")
    assert_bitwise_equal(before, snapshot(lin))
    assert torch.equal(lin.weight.grad, torch.ones(2, 2)) and not lin.training


def test_unflagged_output_is_the_base_models(corpus, gru):
    test = adacom.make_corpus({"A": 5, "B": 5}, cue=0.6, rng=9)
    base = gru.generate(list(test.codes))
    seen = []

    def never(code):
        seen.append(code)
        return 0.2

    ada = Adacom(gru, corpus.codes, corpus.comments, detector=never, steps=5, lr=1.0)
    out, infos = ada.summarize_batch(list(test.codes))
    assert out == base and seen == list(test.codes)
    assert all(not i["flagged"] and i["support"] == [] and i["losses"] == [] for i in infos)
    ada.detector = lambda code: 0.5  # the rule is > 0.5
    assert not ada.summarize(test.codes[0])[1]["flagged"]
    ada.detector = lambda code: 0.51
    assert ada.summarize(test.codes[0])[1]["flagged"]


def test_group_by_agreement():
    comments = ["returns the user", "fetch user from cache", "returns the user id", "x"]
    assert group_by_agreement(comments) == [[0, 2], [1], [3]]
    assert group_by_agreement(comments, threshold=0.0) == [[0, 1, 2, 3]]


class TableGenerator(nn.Module):
    """loss_i = softplus(theta[comment id] - 0.1 * len(code)); generate records theta."""

    def __init__(self, vocab):
        super().__init__()
        self.vocab = {c: i for i, c in enumerate(vocab)}
        self.theta = nn.Parameter(torch.linspace(-1.0, 1.0, len(vocab), dtype=torch.float64))
        self.seen = []

    def loss(self, codes, comments):
        ids = torch.tensor([self.vocab[c] for c in comments])
        lens = torch.tensor([len(c) for c in codes], dtype=torch.float64)
        return nn.functional.softplus(self.theta[ids] - 0.1 * lens)

    def generate(self, codes):
        self.seen.append(self.theta.detach().clone())
        return ["x"] * len(codes)


CODES = ["get user a", "get user b", "get user c", "get user d", "get user e", "save file"]
COMMENTS = ["returns the user", "returns the user", "fetch user", "fetch user cache",
            "returns the user", "stores the file"]  # fmt: skip


def manual_step(gen, sp, so, beta, kappa, lr):
    theta = gen.theta.detach().clone().requires_grad_(True)

    def ce(ids):
        cid = torch.tensor([gen.vocab[COMMENTS[i]] for i in ids])
        lens = torch.tensor([len(CODES[i]) for i in ids], dtype=torch.float64)
        return nn.functional.softplus(theta[cid] - 0.1 * lens).mean()

    o = ce(so)
    obj = ce(sp) - beta * (o if o.item() < kappa else o.detach() * 0 + kappa)
    obj.backward()
    return gen.theta.detach() - lr * theta.grad


@pytest.mark.parametrize("beta,kappa", [(0.5, 10.0), (0.0, None), (0.7, 0.01)])
def test_one_sgd_step_is_the_stated_objective(beta, kappa):
    gen = TableGenerator(sorted(set(COMMENTS)))
    ada = Adacom(gen, CODES, COMMENTS, k=5, m=3, steps=1, lr=0.3, beta=beta, kappa=kappa,
                 optimizer="sgd")  # fmt: skip
    _, info = ada.summarize("get user")
    sp, so = info["support"], info["contradicting"]
    # 5 "get user" codes tie on BM25 (same tokens, same length): corpus order; the "returns the
    # user" group (0, 1, 4) outweighs "fetch user" (2) and "fetch user cache" (3)
    assert sp == [0, 1, 4] and so == [2, 3]
    kappa_eff = kappa if kappa is not None else info["ce_contradicting"][0] + 2.0
    want = manual_step(gen, sp, so, beta, kappa_eff, 0.3)
    torch.testing.assert_close(gen.seen[-1], want, rtol=0, atol=1e-15)
    assert info["kappa"] == pytest.approx(kappa_eff)


def test_default_kappa_bounds_the_ascent():
    gen = TableGenerator(sorted(set(COMMENTS)))
    ada = Adacom(gen, CODES, COMMENTS, k=5, m=3, steps=200, lr=0.5, beta=1.0, optimizer="sgd")
    _, info = ada.summarize("get user")
    ce_o0, ce_o1 = info["ce_contradicting"]
    assert info["kappa"] == pytest.approx(ce_o0 + 2.0)
    assert ce_o1 > info["kappa"] - 1e-9  # unlearned up to the bound ...
    assert ce_o1 <= info["kappa"] + 0.5  # ... and no further than one step (slope <= 1) past it
    assert info["ce_support"][1] < info["ce_support"][0]
    unbounded = Adacom(gen, CODES, COMMENTS, k=5, m=3, steps=200, lr=0.5, beta=1.0,
                       kappa=1e9, optimizer="sgd")  # fmt: skip
    assert unbounded.summarize("get user")[1]["ce_contradicting"][1] > ce_o1 + 5


def test_adaptation_helps_the_compromised_project(corpus, gru):
    """A check of the method, not only the plumbing: on A-project code that the globally
    trained (B-majority) model gets wrong, adapting towards S_p raises BLEU on average."""
    test = adacom.make_corpus({"A": 12}, cue=0.6, rng=5)
    base = gru.generate(list(test.codes))
    ada = Adacom(gru, corpus.codes, corpus.comments, k=16, m=6, steps=5, lr=1e-2)
    out, _ = ada.summarize_batch(list(test.codes))
    b0 = sum(adacom.bleu4(h, r) for h, r in zip(base, test.comments))
    b1 = sum(adacom.bleu4(h, r) for h, r in zip(out, test.comments))
    assert b1 > b0
