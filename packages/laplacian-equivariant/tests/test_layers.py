"""SchurLayer/LinmapsLayer against a naive sum, equivariance under brute-force automorphisms."""

import numpy as np
import pytest
import torch
from _graphs import adjacency, automorphisms, cycle, path, perm_matrix, star
from laplacian_equivariant import (
    LinmapsLayer,
    SchurLayer,
    SecondOrderSchurLayer,
    eigenspace_projectors,
)

TEMPLATES = {
    "C6": cycle(6),
    "C5": cycle(5),
    "star4": star(4),
    "P4": path(4),
    "C5+pendant": adjacency(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 5)]),
    "C6+2pendants": adjacency(8, [(i, (i + 1) % 6) for i in range(6)] + [(0, 6), (3, 7)]),
}


def _close(a, b, atol=1e-7, rtol=None):
    """max |a - b| <= atol (torch.testing's first call costs seconds of lazy imports)."""
    a, b = torch.as_tensor(a), torch.as_tensor(b, dtype=torch.as_tensor(a).dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    err = float((a - b).detach().abs().max()) if a.numel() else 0.0
    assert err <= atol, f"max abs error {err} > {atol}"


@pytest.fixture(autouse=True)
def _double():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_matches_naive_sum_of_projections(name):
    a = TEMPLATES[name]
    torch.manual_seed(0)
    layer = SchurLayer(a, 3, 5)
    _, proj = eigenspace_projectors(a)
    x = torch.randn(11, len(a), 3)
    xn, w, b = x.numpy(), layer.weight.detach().numpy(), layer.bias.detach().numpy()
    ref = sum(np.einsum("ab,kbc,cd->kad", proj[j], xn, w[j]) for j in range(len(proj))) + b
    np.testing.assert_allclose(layer(x).detach().numpy(), ref, atol=1e-10)


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_equivariant_under_every_automorphism(name):
    a = TEMPLATES[name]
    auts = automorphisms(a)
    if name == "C6":
        assert len(auts) == 12  # the dihedral group
    torch.manual_seed(1)
    layer = SchurLayer(a, 4, 3)
    x = torch.randn(7, len(a), 4)
    y = layer(x)
    for p in auts:
        p = torch.as_tensor(p)
        _close(layer(x[:, p]), y[:, p], atol=1e-10, rtol=0)


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_relabelled_template_transforms_consistently(name):
    """A random relabelling of the template (new projectors, same weights): Y(PX) = P Y(X)."""
    a = TEMPLATES[name]
    rng = np.random.default_rng(3)
    p = rng.permutation(len(a))
    torch.manual_seed(2)
    layer = SchurLayer(a, 2, 2)
    other = SchurLayer(a[np.ix_(p, p)], 2, 2)
    with torch.no_grad():
        other.weight.copy_(layer.weight)
        other.bias.copy_(layer.bias)
    x = torch.randn(5, len(a), 2)
    pt = torch.as_tensor(p)
    _close(other(x[:, pt]), layer(x)[:, pt], atol=1e-10, rtol=0)


def test_not_equivariant_to_non_automorphisms():
    """A transposition that is no automorphism of C6 breaks equivariance (the test has teeth)."""
    torch.manual_seed(0)
    layer = SchurLayer(cycle(6), 1, 1, bias=False)
    x = torch.randn(4, 6, 1)
    p = torch.tensor([1, 0, 2, 3, 4, 5])
    assert (layer(x[:, p]) - layer(x)[:, p]).abs().max() > 1e-3


def test_antipodal_map_exact_on_c6():
    layer = SchurLayer(cycle(6), 1, 1, bias=False)
    _close(layer.eigenvalues, torch.tensor([0.0, 1.0, 3.0, 4.0]), atol=1e-9, rtol=0)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([1.0, -1.0, 1.0, -1.0]).reshape(4, 1, 1))
    x = torch.randn(3, 6, 1)
    _close(layer(x), x[:, [3, 4, 5, 0, 1, 2]], atol=1e-10, rtol=0)


def test_linmaps_matches_formula_and_is_in_schur_span():
    torch.manual_seed(0)
    lin = LinmapsLayer(3, 2)
    x = torch.randn(4, 6, 3)
    w = lin.weight.detach()
    ref = x @ w[0] + x.mean(1, keepdim=True) @ w[1] + lin.bias.detach()
    _close(lin(x), ref)
    # identity = sum_j P_j; mean-broadcast = P_0 for a connected template
    schur = SchurLayer(cycle(6), 3, 2)
    with torch.no_grad():
        schur.weight.copy_(w[0].expand(4, 3, 2).clone())
        schur.weight[0] += w[1]
        schur.bias.copy_(lin.bias)
    _close(schur(x), lin(x), atol=1e-10, rtol=0)


def test_shapes_gradients_and_empty_batch():
    layer = SchurLayer(cycle(5), 3, 7, bias=False)
    assert layer.bias is None and layer.weight.shape == (3, 3, 7) and layer.num_maps == 3
    x = torch.randn(2, 5, 3, requires_grad=True)
    layer(x).sum().backward()
    assert x.grad is not None and layer.weight.grad.shape == (3, 3, 7)
    assert layer(torch.zeros(0, 5, 3)).shape == (0, 5, 7)
    assert LinmapsLayer(3, 4)(torch.randn(2, 9, 3)).shape == (2, 9, 4)


def test_wrong_template_size_is_rejected():
    with pytest.raises(ValueError, match="x"):
        SchurLayer(cycle(6), 2, 2)(torch.randn(3, 5, 2))
    with pytest.raises(ValueError, match="x"):
        SchurLayer(cycle(6), 2, 2)(torch.randn(3, 6, 3))
    with pytest.raises(TypeError, match="x"):
        SchurLayer(cycle(6), 2, 2)(np.zeros((3, 6, 2)))


# ---- second-order layer: X [K, m, m, c] -> sum_ij P_i X P_j W_ij + b --------------------------


def _second_order_reference(proj, x, w, b):
    """Naive double loop over eigenspace pairs, in numpy."""
    out = np.zeros(x.shape[:3] + (w.shape[-1],))
    for i in range(len(proj)):
        for j in range(len(proj)):
            out += np.einsum("ab,kbcf,cd,fo->kado", proj[i], x, proj[j], w[i, j])
    return out + b


@pytest.mark.parametrize("name", ["C6", "C5", "star4", "C5+pendant"])
def test_second_order_matches_naive_double_sum(name):
    a = TEMPLATES[name]
    torch.manual_seed(0)
    layer = SecondOrderSchurLayer(a, 3, 2)
    _, proj = eigenspace_projectors(a)
    assert layer.weight.shape == (len(proj), len(proj), 3, 2)
    x = torch.randn(4, len(a), len(a), 3)
    ref = _second_order_reference(
        proj, x.numpy(), layer.weight.detach().numpy(), layer.bias.detach().numpy()
    )
    np.testing.assert_allclose(layer(x).detach().numpy(), ref, atol=1e-10)


@pytest.mark.parametrize("name", ["C6", "star4", "C5+pendant", "C6+2pendants"])
def test_second_order_equivariant_under_every_automorphism(name):
    a = TEMPLATES[name]
    torch.manual_seed(1)
    layer = SecondOrderSchurLayer(a, 2, 3)
    x = torch.randn(3, len(a), len(a), 2)
    y = layer(x)
    for p in automorphisms(a):
        p = torch.as_tensor(p)
        _close(layer(x[:, p][:, :, p]), y[:, p][:, :, p], atol=1e-10)
    # a transposition that is not an automorphism of the template breaks it (the test has teeth)
    if name == "C6":
        q = torch.tensor([1, 0, 2, 3, 4, 5])
        assert float((layer(x[:, q][:, :, q]) - y[:, q][:, :, q]).detach().abs().max()) > 1e-3


def test_second_order_maps_are_independent_and_commute_with_automorphisms():
    """The J^2 maps P_i (.) P_j as m^2 x m^2 matrices: rank J^2, each commuting with sigma (x)
    sigma for every brute-force automorphism sigma of the 6-cycle."""
    a = TEMPLATES["C6"]
    _, proj = eigenspace_projectors(a)
    maps = [
        np.kron(pi, pj) for pi in proj for pj in proj
    ]  # vec_row(P_i X P_j) = (P_i (x) P_j) vec_row(X)
    assert np.linalg.matrix_rank(np.stack([m.ravel() for m in maps])) == len(proj) ** 2 == 16
    for p in automorphisms(a):
        q = perm_matrix(p)
        s = np.kron(q, q)
        for m in maps:
            np.testing.assert_allclose(s @ m, m @ s, atol=1e-10)


def test_second_order_rejects_wrong_shapes():
    layer = SecondOrderSchurLayer(cycle(5), 2, 2)
    for bad in (torch.randn(3, 5, 2), torch.randn(3, 5, 4, 2), torch.randn(3, 5, 5, 3)):
        with pytest.raises(ValueError, match="x"):
            layer(bad)
    assert layer(torch.zeros(0, 5, 5, 2)).shape == (0, 5, 5, 2)
