"""INR editing: the residual edit commutes with the INR's symmetries, and fit_editor learns a
weight-space edit whose exact solution is known (dilation of a sine INR: W_1 -> W_1 / 2)."""

import pytest
import scalegmn as S
import torch
from conftest import gen, random_mlp
from scalegmn.train import apply_edit, fit_editor

from papershelf_harness.testing import assert_close

DIMS = (2, 5, 4, 1)
OM = 3.0


def editor(symmetry="sign", **kw):
    torch.manual_seed(0)
    return S.ScaleGMNEquivariant(DIMS, d_hidden=8, num_layers=2, symmetry=symmetry, **kw)


def test_edit_commutes_with_sign_flips_and_permutations():
    ws, bs = random_mlp(DIMS, batch=4, seed=0)
    m = editor().double()
    w2, b2, q = S.random_scaling(ws, bs, kind="sign", generator=gen(1))
    w2, b2, perms = S.random_permutation(w2, b2, generator=gen(2))
    ew, eb = apply_edit(m, ws, bs)
    ew2, eb2 = apply_edit(m, w2, b2, batch_size=3)
    # the edited flipped network is the flipped edited network ...
    gw, gb = S.apply_permutation(*S.apply_scaling(ew, eb, q), perms)
    for a, b in zip(ew2 + eb2, gw + gb, strict=True):
        assert_close(a, b, atol=1e-10)
    # ... so both compute the same function
    x = S.zoo.grid(5).double()
    f = S.forward_mlp(ew, eb, x, activation="sine", omega0=OM)
    assert_close(S.forward_mlp(ew2, eb2, x, activation="sine", omega0=OM), f, atol=1e-10)
    # and the edit is the residual theta + model(theta)
    dw, db = m(ws, bs)
    assert_close(ew[0], ws[0] + dw[0]) and assert_close(eb[-1], bs[-1] + db[-1])


def test_permutation_editor_is_not_sign_equivariant():
    ws, bs = random_mlp(DIMS, batch=4, seed=0)
    m = editor("permutation").double()
    w2, b2, q = S.random_scaling(ws, bs, kind="sign", generator=gen(1))
    ew, eb = apply_edit(m, ws, bs)
    ew2, _ = apply_edit(m, w2, b2)
    gw, _ = S.apply_scaling(ew, eb, q)
    assert float((ew2[0] - gw[0]).abs().max()) > 1e-3


def test_fit_editor_learns_dilation():
    z = S.zoo.function_zoo(
        32,
        layer_dims=DIMS,
        activation="sine",
        omega0=OM,
        steps=60,
        lr=0.02,
        n_side=6,
        generator=gen(3),
    )
    x = S.zoo.grid(6)
    target = S.forward_mlp(z.weights, z.biases, 0.5 * x, activation="sine", omega0=OM)
    # the exact edit exists: halving the first layer's weights dilates the INR by 2
    exact = S.forward_mlp(
        [z.weights[0] / 2, *z.weights[1:]], z.biases, x, activation="sine", omega0=OM
    )
    assert_close(exact, target, atol=1e-5)
    before = float(
        ((S.forward_mlp(z.weights, z.biases, x, activation="sine", omega0=OM) - target) ** 2).mean()
    )
    m = editor()
    hist = fit_editor(
        m,
        z.weights,
        z.biases,
        x,
        target,
        omega0=OM,
        epochs=12,
        batch_size=16,
        lr=5e-3,
        warmup_steps=1,
        generator=gen(4),
    )
    ew, eb = apply_edit(m, z.weights, z.biases)
    after = float(((S.forward_mlp(ew, eb, x, activation="sine", omega0=OM) - target) ** 2).mean())
    assert hist[-1] < hist[0] and after < 0.1 * before


def test_fit_editor_rejects_bad_input():
    ws, bs = random_mlp(DIMS, batch=3, seed=0)
    x = S.zoo.grid(3).double()
    m = editor().double()
    with pytest.raises(ValueError, match="targets"):
        fit_editor(m, ws, bs, x, torch.zeros(3, 8, 1, dtype=torch.float64), epochs=1)
    with pytest.raises(ValueError, match="x"):
        fit_editor(m, ws, bs, torch.zeros(9, 3), torch.zeros(3, 9, 1), epochs=1)
    with pytest.raises(TypeError, match="model"):
        fit_editor(S.ScaleGMN(DIMS, out_dim=1, d_hidden=4), ws, bs, x, torch.zeros(3, 9, 1))
    with pytest.raises(TypeError, match="model"):
        apply_edit(torch.nn.Linear(2, 2), ws, bs)
