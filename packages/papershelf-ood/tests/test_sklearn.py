"""Equality with scikit-learn to 1e-12 (runs in `tests_extras`, group test-sklearn)."""

import numpy as np
import pytest

import papershelf_ood as po

metrics = pytest.importorskip("sklearn.metrics")


def _cases():
    rng = np.random.default_rng(0)
    for n_id, n_ood, ties in [(50, 40, False), (200, 300, True), (3, 1, True), (1000, 50, False)]:
        s_id, s_ood = rng.normal(1.0, 1.0, n_id), rng.normal(0.0, 1.5, n_ood)
        if ties:
            s_id, s_ood = np.round(s_id), np.round(s_ood)
        yield s_id, s_ood


def test_auroc_and_auprs_equal_scikit_learn():
    for s_id, s_ood in _cases():
        y_id = np.r_[np.ones(s_id.size), np.zeros(s_ood.size)]
        s = np.r_[s_id, s_ood]
        assert abs(po.auroc(s_id, s_ood) - metrics.roc_auc_score(y_id, s)) < 1e-12
        assert abs(po.auroc(s_id, s_ood) - metrics.roc_auc_score(1 - y_id, -s)) < 1e-12
        assert abs(po.aupr_in(s_id, s_ood) - metrics.average_precision_score(y_id, s)) < 1e-12
        assert abs(po.aupr_out(s_id, s_ood) - metrics.average_precision_score(1 - y_id, -s)) < 1e-12


def test_fpr_equals_openood_recipe_on_scikit_learn_roc_curve():
    for s_id, s_ood in _cases():
        y_id = np.r_[np.ones(s_id.size), np.zeros(s_ood.size)]
        s = np.r_[s_id, s_ood]
        for level in (0.8, 0.95):
            fpr, tpr, _ = metrics.roc_curve(1 - y_id, -s)  # OpenOOD v1.5: OOD positive on -conf
            assert po.fpr_at_tpr(s_id, s_ood, tpr=level) == fpr[np.argmax(tpr >= level)]
            fpr, tpr, _ = metrics.roc_curve(y_id, s)
            got = po.fpr_at_tpr(s_id, s_ood, tpr=level, positive="id")
            assert got == fpr[np.argmax(tpr >= level)]
