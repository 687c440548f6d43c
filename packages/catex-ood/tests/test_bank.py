"""ContextBank: shapes, text features, perturbations, merging."""

import catex_ood as cx
import pytest
import torch

from papershelf_harness.testing import assert_close

NAMES = ["cat", "apple", "car", "tree"]


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _bank(names=NAMES, **kw):
    kw = {"n_ctx": 4, "token_dim": 16, "n_spurious": 2, "generator": _gen(), **kw}
    return cx.ContextBank(names, **kw)


def _encoder():
    return cx.TinyTextEncoder(token_dim=16, embed_dim=8, n_heads=2, generator=_gen(1))


def test_shapes_and_init():
    b = cx.ContextBank(NAMES, n_ctx=16, token_dim=64, n_spurious=3, generator=_gen())
    assert b.classnames == NAMES
    assert b.ctx.shape == (4, 16, 64) and b.spurious_ctx.shape == (4, 3, 16, 64)
    assert isinstance(b.ctx, torch.nn.Parameter) and b.ctx.requires_grad
    assert {n for n, _ in b.named_parameters()} == {"ctx", "spurious_ctx"}
    assert abs(float(b.ctx.detach().std()) - 0.02) < 0.002
    d = cx.ContextBank(["a"])
    assert d.ctx.shape == (1, 16, 512) and d.spurious_ctx.shape == (1, 1, 16, 512)
    same = cx.ContextBank(NAMES, n_ctx=16, token_dim=64, n_spurious=3, generator=_gen())
    assert torch.equal(same.ctx, b.ctx)


def test_text_features_call_encoder_per_context():
    b = _bank()
    calls = []

    def enc(ctx, names):
        calls.append((ctx.shape, list(names)))
        return ctx.sum(dim=1)[:, :8] * 3.0

    T, T_sp = b.text_features(enc)
    assert T.shape == (4, 8) and T_sp.shape == (4, 2, 8)
    assert calls == [((4, 4, 16), NAMES)] * 3
    assert_close(T.norm(dim=1), torch.ones(4), atol=1e-6)
    assert_close(T_sp.norm(dim=2), torch.ones(4, 2), atol=1e-6)
    ref = torch.nn.functional.normalize(b.spurious_ctx[:, 1].sum(1)[:, :8], dim=1)
    assert_close(T_sp[:, 1], ref, atol=1e-6)
    T.sum().backward()  # gradients reach the contexts
    assert b.ctx.grad is not None and b.ctx.grad.abs().sum() > 0


def _changed_tokens(a, b):
    return (a != b).any(dim=2)  # [C, M]


@pytest.mark.parametrize("method", cx.PERTURB_METHODS)
def test_perturb_changes_one_token_per_class(method):
    b = _bank()
    before = b.ctx.detach().clone()
    p = b.perturb(method, generator=_gen(5))
    assert isinstance(p, cx.ContextBank) and p is not b and p.classnames == NAMES
    assert torch.equal(b.ctx.detach(), before)  # the original is untouched
    assert torch.equal(p.spurious_ctx, b.spurious_ctx)
    changed = _changed_tokens(before, p.ctx.detach())
    assert changed.sum(dim=1).tolist() == [1] * 4
    rows, cols = changed.nonzero(as_tuple=True)
    new, old = p.ctx.detach()[rows, cols], before[rows, cols]
    if method == "neg":
        assert torch.equal(new, -old)
    elif method == "zero":
        assert torch.equal(new, torch.zeros_like(new))
    elif method == "randn":
        assert abs(float(new.std()) - 1.0) < 0.4  # N(0, I), not a small change
    elif method == "randn_add":
        assert abs(float((new - old).std()) - 1.0) < 0.4
    else:  # swap: another class's chosen token
        for r, tok in zip(rows.tolist(), new):
            src = [c for c in range(4) if torch.equal(tok, before[c, cols[c]])]
            assert len(src) == 1 and src[0] != r


def test_perturb_reproducible_and_swap_needs_two_classes():
    b = _bank()
    assert torch.equal(
        b.perturb("randn", generator=_gen(3)).ctx, b.perturb("randn", generator=_gen(3)).ctx
    )
    with pytest.raises(ValueError, match="swap"):
        _bank(["only"]).perturb("swap")
    with pytest.raises(ValueError, match="method"):
        b.perturb("flip")


def test_merge_features_are_concatenation():
    enc = _encoder()
    a = _bank(["cat", "apple", "car"], generator=_gen(1))
    b = _bank(["tree", "dog"], generator=_gen(2))
    m = a.merge(b)
    assert m.classnames == ["cat", "apple", "car", "tree", "dog"]
    assert m.ctx.shape == (5, 4, 16) and m.spurious_ctx.shape == (5, 2, 4, 16)
    Ta, Ta_sp = a.text_features(enc)
    Tb, Tb_sp = b.text_features(enc)
    Tm, Tm_sp = m.text_features(enc)
    assert_close(Tm, torch.cat([Ta, Tb]), atol=1e-6)
    assert_close(Tm_sp, torch.cat([Ta_sp, Tb_sp]), atol=1e-6)
    assert a.classnames == ["cat", "apple", "car"]  # inputs untouched


def test_merge_duplicates_and_shapes():
    a, b = _bank(["cat", "dog"]), _bank(["dog", "emu"])
    with pytest.raises(ValueError, match="dog"):
        a.merge(b)
    assert a.merge(b, allow_duplicates=True).classnames == ["cat", "dog", "dog", "emu"]
    with pytest.raises(ValueError, match="n_ctx"):
        a.merge(_bank(["emu"], n_ctx=3))
    with pytest.raises(TypeError, match="other"):
        a.merge("emu")
    with pytest.raises(ValueError, match="classnames"):
        cx.ContextBank(["a", "a"])


def test_tiny_encoder_is_order_independent():
    enc = _encoder()
    ctx = 0.02 * torch.randn(3, 4, 16, generator=_gen(7))
    out = enc(ctx, ["x", "y", "z"])
    out_rev = enc(ctx.flip(0), ["z", "y", "x"])
    assert out.shape == (3, 8)
    assert_close(out_rev.flip(0), out, atol=1e-5)
    assert not torch.allclose(enc(ctx, ["x", "x", "x"])[1], out[1])  # the name matters
