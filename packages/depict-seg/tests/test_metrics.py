"""coding_rate, orthogonality_gap, mean_iou and perturb_params against independent references."""

import math

import depict_seg as ds
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def slogdet_rate(Z, eps):
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    sign, logdet = np.linalg.slogdet(np.eye(d) + d / (n * eps**2) * Z.T @ Z)
    assert sign > 0
    return 0.5 * logdet


@pytest.mark.parametrize("n,d,eps", [(50, 8, 0.5), (5, 12, 0.1), (200, 3, 2.0)])
def test_coding_rate_matches_numpy_slogdet(n, d, eps):
    rng = np.random.default_rng(n)
    Z = rng.normal(size=(n, d))
    ref = slogdet_rate(Z, eps)
    assert math.isclose(ds.coding_rate(Z, eps=eps), ref, rel_tol=1e-12)
    got = ds.coding_rate(torch.from_numpy(Z), eps=eps)
    assert isinstance(got, torch.Tensor) and got.shape == ()
    assert math.isclose(got.item(), ref, rel_tol=1e-10)
    got32 = ds.coding_rate(torch.from_numpy(Z).float(), eps=eps)  # float64 inside
    assert got32.dtype == torch.float32
    assert math.isclose(got32.item(), slogdet_rate(Z.astype(np.float32), eps), rel_tol=1e-6)
    # the N x N form (Sylvester's determinant identity) is an independent route to the same value
    alt = 0.5 * np.linalg.slogdet(np.eye(n) + d / (n * eps**2) * Z @ Z.T)[1]
    assert math.isclose(ds.coding_rate(Z, eps=eps), alt, rel_tol=1e-9)


def test_coding_rate_batch_default_eps_and_closed_form():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(3, 20, 5))
    got = ds.coding_rate(torch.from_numpy(Z))
    assert got.shape == (3,)
    assert_close(got, [slogdet_rate(z, 0.5) for z in Z], rtol=1e-10)
    # orthonormal columns scaled by s: Z^T Z = s^2 I, R = d/2 log(1 + d s^2 / (N eps^2))
    Q, _ = np.linalg.qr(rng.normal(size=(40, 4)))
    assert math.isclose(ds.coding_rate(3 * Q), 2 * math.log(1 + 4 * 9 / (40 * 0.25)), rel_tol=1e-12)
    assert ds.coding_rate(np.zeros((6, 3))) == 0.0


def test_coding_rate_is_differentiable():
    Z = torch.randn(10, 4, dtype=torch.float64, requires_grad=True)
    ds.coding_rate(Z).backward()
    # d/dZ 1/2 logdet(I + a Z^T Z) = a Z (I + a Z^T Z)^{-1}
    a = 4 / (10 * 0.25)
    M = torch.eye(4, dtype=torch.float64) + a * Z.detach().T @ Z.detach()
    assert_close(Z.grad, a * Z.detach() @ torch.linalg.inv(M), rtol=1e-10)


def test_subspace_coding_rates_per_head():
    rng = np.random.default_rng(1)
    Z, U = rng.normal(size=(30, 6)), rng.normal(size=(3 * 2, 6))
    got = ds.subspace_coding_rates(Z, U, heads=3)
    ref = [slogdet_rate(Z @ U[2 * k : 2 * k + 2].T, 0.5) for k in range(3)]
    assert_close(got, ref, rtol=1e-12)
    got_t = ds.subspace_coding_rates(torch.from_numpy(Z), torch.from_numpy(U), heads=3)
    assert_close(got_t, ref, rtol=1e-10)


def test_orthogonality_gap():
    rng = np.random.default_rng(2)
    Q, _ = np.linalg.qr(rng.normal(size=(10, 4)))
    M = Q.T * rng.uniform(0.1, 5, size=(4, 1))  # orthogonal rows of any length
    assert ds.orthogonality_gap(M) < 1e-12
    # two unit rows at cosine c: ||[[0, c], [c, 0]]||_F = sqrt(2) |c|
    c = 0.3
    M2 = np.array([[1.0, 0.0], [c, math.sqrt(1 - c * c)]]) * np.array([[2.0], [0.5]])
    assert math.isclose(ds.orthogonality_gap(M2), math.sqrt(2) * c, rel_tol=1e-12)
    assert math.isclose(ds.orthogonality_gap(torch.tensor(M2)), math.sqrt(2) * c, rel_tol=1e-12)
    # identical rows: K^2 - K off-diagonal ones
    assert math.isclose(ds.orthogonality_gap(np.ones((3, 5))), math.sqrt(6), rel_tol=1e-12)
    with pytest.raises(ValueError, match="M"):
        ds.orthogonality_gap(np.array([[1.0, 0.0], [0.0, 0.0]]))


def brute_miou(pred, target, n_cls, ignore):
    pred, target = np.ravel(pred), np.ravel(target)
    ious = []
    for c in range(n_cls):
        P = {i for i in range(pred.size) if pred[i] == c and target[i] != ignore}
        T = {i for i in range(target.size) if target[i] == c}
        if P | T:
            ious.append(len(P & T) / len(P | T))
    return sum(ious) / len(ious)


@pytest.mark.parametrize("seed", range(4))
def test_mean_iou_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_cls = 5
    target = rng.integers(0, n_cls, size=(2, 7, 6))
    target[rng.random(target.shape) < 0.2] = 255
    pred = np.where(
        rng.random(target.shape) < 0.6,
        np.where(target == 255, 0, target),
        rng.integers(0, n_cls, size=target.shape),
    )
    pred[pred == 4] = 3  # class 4 only in target for some pixels
    got = ds.mean_iou(pred, target, n_cls)
    assert math.isclose(got, brute_miou(pred, target, n_cls, 255), rel_tol=1e-12)
    got_t = ds.mean_iou(torch.from_numpy(pred), torch.from_numpy(target), n_cls)
    assert got_t == got


def test_mean_iou_classes_present_and_ignore_index():
    t = np.array([[0, 0, 1, 1]])
    assert ds.mean_iou(t, t, 10) == 1.0  # absent classes do not count
    # pred [0, 1, 1, 1]: IoU_0 = 1/2, IoU_1 = 2/3
    assert math.isclose(ds.mean_iou([[0, 1, 1, 1]], t, 2), (0.5 + 2 / 3) / 2)
    # a class predicted where target is ignored does not count
    t2 = np.array([0, 0, 7])
    assert ds.mean_iou(np.array([0, 0, 2]), t2, 3, ignore_index=7) == 1.0
    # ignore_index=None: every pixel counts, 255 is then out of range
    with pytest.raises(ValueError, match="target"):
        ds.mean_iou([0, 1], [0, 255], 2, ignore_index=None)


def test_perturb_params_adds_gaussian_noise_to_a_copy():
    torch.manual_seed(0)
    dec = ds.DepictDecoder(4, patch_size=4, d_model=32, n_layers=2, n_heads=2, dim_head=50)
    before = {k: v.clone() for k, v in dec.state_dict().items()}
    g = torch.Generator().manual_seed(5)
    noisy = ds.perturb_params(dec, 0.1, generator=g)
    for k, v in dec.state_dict().items():
        assert torch.equal(v, before[k])  # original untouched
    diffs = torch.cat([(pn - p).flatten() for p, pn in zip(dec.parameters(), noisy.parameters())])
    n = diffs.numel()
    assert abs(diffs.double().std().item() - 0.1) < 4 * 0.1 / math.sqrt(2 * n)
    assert abs(diffs.double().mean().item()) < 4 * 0.1 / math.sqrt(n)
    # every parameter moved (the step sizes too)
    assert all(not torch.equal(p, pn) for p, pn in zip(dec.parameters(), noisy.parameters()))
    # reproducible with the same generator seed; sigma=0 is an exact copy
    again = ds.perturb_params(dec, 0.1, generator=torch.Generator().manual_seed(5))
    assert all(torch.equal(a, b) for a, b in zip(noisy.parameters(), again.parameters()))
    same = ds.perturb_params(dec, 0.0)
    assert all(torch.equal(a, b) for a, b in zip(dec.parameters(), same.parameters()))
