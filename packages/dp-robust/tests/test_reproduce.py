"""reproduce.py's claims function runs end to end on a tiny configuration."""

from pathlib import Path

import numpy as np

from papershelf_harness.testing import load_script

REPRODUCE = Path(__file__).resolve().parents[1] / "reproduce.py"


def _load():
    return load_script(REPRODUCE)


def test_sparse_linear_tiny_runs_and_beats_ols():
    mod = _load()
    r = mod.sparse_linear(2, n=40, d=30, n_test=200, M=20, T=20, sgd_steps=300)
    assert set(r) == set(mod.LINREG_METHODS)
    assert all(np.all(np.isfinite(v)) and v.shape == (2,) for v in r.values())


def test_location_and_logistic_tiny_run():
    mod = _load()
    g = mod.gaussian_location(3, M=20, T=20)
    assert np.all(g["neutral"] >= 0)
    lg = mod.sparse_logistic(2, n=40, d=10, n_test=200, M=10, T=20, sgd_steps=200)
    assert all(np.all(np.isfinite(v)) for v in lg.values())


def test_better_is_a_paired_two_se_rule():
    mod = _load()
    assert mod._better([1.0, 1.1, 0.9], [2.0, 2.1, 1.9])
    assert not mod._better([1.0, 2.0, 0.0], [1.1, 1.9, 0.2])
