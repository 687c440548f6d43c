"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import catex_ood as cx
import numpy as np
import pytest
import torch

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

G = torch.Generator().manual_seed(0)
S = torch.rand(4, 3, generator=G)
S_SP = torch.rand(4, 3, 2, generator=G)
NAMES = ["a", "b", "c"]
BANK = cx.ContextBank(NAMES, n_ctx=2, token_dim=8)
ENC = cx.TinyTextEncoder(token_dim=8, embed_dim=4, n_heads=2)
F = torch.nn.functional.normalize(torch.randn(6, 4, generator=G), dim=1)
Y = torch.tensor([0, 1, 2, 0, 1, 2])
T = torch.nn.functional.normalize(torch.randn(3, 4, generator=G), dim=1)
T_SP = torch.nn.functional.normalize(torch.randn(3, 2, 4, generator=G), dim=1)
SYN = cx.OutlierSynthesizer(3, queue_size=2, k=1, select=1, n_candidates=3).update(F, Y)


def _t(v):
    """numpy numbers -> a tensor (torch arguments); anything else as it is."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return torch.from_numpy(v)
    return v


def _bad_labels(n):
    return (
        (torch.tensor([0.0] * n), TypeError),
        (torch.tensor([[0] * n]), ValueError),
        (torch.tensor([0] * (n - 1)), ValueError),
        (torch.tensor([0] * (n - 1) + [7]), ValueError),
        (torch.tensor([0] * (n - 1) + [-1]), ValueError),
        ([0] * n, TypeError),
        (None, TypeError),
    )


BAD_S_SP = (
    (torch.full((4, 3), float("nan")), ValueError),
    (torch.full((4, 3), float("inf")), ValueError),
    (torch.rand(4, 2), ValueError),
    (torch.rand(4, 3, 0), ValueError),
    (torch.rand(4), ValueError),
    (np.full((4, 3), "x"), TypeError),
    (None, TypeError),
)

CASES = [
    # scores (tensors or arrays)
    suite.Array("mcm_score.S", "S", lambda v: cx.mcm_score(v), (4, 3), (2,)),
    suite.Array("mcm_score.S(tensor)", "S", lambda v: cx.mcm_score(_t(v)), (4, 3), (2,)),
    suite.keyword(suite.Number, cx.mcm_score, "temperature", S),
    *(
        suite.Array(f"{f.__name__}.S", "S", lambda v, f=f: f(_t(v), S_SP), (4, 3), (2,))
        for f in (cx.catex_score, cx.catex_logits, cx.catex_full_score)
    ),
    *(
        suite.Values(f"{f.__name__}.S_sp", "S_sp", lambda v, f=f: f(S, v), bad=BAD_S_SP)
        for f in (cx.catex_score, cx.catex_logits, cx.catex_full_score)
    ),
    suite.keyword(suite.Number, cx.catex_score, "tau", S, S_SP),
    suite.keyword(suite.Number, cx.catex_logits, "tau", S, S_SP),
    # ContextBank
    suite.Values(
        "ContextBank.classnames",
        "classnames",
        lambda v: cx.ContextBank(v, n_ctx=2, token_dim=4),
        bad=(
            ([], ValueError),
            ("abc", TypeError),
            ([1, 2], TypeError),
            (["a", ""], ValueError),
            (["a", "a"], ValueError),
            (None, TypeError),
            (3, TypeError),
        ),
    ),
    *(
        suite.keyword(suite.Int, cx.ContextBank, name, NAMES, minimum=1)
        for name in ("n_ctx", "token_dim", "n_spurious")
    ),
    suite.Values(
        "ContextBank.generator",
        "generator",
        lambda v: cx.ContextBank(NAMES, generator=v),
        bad=((0, TypeError), ("abc", TypeError), (np.random.default_rng(0), TypeError)),
    ),
    suite.Option(
        "ContextBank.perturb.method",
        "method",
        lambda v: BANK.perturb(v),
        frozenset(cx.PERTURB_METHODS),
    ),
    suite.Values(
        "ContextBank.perturb.generator",
        "generator",
        lambda v: BANK.perturb("zero", generator=v),
        bad=((1, TypeError),),
    ),
    suite.Values(
        "ContextBank.text_features.encoder",
        "encoder",
        lambda v: BANK.text_features(v),
        bad=((None, TypeError), ("enc", TypeError), (lambda c, n: c.sum(1)[:2], ValueError)),
    ),
    suite.Values(
        "ContextBank.merge.other",
        "other",
        lambda v: BANK.merge(v),
        bad=(
            (None, TypeError),
            (NAMES, TypeError),
            (BANK, ValueError),
            (cx.ContextBank(["z"], n_ctx=3, token_dim=8), ValueError),
        ),
    ),
    suite.keyword(
        suite.Flag, BANK.merge, "allow_duplicates", cx.ContextBank(["z"], n_ctx=2, token_dim=8)
    ),
    # OutlierSynthesizer
    suite.Int(
        "OutlierSynthesizer.n_classes", "n_classes", lambda v: cx.OutlierSynthesizer(v), minimum=1
    ),
    *(
        suite.keyword(
            suite.Int,
            cx.OutlierSynthesizer,
            name,
            3,
            kwargs={"queue_size": 10, **({"select": 2} if name == "k" else {"k": 2})},
            minimum=1,
            maximum=10,
        )
        for name in ("k", "select")
    ),
    *(
        suite.keyword(
            suite.Int, cx.OutlierSynthesizer, name, 3, kwargs={"k": 1, "select": 1}, minimum=1
        )
        for name in ("queue_size", "n_candidates")
    ),
    suite.keyword(suite.Number, cx.OutlierSynthesizer, "sigma", 3),
    suite.Values(
        "OutlierSynthesizer.generator",
        "generator",
        lambda v: cx.OutlierSynthesizer(3, generator=v),
        bad=((0, TypeError),),
    ),
    suite.Array(
        "OutlierSynthesizer.update.feats",
        "feats",
        lambda v: cx.OutlierSynthesizer(3).update(_t(v), Y),
        (6, 4),
        (2,),
    ),
    suite.Values(
        "OutlierSynthesizer.update.labels",
        "labels",
        lambda v: cx.OutlierSynthesizer(3).update(F, v),
        bad=_bad_labels(6),
    ),
    suite.Mismatch("OutlierSynthesizer.update.feats", "feats", lambda: SYN.update(F[:, :3], Y)),
    suite.Values(
        "OutlierSynthesizer.sample.anchors",
        "anchors",
        lambda v: SYN.sample(v),
        bad=(
            (T, TypeError),
            ((T,), TypeError),
            ("ab", TypeError),
            ((T, T[:2]), ValueError),
            ((T, T * float("nan")), ValueError),
            ((T[:, :3], T), ValueError),
        ),
    ),
    # loss and training
    suite.Array(
        "catex_loss.img_feats",
        "img_feats",
        lambda v: cx.catex_loss(_t(v), Y, T, T_SP),
        (6, 4),
        (2,),
    ),
    suite.Values(
        "catex_loss.labels", "labels", lambda v: cx.catex_loss(F, v, T, T_SP), bad=_bad_labels(6)
    ),
    suite.Array("catex_loss.T", "T", lambda v: cx.catex_loss(F, Y, _t(v), T_SP), (3, 4), (2,)),
    suite.Array(
        "catex_loss.T_sp", "T_sp", lambda v: cx.catex_loss(F, Y, T, _t(v)), (3, 2, 4), (2, 3)
    ),
    suite.Mismatch("catex_loss.T_sp", "T_sp", lambda: cx.catex_loss(F, Y, T, T_SP[:2])),
    suite.Mismatch(
        "catex_loss.img_feats", "img_feats", lambda: cx.catex_loss(F[:, :3], Y, T, T_SP)
    ),
    suite.keyword(suite.Number, cx.catex_loss, "logit_scale", F, Y, T, T_SP),
    suite.Values(
        "catex_loss.weights",
        "weights",
        lambda v: cx.catex_loss(F, Y, T, T_SP, weights=v),
        bad=(
            (None, TypeError),
            ((1.0, 2.0), TypeError),
            ((1.0, 1.0, 1.0, 1.0, -1.0), ValueError),
            ((1.0, 1.0, float("nan"), 1.0, 1.0), ValueError),
        ),
    ),
    suite.Array(
        "catex_loss.outliers",
        "outliers",
        lambda v: cx.catex_loss(F, Y, T, T_SP, outliers=_t(v), outlier_labels=Y[:2]),
        (2, 4),
        (2,),
        none_ok=True,
    ),
    suite.Array(
        "spurious_orthogonality.T_sp",
        "T_sp",
        lambda v: cx.spurious_orthogonality(_t(v)),
        (3, 2, 4),
        (3,),
    ),
    suite.Array(
        "fit_contexts.feats",
        "feats",
        lambda v: cx.fit_contexts(BANK, ENC, _t(v), Y, epochs=1),
        (6, 4),
        (2,),
    ),
    suite.Values(
        "fit_contexts.labels",
        "labels",
        lambda v: cx.fit_contexts(BANK, ENC, F, v, epochs=1),
        bad=_bad_labels(6),
    ),
    *(
        suite.keyword(suite.Int, cx.fit_contexts, name, BANK, ENC, F, Y, minimum=1)
        for name in ("epochs", "batch_size")
    ),
    suite.keyword(suite.Number, cx.fit_contexts, "lr", BANK, ENC, F, Y, kwargs={"epochs": 1}),
    suite.keyword(suite.Flag, cx.fit_contexts, "spurious", BANK, ENC, F, Y, kwargs={"epochs": 1}),
    suite.Values(
        "fit_contexts.bank",
        "bank",
        lambda v: cx.fit_contexts(v, ENC, F, Y),
        bad=((None, TypeError), (ENC, TypeError)),
    ),
    # the tiny encoder
    suite.Array("TinyTextEncoder.ctx", "ctx", lambda v: ENC(_t(v), NAMES), (3, 2, 8), (3,)),
    suite.Mismatch(
        "TinyTextEncoder.classnames", "classnames", lambda: ENC(torch.zeros(3, 2, 8), NAMES[:2])
    ),
    suite.Mismatch("TinyTextEncoder.ctx", "ctx", lambda: ENC(torch.zeros(3, 2, 5), NAMES)),
    *(
        suite.keyword(suite.Int, cx.TinyTextEncoder, name, minimum=1)
        for name in ("token_dim", "embed_dim", "n_layers", "n_heads", "name_tokens", "max_ctx")
    ),
]
globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("tau", [-0.1, 1.5])
def test_tau_out_of_range(tau):
    assert_rejects(ValueError, "tau", cx.catex_score, S, S_SP, tau=tau)


@pytest.mark.parametrize("t", [0.0, -1.0])
def test_temperature_must_be_positive(t):
    assert_rejects(ValueError, "temperature", cx.mcm_score, S, temperature=t)


def test_swap_needs_two_classes():
    assert_rejects(ValueError, "swap", cx.ContextBank(["a"], n_ctx=2, token_dim=4).perturb, "swap")
