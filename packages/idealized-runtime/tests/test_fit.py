"""fit_cost_model against closed-form least squares (numpy.linalg.lstsq) on synthetic data."""

import idealized_runtime as ir
import numpy as np
import pytest

P = [1, 16, 64, 256, 512]
O = [1, 2, 4, 8, 16, 32]


def grid(alpha, beta, curve=0.0):
    return np.array(
        [(p, o, alpha[p] + beta * (o - 1) + curve * (o - 1) ** 2 * p / 512) for p in P for o in O],
        dtype=float,
    )


ALPHA = {p: 0.02 + 3e-4 * p for p in P}


def test_exact_data_is_recovered_exactly():
    model, rep = ir.fit_cost_model(grid(ALPHA, 0.013))
    assert model.beta == pytest.approx(0.013, rel=1e-12)
    for p in P:
        assert model.alpha[p] == pytest.approx(ALPHA[p], rel=1e-12)
    assert rep.r2 == pytest.approx(1.0) and rep.mse < 1e-25 and rep.median_rel_err < 1e-12
    assert rep.n_cells == len(P) * len(O)


def test_beta_is_the_pooled_ols_slope_with_intercept():
    rec = grid(ALPHA, 0.01, curve=0.002)  # not exactly linear: beta is a compromise
    model, rep = ir.fit_cost_model(rec)
    a = np.array([ALPHA[p] for p in rec[:, 0]])
    x = rec[:, 1] - 1
    design = np.column_stack([np.ones_like(x), x])
    (icpt, slope), *_ = np.linalg.lstsq(design, rec[:, 2] - a, rcond=None)
    assert model.beta == pytest.approx(slope, rel=1e-10)
    pred = a + slope * x
    sq = (pred - rec[:, 2]) ** 2
    ss_tot = np.sum((rec[:, 2] - rec[:, 2].mean()) ** 2)
    assert rep.r2 == pytest.approx(1 - sq.sum() / ss_tot, rel=1e-10)
    assert rep.mse == pytest.approx(sq.mean(), rel=1e-10)
    assert rep.max_sq_err == pytest.approx(sq.max(), rel=1e-10)
    assert rep.median_rel_err == pytest.approx(np.median(np.abs(pred - rec[:, 2]) / rec[:, 2]))


def test_regression_alpha_is_the_per_p_line_at_o1_floored():
    rng = np.random.default_rng(1)
    rec = grid(ALPHA, 0.01)
    rec[:, 2] += 0.0002 * rng.standard_normal(len(rec))
    rec[rec[:, 0] == 16, 2] -= 0.006  # pushes p = 16's line below p = 1's: the floor applies
    model, _ = ir.fit_cost_model(rec, alpha="regression")
    lines = {}
    for p in P:
        m = rec[:, 0] == p
        design = np.column_stack([np.ones(m.sum()), rec[m, 1] - 1])
        (icpt, _), *_ = np.linalg.lstsq(design, rec[m, 2], rcond=None)
        lines[p] = icpt
    for p in P:
        assert model.alpha[p] == pytest.approx(max(lines[p], lines[1]), rel=1e-10)
    assert model.alpha[16] == pytest.approx(lines[1])


@pytest.mark.parametrize("agg,fn", [("min", np.min), ("median", np.median), ("mean", np.mean)])
def test_repeats_are_aggregated_per_cell(agg, fn):
    rng = np.random.default_rng(2)
    base = grid(ALPHA, 0.01)
    reps = np.concatenate([base] * 4)
    reps[:, 2] += rng.exponential(0.01, len(reps))
    reps = reps[rng.permutation(len(reps))]
    cells = ir.denoise(reps, aggregate=agg)
    for p, o, t in cells:
        m = (reps[:, 0] == p) & (reps[:, 1] == o)
        assert t == pytest.approx(fn(reps[m, 2]))
    model, rep = ir.fit_cost_model(reps, aggregate=agg)
    np.testing.assert_allclose(rep.cells, cells)
    assert model == ir.fit_cost_model(cells, aggregate="min")[0]


def test_min_denoises_contention():
    rng = np.random.default_rng(3)
    base = grid(ALPHA, 0.01)
    reps = np.concatenate([base] * 5)
    noisy = reps.copy()
    noisy[:, 2] *= 1 + 0.01 * rng.standard_normal(len(reps))
    hit = rng.random(len(reps)) < 0.3
    noisy[hit, 2] += rng.exponential(0.5 * noisy[hit, 2])
    m_min, _ = ir.fit_cost_model(noisy, aggregate="min")
    m_mean, _ = ir.fit_cost_model(noisy, aggregate="mean")
    assert abs(m_min.beta / 0.01 - 1) < 0.02
    assert max(abs(m_min.alpha[p] / ALPHA[p] - 1) for p in P) < 0.05
    assert m_mean.beta > 1.05 * 0.01  # the mean is biased upward


def test_errors():
    rec = grid(ALPHA, 0.01)
    with pytest.raises(ValueError, match="o = 1"):
        ir.fit_cost_model(rec[rec[:, 1] > 1])
    with pytest.raises(ValueError, match="two distinct output sizes"):
        ir.fit_cost_model(rec[rec[:, 1] == 1])
    falling = rec.copy()
    falling[:, 2] = np.array([ALPHA[p] for p in rec[:, 0]]) + 1.0 / rec[:, 1]
    with pytest.raises(ValueError, match="negative"):
        ir.fit_cost_model(falling)
    with pytest.raises(ValueError, match="records"):
        ir.fit_cost_model([[0, 1, 0.1], [0, 2, 0.2]])
    with pytest.raises(ValueError, match="records"):
        ir.fit_cost_model([[1, 1, -0.1], [1, 2, 0.2]])
    with pytest.raises(ValueError, match="records"):
        ir.fit_cost_model([[1.5, 1, 0.1], [1, 2, 0.2]])
