"""MPIImputer: the scikit-learn contract, what transform keeps and fills, row independence,
missing views, and that the biological view carries real information."""

import numpy as np
import pytest
from pheno_impute import MPIImputer
from pheno_impute.data import holdout, synthetic_cohort
from pheno_impute.imputer import _RawFeatureMPIImputer
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.utils.estimator_checks import check_estimator

M = 12
MODS = {"prot": 16, "metab": 6}


@pytest.fixture(scope="module")
def cohort():
    return synthetic_cohort(300, M, modalities=MODS, rng=0)


@pytest.fixture(scope="module")
def fitted(cohort):
    est = MPIImputer(n_phenotypes=M, modalities=MODS, epochs=40, random_state=0)
    return est.fit(cohort.X)


@pytest.mark.slow  # about 45 s on a loaded 2-core machine
def test_check_estimator():
    check_estimator(MPIImputer(n_phenotypes=0, epochs=3, random_state=0))


def test_transform_keeps_observed_and_fills_missing(cohort, fitted):
    X = cohort.X
    out = fitted.transform(X)
    obs = ~np.isnan(X)
    np.testing.assert_array_equal(out[obs], X[obs])
    assert np.isfinite(out).all()
    phen = out[:, :M][np.isnan(X[:, :M])]
    assert phen.min() >= 0.0 and phen.max() <= 1.0
    np.testing.assert_allclose(fitted.predict_phenotypes(X)[np.isnan(X[:, :M])], phen)
    assert fitted.encode(X).shape == (len(X), 2, 3)


def test_rows_are_imputed_independently(cohort, fitted):
    X = cohort.X[:30]
    whole = fitted.transform(X)
    one_by_one = np.vstack([fitted.transform(X[i : i + 1]) for i in range(len(X))])
    np.testing.assert_allclose(whole, one_by_one, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fitted.transform(X[::-1]), whole[::-1], rtol=1e-10, atol=1e-12)


def test_missing_views_and_all_missing_rows_are_scored(fitted):
    new = synthetic_cohort(6, M, modalities=MODS, modality_missing=0.0, rng=9).X
    new[0, :M] = np.nan  # no phenotypes: scored from biology
    new[1, M:] = np.nan  # no biology: scored from phenotypes
    new[2] = np.nan  # nothing at all
    out = fitted.transform(new)
    assert np.isfinite(out).all() and (out[:, :M] >= 0).all() and (out[:, :M] <= 1).all()
    codes = fitted.encode(new)
    assert (codes[1] == -1).all() and (codes[2] == -1).all() and (codes[0] >= 0).all()
    # a row with no biology and no phenotypes gets the feature means
    np.testing.assert_allclose(out[2, M:], fitted.feature_mean_)


def test_biology_alone_ranks_patients_without_phenotypes(cohort, fitted):
    """New patients with every phenotype missing: the phenotype-only view cannot tell them
    apart, the biological view must (the latent factors drive both)."""
    full = synthetic_cohort(700, M, modalities=MODS, rng=3)
    train, new = full.X[:400], full.X[400:].copy()
    truth = full.phenotypes[400:]
    new[:, :M] = np.nan
    est = MPIImputer(n_phenotypes=M, modalities=MODS, epochs=40, random_state=0).fit(train)
    proba = est.transform(new)[:, :M]
    per_col = [
        roc_auc_score(truth[:, j], proba[:, j]) for j in range(M) if 0 < truth[:, j].sum() < 300
    ]
    # without biology every such patient gets the same score per column (AUC exactly 0.5); a
    # per-column AUC on 300 patients has a null sd of about 0.04, so the mean of 12 about 0.012:
    # 0.55 is 4 sd above chance
    assert np.mean(per_col) > 0.55, per_col


def test_feature_reconstructions_beat_column_means(cohort, fitted):
    X = cohort.X
    out = fitted.transform(X)
    miss = np.isnan(X[:, M:])
    # entries hidden inside a modality the patient has (a wholly missing modality gets the
    # column means by design, so it would only dilute the comparison)
    start = 0
    for size in MODS.values():
        absent = miss[:, start : start + size].all(1)
        miss[absent, start : start + size] = False
        start += size
    assert miss.sum() > 200
    truth = cohort.features[miss]
    rmse = np.sqrt(np.mean((out[:, M:][miss] - truth) ** 2))
    mean_rmse = np.sqrt(
        np.mean((np.broadcast_to(fitted.feature_mean_, miss.shape)[miss] - truth) ** 2)
    )
    assert rmse < 0.9 * mean_rmse, (rmse, mean_rmse)


def test_raw_feature_ablation_scores_from_the_features_not_the_codes(cohort, fitted):
    """The "w/o RQ" ablation used by reproduce.py: its biological view reads the raw features,
    so a perturbation too small to change any code moves its scores, while the full model's
    scores (biology only through the codes) stay exactly the same."""
    X = cohort.X[:40]
    Y = X.copy()
    Y[:, M:] += 1e-6
    assert np.array_equal(fitted.encode(X), fitted.encode(Y))
    np.testing.assert_array_equal(fitted.predict_phenotypes(X), fitted.predict_phenotypes(Y))

    raw = _RawFeatureMPIImputer(n_phenotypes=M, modalities=MODS, epochs=10, random_state=0)
    raw.fit(cohort.X)
    assert raw._net.raw_proj.in_features == 2 * sum(MODS.values())
    px, py = raw.predict_phenotypes(X), raw.predict_phenotypes(Y)
    has_bio = ~np.isnan(X[:, M:]).all(1)
    assert (np.abs(px - py)[has_bio] > 0).all(1).all()
    np.testing.assert_array_equal(px[~has_bio], py[~has_bio])
    assert isinstance(clone(raw), _RawFeatureMPIImputer)
    # still an imputer: observed kept, rows independent, patients without anything scored
    new = X[:5].copy()
    new[0] = np.nan
    out = raw.transform(new)
    assert np.isfinite(out).all() and (out[:, :M] >= 0).all() and (out[:, :M] <= 1).all()
    np.testing.assert_allclose(out[1:2], raw.transform(new[1:2]), rtol=1e-10, atol=1e-12)


def test_seeded_fits_are_reproducible(cohort):
    X = cohort.X[:100]
    a = MPIImputer(n_phenotypes=M, modalities=MODS, epochs=5, random_state=3).fit_transform(X)
    b = MPIImputer(n_phenotypes=M, modalities=MODS, epochs=5, random_state=3).fit_transform(X)
    np.testing.assert_array_equal(a, b)


def test_holdout_hides_observed_phenotypes_only(cohort):
    h = holdout(cohort.X, n_phenotypes=M, fraction=0.3, rng=0)
    assert h.test_mask.sum() > 0
    assert np.isnan(h.X[:, :M][h.test_mask]).all()
    assert not np.isnan(cohort.X[:, :M][h.test_mask]).any()
    np.testing.assert_array_equal(h.X[:, M:], cohort.X[:, M:])
    assert not (h.test_mask & h.train_mask).any()
