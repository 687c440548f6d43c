"""Cross-check of `aof` against jax-privacy's dense optimiser (optional peer, heavy: jax).

jax-privacy is not in any dependency group: its dependency dp-accounting pins attrs < 24, which
the workspace's dev tools (nox) cannot use, so it cannot enter the shared uv.lock. It is an
`unlocked-peers` pin in pyproject.toml instead, which `nox -s "tests_extras(package='bsr-dp')"`
installs into bsr-dp's own venv (and only there); in `nox -s tests` this module skips.
"""

import numpy as np
import pytest

dense = pytest.importorskip("jax_privacy.matrix_factorization.dense")

from bsr_dp import aof, matrix_se, toeplitz_matrix, workload_momentum  # noqa: E402


@pytest.mark.parametrize(("n", "b", "beta"), [(32, 8, 0.9), (64, 16, 0.9), (64, 16, 0.0)])
def test_aof_matches_jax_privacy_dense_optimize(n, b, beta):
    import jax

    jax.config.update("jax_enable_x64", True)
    k = n // b
    A = toeplitz_matrix(workload_momentum(n, momentum=beta))
    C_jax = np.asarray(dense.optimize(n, epochs=k, A=jax.numpy.asarray(A)))
    X = C_jax.T @ C_jax
    sens_jax = np.sqrt(np.bincount(np.arange(n) % b, np.diag(X)).max())  # columns orthogonal
    theirs = matrix_se(C_jax, A, sens_jax).mean_se
    ours = matrix_se(aof(n, b, momentum=beta), A, np.sqrt(k)).mean_se
    assert ours <= theirs * (1 + 1e-6)  # never worse than the peer
    assert ours == pytest.approx(theirs, rel=1e-5)
