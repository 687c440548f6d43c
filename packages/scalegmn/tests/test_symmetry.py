"""Symmetry operations against naive per-network loops and the function of the input network."""

import math

import numpy as np
import pytest
import scalegmn as S
import torch
from conftest import DIMS, gen, random_mlp


def naive_forward(ws, bs, x, act, omega0=1.0):
    """numpy, one network at a time, one neuron at a time."""
    fns = {
        "tanh": np.tanh,
        "relu": lambda z: np.maximum(z, 0),
        "sine": lambda z: np.sin(omega0 * z),
    }
    out = []
    for n in range(ws[0].shape[0]):
        rows = []
        for p in x.numpy():
            h = p
            for l, (w, b) in enumerate(zip(ws, bs, strict=True)):
                w, b = w[n].numpy(), b[n].numpy()
                z = np.array(
                    [sum(w[i, j] * h[j] for j in range(len(h))) + b[i] for i in range(len(b))]
                )
                h = fns[act](z) if l < len(ws) - 1 else z
            rows.append(h)
        out.append(rows)
    return torch.tensor(np.array(out))


@pytest.mark.parametrize("act", ["tanh", "relu", "sine"])
def test_forward_mlp_matches_naive_loop(act):
    ws, bs = random_mlp()
    x = torch.randn(5, 2, generator=gen(1), dtype=torch.float64)
    ours = S.forward_mlp(ws, bs, x, activation=act, omega0=2.5)
    ref = naive_forward(ws, bs, x, act, omega0=2.5)
    assert torch.allclose(ours, ref, atol=1e-12)
    # unbatched and per-network inputs agree with the batched call
    one = S.forward_mlp([w[1] for w in ws], [b[1] for b in bs], x, activation=act, omega0=2.5)
    assert torch.allclose(one, ref[1], atol=1e-12)
    per = S.forward_mlp(ws, bs, x.expand(3, 5, 2), activation=act, omega0=2.5)
    assert torch.allclose(per, ref, atol=1e-12)


@pytest.mark.parametrize(
    ("act", "kind", "preserved"),
    [
        ("tanh", "sign", True),
        ("sine", "sign", True),
        ("relu", "positive", True),
        ("tanh", "positive", False),
        ("relu", "sign", False),
    ],
)
def test_random_scaling_function_equality(act, kind, preserved):
    ws, bs = random_mlp()
    x = torch.rand(50, 2, generator=gen(2), dtype=torch.float64) * 2 - 1
    w2, b2, q = S.random_scaling(ws, bs, kind=kind, generator=gen(3))
    assert [tuple(t.shape) for t in q] == [(3, d) for d in DIMS[1:-1]]
    if kind == "sign":
        assert all(bool(((t == 1) | (t == -1)).all()) for t in q)
    else:
        assert all(bool(((t >= 0.1) & (t <= 10)).all()) for t in q)
    err = (
        (S.forward_mlp(w2, b2, x, activation=act) - S.forward_mlp(ws, bs, x, activation=act))
        .abs()
        .max()
    )
    assert (err < 1e-10) == preserved, float(err)


def test_apply_scaling_and_permutation_match_loops():
    ws, bs = random_mlp(batch=2)
    q = [torch.rand(2, d, generator=gen(4), dtype=torch.float64) + 0.5 for d in DIMS[1:-1]]
    perms = [
        torch.stack([torch.randperm(d, generator=gen(5 + k)) for k in range(2)]) for d in DIMS[1:-1]
    ]
    w2, b2 = S.apply_scaling(ws, bs, q)
    w3, b3 = S.apply_permutation(ws, bs, perms)
    one = lambda n, l: torch.ones(DIMS[l], dtype=torch.float64)  # noqa: E731
    for n in range(2):
        qs = [one(n, 0), *(t[n] for t in q), one(n, len(DIMS) - 1)]
        ps = [torch.arange(DIMS[0]), *(p[n] for p in perms), torch.arange(DIMS[-1])]
        for l in range(1, len(DIMS)):
            for i in range(DIMS[l]):
                assert math.isclose(b2[l - 1][n, i], qs[l][i] * bs[l - 1][n, i], rel_tol=1e-12)
                assert b3[l - 1][n, i] == bs[l - 1][n, ps[l][i]]
                for j in range(DIMS[l - 1]):
                    want = qs[l][i] * ws[l - 1][n, i, j] / qs[l - 1][j]
                    assert math.isclose(w2[l - 1][n, i, j], want, rel_tol=1e-12)
                    assert w3[l - 1][n, i, j] == ws[l - 1][n, ps[l][i], ps[l - 1][j]]


@pytest.mark.parametrize("act", ["tanh", "relu", "sine"])
def test_random_permutation_preserves_function(act):
    ws, bs = random_mlp()
    x = torch.randn(20, 2, generator=gen(6), dtype=torch.float64)
    w2, b2, perms = S.random_permutation(ws, bs, generator=gen(7))
    assert all(
        bool((torch.sort(p, dim=-1).values == torch.arange(p.shape[-1])).all()) for p in perms
    )
    assert any(not torch.equal(a, b) for a, b in zip(ws, w2, strict=True))
    err = (
        (S.forward_mlp(w2, b2, x, activation=act) - S.forward_mlp(ws, bs, x, activation=act))
        .abs()
        .max()
    )
    assert err < 1e-12


def test_canonicalize_sign():
    ws, bs = random_mlp(batch=4)
    x = torch.randn(20, 2, generator=gen(8), dtype=torch.float64)
    cw, cb = S.canonicalize_sign(ws, bs)
    assert all(bool((b >= 0).all()) for b in cb[:-1])
    assert torch.equal(cb[-1], bs[-1])
    assert torch.allclose(S.forward_mlp(cw, cb, x), S.forward_mlp(ws, bs, x), atol=1e-12)
    fw, fb, _ = S.random_scaling(ws, bs, kind="sign", generator=gen(9))
    cw2, cb2 = S.canonicalize_sign(fw, fb)
    for a, b in zip(cw + cb, cw2 + cb2, strict=True):
        assert torch.equal(a, b)


def _phase_shift(ws, bs, omega0, g):
    """Random sign flips, pi shifts (outgoing column negated) and 2 pi shifts: same function."""
    ws = [w.clone() for w in ws]
    bs = [b.clone() for b in bs]
    for l in range(len(ws) - 1):
        s = torch.where(torch.rand(bs[l].shape, generator=g) < 0.5, -1.0, 1.0).double()
        ws[l] *= s.unsqueeze(-1)
        bs[l] *= s
        ws[l + 1] *= s.unsqueeze(-2)
        k = torch.randint(-3, 4, bs[l].shape, generator=g).double()
        bs[l] += k * math.pi / omega0
        ws[l + 1] *= torch.where(k.remainder(2) == 1, -1.0, 1.0).unsqueeze(-2)
    return ws, bs


@pytest.mark.parametrize("omega0", [1.0, 30.0])
def test_canonicalize_sine_phase(omega0):
    ws, bs = random_mlp(batch=5, seed=3)
    bs = [b * 4 for b in bs]  # phases spread over several periods
    x = torch.rand(40, 2, generator=gen(10), dtype=torch.float64) * 2 - 1
    f = S.forward_mlp(ws, bs, x, activation="sine", omega0=omega0)
    cw, cb = S.canonicalize_sine_phase(ws, bs, omega0=omega0)
    assert (S.forward_mlp(cw, cb, x, activation="sine", omega0=omega0) - f).abs().max() < 1e-9
    for b in cb[:-1]:
        phase = omega0 * b
        assert bool((phase >= 0).all()) and bool((phase <= math.pi / 2 + 1e-12).all())
    assert torch.equal(cb[-1], bs[-1])
    # idempotent
    cw2, cb2 = S.canonicalize_sine_phase(cw, cb, omega0=omega0)
    for a, b in zip(cw + cb, cw2 + cb2, strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    # one result per equivalence class
    sw, sb = _phase_shift(ws, bs, omega0, gen(11))
    assert (S.forward_mlp(sw, sb, x, activation="sine", omega0=omega0) - f).abs().max() < 1e-9
    assert any(not torch.allclose(a, b) for a, b in zip(sw, ws, strict=True))
    cw3, cb3 = S.canonicalize_sine_phase(sw, sb, omega0=omega0)
    for a, b in zip(cw + cb, cw3 + cb3, strict=True):
        assert torch.allclose(a, b, atol=1e-9)
