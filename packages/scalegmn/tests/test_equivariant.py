"""The equivariant weight-space head: f(g . theta) = g . f(theta), checked by applying the
group element to the output with the (separately tested) symmetry operations."""

import pytest
import scalegmn as S
import torch
from conftest import DIMS, gen, random_mlp
from test_cnn import CH, brute_group, random_cnn
from test_model import _mixed_group


def equiv_model(sym, dims=DIMS, seed=0, **kw):
    torch.manual_seed(seed)
    kw.setdefault("num_layers", 2)
    return S.ScaleGMNEquivariant(dims, d_hidden=8, symmetry=sym, **kw).double().eval()


def rel(a, b):
    return max(
        float(((x - y).norm() / (y.norm() + 1e-30)).detach()) for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize(
    ("sym", "bid"),
    [("sign", False), ("sign", True), ("scale", False), ("scale", True), ("hetero", False)],
)
def test_head_is_equivariant(sym, bid):
    ws, bs = random_mlp()
    m = equiv_model(sym, bidirectional=bid)
    mask = torch.rand(3, sum(DIMS), generator=gen(3)) < 0.5 if sym == "hetero" else None
    kw = {"sign_mask": mask} if mask is not None else {}
    dw, db = m(ws, bs, **kw)
    assert [tuple(w.shape) for w in dw] == [tuple(w.shape) for w in ws]
    assert [tuple(b.shape) for b in db] == [tuple(b.shape) for b in bs]
    w2, b2, q, mask2 = _mixed_group(sym, ws, bs, 4, mask)
    # the same permutations as _mixed_group drew (it permutes after scaling, seed + 2)
    _, _, perms = S.random_permutation(*S.apply_scaling(ws, bs, q), generator=gen(6))
    kw2 = {"sign_mask": mask2} if mask is not None else {}
    got_w, got_b = m(w2, b2, **kw2)
    want_w, want_b = S.apply_permutation(*S.apply_scaling(dw, db, q), perms)
    assert rel(got_w + got_b, want_w + want_b) < 1e-7
    # non-trivial: the output is not invariant (hidden biases do flip / scale)
    assert rel(got_b[:-1], db[:-1]) > 1e-3


def test_permutation_head_is_not_sign_equivariant():
    ws, bs = random_mlp()
    m = equiv_model("permutation")
    dw, db = m(ws, bs)
    w2, b2, q = S.random_scaling(ws, bs, kind="sign", generator=gen(1))
    got_w, got_b = m(w2, b2)
    want_w, want_b = S.apply_scaling(dw, db, q)
    assert rel(got_w + got_b, want_w + want_b) > 1e-3
    # but it is permutation equivariant
    w3, b3, perms = S.random_permutation(ws, bs, generator=gen(2))
    got_w, got_b = m(w3, b3)
    want_w, want_b = S.apply_permutation(dw, db, perms)
    assert rel(got_w + got_b, want_w + want_b) < 1e-10


def test_head_on_cnns_and_mixed_layouts():
    ws, bs = random_cnn()
    m = equiv_model("sign", dims=[CH, (2, 3, 2)], kernel_size=3)
    dw, db = m(ws, bs)
    assert [tuple(w.shape) for w in dw] == [tuple(w.shape) for w in ws]
    w2, b2, q, perms = brute_group(ws, bs, "sign", 5)
    got_w, got_b = m(w2, b2)
    want_w, want_b = S.cnn_apply_permutation(*S.cnn_apply_scaling(dw, db, q), perms)
    assert rel(got_w + got_b, want_w + want_b) < 1e-7
    mw = [torch.randn(3, 2, dtype=torch.float64), torch.randn(2, 3, dtype=torch.float64)]
    mb = [torch.randn(3, dtype=torch.float64), torch.randn(2, dtype=torch.float64)]
    res = m([ws, mw], [bs, mb])
    assert len(res) == 2
    assert all(torch.allclose(a, b, atol=1e-12) for a, b in zip(res[0][0], dw, strict=True))
    assert [tuple(w.shape) for w in res[1][0]] == [(1, 3, 2), (1, 2, 3)]


@pytest.mark.slow
def test_head_trains_to_an_equivariant_target():
    """Fit f(theta) = 2 * theta on hidden biases: reachable only through the equivariant path."""
    torch.manual_seed(0)
    ws, bs = random_mlp(batch=8, seed=7)
    m = S.ScaleGMNEquivariant(DIMS, d_hidden=8, num_layers=1, symmetry="sign").double()
    opt = torch.optim.Adam(m.parameters(), lr=3e-2)

    def loss():
        _, db = m(ws, bs)
        return sum(((p - 2 * b) ** 2).mean() for p, b in zip(db[:-1], bs[:-1], strict=True))

    first = float(loss())
    for _ in range(40):
        opt.zero_grad()
        ls = loss()
        ls.backward()
        opt.step()
    assert float(loss()) < 0.3 * first
