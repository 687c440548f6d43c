"""Posterior quality metrics: classifier two-sample test (C2ST) and simulation-based calibration."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int

__all__ = ["c2st", "sbc_chi2", "sbc_ranks"]


def _numpy(value, name, ndim):
    if type(value).__module__.startswith("torch"):
        from ._checks import check_tensor

        check_tensor(value, name, ndim=ndim)
        value = value.detach().cpu().double().numpy()
    return check_array(value, name, ndim=ndim)


def c2st(ref, approx, *, folds=5, random_state=0):
    """C2ST accuracy between samples ``ref`` [n, D] and ``approx`` [m, D] (0.5: indistinguishable,
    1: fully separable): sbibm's protocol, i.e. both standardised by ``ref``'s mean and s.d., an
    MLP classifier (ReLU, two hidden layers of 10 D units, adam, max_iter 10000) and the mean
    accuracy of ``folds``-fold shuffled cross-validation."""
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    ref = _numpy(ref, "ref", 2)
    approx = _numpy(approx, "approx", 2)
    if approx.shape[1] != ref.shape[1]:
        raise ValueError(
            f"approx has {approx.shape[1]} columns but ref has {ref.shape[1]}; they must match"
        )
    folds = check_int(folds, "folds", minimum=2)
    random_state = check_int(random_state, "random_state", minimum=0)
    if min(ref.shape[0], approx.shape[0]) < folds:
        raise ValueError(f"ref and approx need at least folds={folds} rows each")
    mean, std = ref.mean(axis=0), ref.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    data = np.concatenate([(ref - mean) / std, (approx - mean) / std])
    target = np.concatenate([np.zeros(ref.shape[0]), np.ones(approx.shape[0])])
    d = ref.shape[1]
    clf = MLPClassifier(
        activation="relu",
        hidden_layer_sizes=(10 * d, 10 * d),
        max_iter=10000,
        solver="adam",
        random_state=random_state,
    )
    cv = KFold(n_splits=folds, shuffle=True, random_state=random_state)
    # 10 D-unit layers: BLAS threads only add overhead (same result, several times faster)
    with threadpool_limits(1):
        scores = cross_val_score(clf, data, target, cv=cv, scoring="accuracy")
    return float(np.mean(scores))


def sbc_ranks(theta, samples):
    """Simulation-based calibration ranks: for true parameters ``theta`` [N, D] and posterior
    draws ``samples`` [N, L, D] (draw i conditioned on the data simulated from theta[i]), the
    number of draws below the truth per coordinate, int [N, D] in 0..L. For a calibrated
    posterior each column is uniform on {0, ..., L}."""
    theta = _numpy(theta, "theta", 2)
    samples = _numpy(samples, "samples", 3)
    if samples.shape[0] != theta.shape[0]:
        raise ValueError(
            f"samples has {samples.shape[0]} rows but theta has {theta.shape[0]}; they must match"
        )
    if samples.shape[2] != theta.shape[1]:
        raise ValueError(
            f"samples has {samples.shape[2]} parameters but theta has {theta.shape[1]}"
        )
    return (samples < theta[:, None, :]).sum(axis=1).astype(np.int64)


def sbc_chi2(ranks, n_samples, *, bins=10):
    """chi-square uniformity test of SBC ranks [N, D] (values 0..n_samples) in ``bins`` equal
    bins; returns the p-value per coordinate, float [D]. ``n_samples + 1`` must be divisible
    by ``bins`` so that every bin holds the same number of rank values."""
    from scipy.stats import chisquare

    ranks = check_array(ranks, "ranks", ndim=2, dtype="int")
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    bins = check_int(bins, "bins", minimum=2)
    if (n_samples + 1) % bins:
        raise ValueError(f"bins must divide n_samples + 1 = {n_samples + 1}, got {bins}")
    if ranks.min() < 0 or ranks.max() > n_samples:
        raise ValueError(f"ranks must lie in 0..{n_samples}, got {ranks.min()}..{ranks.max()}")
    width = (n_samples + 1) // bins
    out = []
    for col in ranks.T:
        counts = np.bincount(col // width, minlength=bins)
        out.append(chisquare(counts).pvalue)
    return np.asarray(out, dtype=np.float64)
