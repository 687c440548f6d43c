"""catex_loss against a term-by-term numpy reference; fit_contexts learns."""

import catex_ood as cx
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _ce(logits, target):
    z = logits - logits.max()
    return -(z[target] - np.log(np.exp(z).sum()))


def _unit(a):
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def _terms(feats, labels, T, T_sp, scale, *, outlier):
    """Mean 2C-way CE (own logit of the other kind set to -10) and mean pair CE, per sample.
    ID: [s, s~] target y, pair (s_y, s~_y); outliers: [s~, s] target c, pair (s~_c, s_c)."""
    ce = pair = 0.0
    for f, lab in zip(feats, labels):
        s = scale * T @ f
        sp = scale * (T_sp @ f).max(axis=1)
        first, second = (sp, s) if outlier else (s, sp)
        masked = second.copy()
        masked[lab] = -10.0
        ce += _ce(np.concatenate([first, masked]), lab) / len(labels)
        pair += _ce(np.array([first[lab], second[lab]]), 0) / len(labels)
    return ce, pair


def _reference(x, y, T, T_sp, o, oy, scale, w):
    x, T, T_sp = _unit(x), _unit(T), _unit(T_sp)
    C = T.shape[0]
    ce_id, pair_id = _terms(x, y, T, T_sp, scale, outlier=False)
    ce_o, pair_o = _terms(_unit(o), oy, T, T_sp, scale, outlier=True)
    orth = 0.0
    for cls in range(C):
        m = T_sp[cls] @ T_sp[cls].T
        np.fill_diagonal(m, 0.0)
        orth += m.mean() / C
    ns = T_sp.shape[1]
    return (
        w[0] * ce_id
        + w[1] * ce_o
        + w[2] * pair_id
        + w[3] * pair_o
        + (w[4] * orth if ns > 1 else 0.0)
    )


@pytest.mark.parametrize("ns", [1, 3])
def test_loss_matches_reference(ns):
    r = np.random.default_rng(0)
    x, y = r.normal(size=(7, 5)), r.integers(0, 4, 7)
    T, T_sp = r.normal(size=(4, 5)), r.normal(size=(4, ns, 5))
    o, oy = r.normal(size=(3, 5)), np.array([0, 2, 3])
    w = (2.0, 0.5, 1.0, 1.0, 0.1)
    t = lambda a: torch.tensor(a)  # noqa: E731
    ours = cx.catex_loss(
        t(x),
        t(y),
        t(T),
        t(T_sp if ns > 1 else T_sp[:, 0]) if ns == 1 else t(T_sp),
        outliers=t(o),
        outlier_labels=t(oy),
        logit_scale=10.0,
        weights=w,
    )
    assert_close(ours, _reference(x, y, T, T_sp, o, oy, 10.0, w), atol=1e-10)
    no_out = cx.catex_loss(t(x), t(y), t(T), t(T_sp), logit_scale=10.0, weights=w)
    ref = _reference(x, y, T, T_sp, np.zeros((0, 5)), np.zeros(0, int), 10.0, w)
    assert_close(no_out, ref, atol=1e-10)


def test_fit_contexts_learns_and_synthesises():
    torch.manual_seed(0)
    enc = cx.TinyTextEncoder(token_dim=16, embed_dim=8, n_heads=2, generator=_gen(1))
    bank = cx.ContextBank(["a", "b", "c"], n_ctx=2, token_dim=16, generator=_gen(2))
    with torch.no_grad():
        T0, _ = cx.ContextBank(
            ["a", "b", "c"], n_ctx=2, token_dim=16, generator=_gen(9)
        ).text_features(enc)
    y = torch.arange(3).repeat(30)
    x = T0[y] + 0.3 * torch.randn(90, 8, generator=_gen(3))
    acc0 = float(((x @ bank.text_features(enc)[0].T).argmax(1) == y).float().mean())
    synth = cx.OutlierSynthesizer(
        3, queue_size=20, k=5, select=5, n_candidates=50, generator=_gen(4)
    )
    hist = cx.fit_contexts(
        bank,
        enc,
        x,
        y,
        epochs=4,
        lr=0.05,
        batch_size=45,
        synthesizer=synth,
        start_epoch=1,
        generator=_gen(5),
    )
    assert len(hist.loss) == 4 and hist.loss[-1] < hist.loss[0]
    assert sum(hist.n_outliers) > 0 and hist.n_outliers[0] == 0
    with torch.no_grad():
        T, T_sp = bank.text_features(enc)
    acc = float(((x @ T.T).argmax(1) == y).float().mean())
    assert acc > max(acc0 + 0.3, 0.6)
