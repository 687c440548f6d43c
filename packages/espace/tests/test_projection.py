"""projection_from_stats against numpy's eigh; random_projection; rank_for_compression."""

import math

import numpy as np
import pytest
import torch
from espace import projection_from_stats, random_projection, rank_for_compression


def _spd(K, seed, dtype=torch.float64):
    g = np.random.default_rng(seed).standard_normal((K, 3 * K))
    return torch.tensor(g @ g.T / (3 * K), dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("rank", [1, 3, 8])
def test_top_eigenvectors_match_numpy(dtype, rank):
    C = _spd(8, 0, dtype)
    P = projection_from_stats(C, rank)
    assert P.shape == (8, rank) and P.dtype == dtype
    tol = 1e-10 if dtype == torch.float64 else 1e-5
    P64 = P.double().numpy()
    np.testing.assert_allclose(P64.T @ P64, np.eye(rank), atol=tol)
    w, v = np.linalg.eigh(C.double().numpy())
    top = v[:, np.argsort(w)[::-1][:rank]]
    # the same subspace (eigenvalues are distinct): equal projectors
    np.testing.assert_allclose(P64 @ P64.T, top @ top.T, atol=tol * 10)
    # each column is an eigenvector with the sorted eigenvalue
    lam = np.sort(w)[::-1][:rank]
    np.testing.assert_allclose(
        C.double().numpy() @ P64, P64 * lam, atol=tol * 10 * max(1, lam.max())
    )


def test_symmetrises_and_sorts_by_abs():
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    lam = np.array([3.0, -5.0, 1.0, -0.5, 0.2, 2.0])
    S = q @ np.diag(lam) @ q.T
    A = rng.standard_normal((6, 6))
    C = torch.tensor(S + (A - A.T))  # antisymmetric part is dropped
    P_eig = projection_from_stats(C, 2).numpy()
    P_abs = projection_from_stats(C, 2, sort="abs").numpy()
    by_eig = q[:, [0, 5]]  # eigenvalues 3, 2
    by_abs = q[:, [1, 0]]  # |-5|, 3
    np.testing.assert_allclose(P_eig @ P_eig.T, by_eig @ by_eig.T, atol=1e-10)
    np.testing.assert_allclose(P_abs @ P_abs.T, by_abs @ by_abs.T, atol=1e-10)


def test_discarded_eigenvalues_equal_projection_error():
    # Eckart–Young on samples: mean ||x - P P^T x||^2 = sum of the discarded eigenvalues of C_X
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 10)) * (0.7 ** np.arange(10))
    C = torch.tensor(X.T @ X / len(X))
    w = np.sort(np.linalg.eigvalsh(C.numpy()))[::-1]
    for L in (1, 4, 9):
        P = projection_from_stats(C, L).numpy()
        err = np.mean(np.sum((X - X @ P @ P.T) ** 2, axis=1))
        assert math.isclose(err, w[L:].sum(), rel_tol=1e-8)
        R = random_projection(
            10, L, dtype=torch.float64, generator=torch.Generator().manual_seed(L)
        )
        err_r = np.mean(np.sum((X - X @ R.numpy() @ R.numpy().T) ** 2, axis=1))
        assert err <= err_r


def test_random_projection_orthonormal_and_seeded():
    a = random_projection(12, 5, generator=torch.Generator().manual_seed(0))
    b = random_projection(12, 5, generator=torch.Generator().manual_seed(0))
    assert a.shape == (12, 5) and a.dtype == torch.float32
    assert torch.equal(a, b)
    torch.testing.assert_close(a.T @ a, torch.eye(5), atol=1e-5, rtol=0)


@pytest.mark.parametrize(
    "N,K,ratio", [(64, 64, 0.5), (64, 64, 0.2), (256, 64, 0.5), (100, 37, 0.0), (11, 7, 0.35)]
)
def test_rank_for_compression_formula(N, K, ratio):
    L = rank_for_compression(N, K, ratio)
    assert isinstance(L, int)
    assert L == math.floor((1 - ratio) * N * K / (N + K))
    # the largest rank whose inference form keeps at most (1 - ratio) of the weights
    assert L * (N + K) <= (1 - ratio) * N * K + 1e-9 < (L + 1) * (N + K)


def test_square_layer_half_compression_is_quarter_rank():
    assert rank_for_compression(4096, 4096, 0.5) == 1024


def test_rank_for_compression_without_rank_is_an_error():
    with pytest.raises(ValueError, match="ratio"):
        rank_for_compression(4, 4, 0.9)
