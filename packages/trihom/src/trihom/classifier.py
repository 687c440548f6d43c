"""Classifier-based homophily h_GNB / h_SVM (Luan et al. 2023), extra ``sklearn``.

``pip install "trihom[sklearn]"``; scikit-learn is imported when the function is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy import stats

from ._checks import check_int, check_option, check_rng
from ._validation import check_features, check_fraction, check_graph, check_labels

__all__ = ["classifier_based_homophily"]

CLASSIFIERS = ("gnb", "svm_linear", "svm_rbf", "svm_poly")


def _make(name: str):
    try:
        from sklearn import svm
        from sklearn.naive_bayes import GaussianNB
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            'trihom.classifier needs scikit-learn: pip install "trihom[sklearn]"'
        ) from e
    if name == "gnb":
        return GaussianNB()
    if name == "svm_linear":
        return svm.SVC(kernel="linear")
    if name == "svm_rbf":
        return svm.SVC(kernel="rbf", gamma=0.5, C=0.1)
    return svm.SVC(kernel="poly", degree=3, C=1)


def _stratified_split(y: np.ndarray, frac: float, gen: np.random.Generator):
    train = []
    for k in np.unique(y):
        idx = np.flatnonzero(y == k)
        gen.shuffle(idx)
        train.append(idx[: max(1, int(round(frac * idx.size)))])
    train = np.concatenate(train)
    mask = np.zeros(y.size, bool)
    mask[train] = True
    return np.flatnonzero(mask), np.flatnonzero(~mask)


def classifier_based_homophily(
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    classifier: str = "gnb",
    repeats: int = 20,
    train_fraction: float = 0.6,
    rng: Any = None,
) -> float:
    """The authors' classifier-based metric: over ``repeats`` stratified random splits, fit the
    classifier on the raw features X and on the aggregated A_hat X (A_hat = D~^{-1}(A + I)),
    compare test accuracies with Welch's t-test (p two-sided); returns p/2 when the aggregated
    features win in at most half of the splits and 1 - p/2 otherwise (small = the graph hurts,
    large = it helps). Identical accuracies in every split give 0.5 (no evidence either way)."""
    classifier = check_option(classifier, "classifier", CLASSIFIERS)
    repeats = check_int(repeats, "repeats", minimum=2)
    train_fraction = check_fraction(train_fraction, "train_fraction")
    gen = check_rng(rng)
    y = check_labels(y)
    x = check_features(X, y.size)
    g = check_graph(edge_index, y.size)
    a = g.adj + sp.identity(y.size, format="csr")
    x_agg = np.asarray(a @ x) / (g.degree + 1.0)[:, None]
    acc_x, acc_g = np.zeros(repeats), np.zeros(repeats)
    for r in range(repeats):
        tr, te = _stratified_split(y, train_fraction, gen)
        if te.size == 0:
            raise ValueError("train_fraction leaves no test node; lower it")
        acc_x[r] = np.mean(_make(classifier).fit(x[tr], y[tr]).predict(x[te]) == y[te])
        acc_g[r] = np.mean(_make(classifier).fit(x_agg[tr], y[tr]).predict(x_agg[te]) == y[te])
    if np.all(acc_x == acc_g):
        return 0.5
    p = float(stats.ttest_ind(acc_x, acc_g, equal_var=False).pvalue)
    if np.isnan(p):  # both constant but different
        p = 0.0
    wins = float(np.mean(acc_g > acc_x))
    return p / 2.0 if wins <= 0.5 else 1.0 - p / 2.0
