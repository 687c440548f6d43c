"""WeiPer: perturbed class projections, scores in WeiPer space and the WeiPer+KLD detector."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from papershelf_ood import energy, msp

from ._checks import check_array, check_float, check_int, check_rng
from ._histogram import histogram_rows, symmetric_kl, uniform_smooth

__all__ = [
    "KLDComponents",
    "WeiPerKLD",
    "energy_weiper",
    "msp_weiper",
    "perturb_class_projections",
    "react_threshold",
    "react_weiper",
    "weiper_logits",
]

# perturbed logits are computed for blocks of rows holding about this many entries
_LOGIT_BLOCK = 1 << 22


def _layer(W, b, names=("W", "b")):
    """W [C, D] (a float dtype is kept, integers become float64) and b [C] (None = zeros)."""
    W = check_array(W, names[0], ndim=2, dtype="numeric")
    if W.dtype.kind != "f":
        W = W.astype(np.float64)
    if b is None:
        b = np.zeros(W.shape[0], dtype=W.dtype)
    else:
        b = check_array(b, names[1], ndim=1, dtype="numeric")
        if b.shape[0] != W.shape[0]:
            raise ValueError(
                f"{names[1]} must have one entry per row of {names[0]} ({W.shape[0]}), "
                f"got shape {b.shape}"
            )
        if b.dtype.kind != "f":
            b = b.astype(W.dtype)
    return W, b


def _features(Z, name: str, n_features: int) -> np.ndarray:
    Z = check_array(Z, name, ndim=2, dtype="numeric")
    if Z.dtype.kind != "f":
        Z = Z.astype(np.float64)
    if Z.shape[1] != n_features:
        raise ValueError(
            f"{name} must have {n_features} columns (the features of W), got shape {Z.shape}"
        )
    return Z


def _r_delta(r, delta) -> tuple[int, float]:
    return check_int(r, "r", minimum=1), check_float(delta, "delta", minimum=0.0)


def perturb_class_projections(W, b, *, r=100, delta=1.8, rng=None):
    """The WeiPer projections: ``r`` perturbed copies of the final layer (W [C, D], b [C]).

    Row ``k*C + c`` of ``W_tilde`` [r*C, D] is ``w_c + delta * ||w_c|| * e / ||e||`` with a
    fresh ``e ~ N(0, I_D)`` per row, so every perturbed class vector lies at the relative
    distance ``delta`` from its class vector; ``b_tilde`` [r*C] is ``b`` tiled ``r`` times.
    The dtype of W (and b) is kept. ``rng`` (int | Generator | None) fixes the draw: the same
    seed gives the same ``W_tilde``. ``b=None`` means no bias (zeros).
    """
    W, b = _layer(W, b)
    r, delta = _r_delta(r, delta)
    gen = check_rng(rng)
    C, D = W.shape
    W64 = W.astype(np.float64)
    scale = delta * np.linalg.norm(W64, axis=1, keepdims=True)
    W_tilde = np.empty((r * C, D), dtype=W.dtype)
    for k in range(r):  # one block at a time: memory r*C*D in W's dtype only
        e = gen.standard_normal((C, D))
        e /= np.linalg.norm(e, axis=1, keepdims=True)
        W_tilde[k * C : (k + 1) * C] = W64 + scale * e
    return W_tilde, np.tile(b, r)


def _logit_blocks(Z: np.ndarray, W_tilde: np.ndarray, b_tilde: np.ndarray):
    dtype = np.result_type(Z.dtype, W_tilde.dtype)
    Wt = W_tilde.astype(dtype, copy=False).T
    bt = b_tilde.astype(dtype, copy=False)
    step = max(1, _LOGIT_BLOCK // W_tilde.shape[0])
    for start in range(0, Z.shape[0], step):
        block = Z[start : start + step].astype(dtype, copy=False)
        yield start, block, block @ Wt + bt


def weiper_logits(Z, W_tilde, b_tilde):
    """The perturbed logits ``Z @ W_tilde.T + b_tilde`` [n, r*C] of features Z [n, D],
    computed in blocks of rows (the result itself is n*r*C numbers)."""
    W_tilde, b_tilde = _layer(W_tilde, b_tilde, ("W_tilde", "b_tilde"))
    Z = _features(Z, "Z", W_tilde.shape[1])
    out = np.empty((Z.shape[0], W_tilde.shape[0]), dtype=np.result_type(Z.dtype, W_tilde.dtype))
    for start, _, logits in _logit_blocks(Z, W_tilde, b_tilde):
        out[start : start + logits.shape[0]] = logits
    return out


def _block_mean(logits: np.ndarray, r: int, score) -> np.ndarray:
    """Mean over the r blocks of C logits of a per-block logit score."""
    n = logits.shape[0]
    C = logits.shape[1] // r
    return score(logits.reshape(n * r, C)).reshape(n, r).mean(axis=1)


def _weiper_score(Z, W, b, r, delta, rng, score) -> np.ndarray:
    W, b = _layer(W, b)
    Z = _features(Z, "Z", W.shape[1])
    r, delta = _r_delta(r, delta)
    W_tilde, b_tilde = perturb_class_projections(W, b, r=r, delta=delta, rng=rng)
    out = np.empty(Z.shape[0])
    for start, _, logits in _logit_blocks(Z, W_tilde, b_tilde):
        out[start : start + logits.shape[0]] = _block_mean(logits, r, score)
    return out


def msp_weiper(Z, W, b, *, r=100, delta=1.8, rng=None):
    """MSP in WeiPer space: the mean over the r perturbed copies of the final layer of the
    maximum softmax probability, ``(1/r) sum_k max softmax(W_k z + b)``, for features Z
    [n, D] -> [n] (higher = in-distribution). ``W_tilde`` is
    ``perturb_class_projections(W, b, r=r, delta=delta, rng=rng)``; ``delta=0`` gives MSP."""
    return _weiper_score(Z, W, b, r, delta, rng, msp)


def energy_weiper(Z, W, b, *, r=100, delta=1.8, rng=None):
    """Energy in WeiPer space: the mean over the r perturbed copies of ``logsumexp(W_k z + b)``
    (higher = in-distribution); same ``W_tilde`` as :func:`msp_weiper` for the same ``rng``."""
    return _weiper_score(Z, W, b, r, delta, rng, energy)


def react_threshold(Z_train, *, percentile=90.0):
    """ReAct's clipping level: the ``percentile`` of all entries of the training features."""
    Z = check_array(Z_train, "Z_train", ndim=2)
    q = check_float(percentile, "percentile", minimum=0.0, maximum=100.0)
    return float(np.percentile(Z, q))


def react_weiper(Z, W, b, *, threshold, r=100, delta=1.8, rng=None):
    """WeiPer+ReAct: features clipped at ``threshold`` (see :func:`react_threshold`), then
    :func:`energy_weiper`. (The paper's exact ReAct variant is not in the released code; this
    follows its text: ReAct clipping, energy score in WeiPer space.)"""
    t = check_float(threshold, "threshold")
    W, b = _layer(W, b)
    Z = _features(Z, "Z", W.shape[1])
    return energy_weiper(np.minimum(Z, t), W, b, r=r, delta=delta, rng=rng)


class KLDComponents(NamedTuple):
    """The three terms of the WeiPer+KLD score, each [n]: score = -(d_z + lambda1*d_wz -
    lambda2*msp_w)."""

    d_z: np.ndarray
    d_wz: np.ndarray
    msp_w: np.ndarray


def _eps_pair(eps) -> tuple[float, float]:
    if isinstance(eps, tuple | list):
        if len(eps) != 2:
            raise ValueError(f"eps must be a number or a pair (eps_z, eps_wz), got {eps!r}")
        pair = (check_float(eps[0], "eps"), check_float(eps[1], "eps"))
    else:
        e = check_float(eps, "eps")
        pair = (e, e)
    if min(pair) <= 0:
        raise ValueError(f"eps must be > 0 (it keeps the logarithms finite), got {eps!r}")
    return pair


class WeiPerKLD:
    """WeiPer+KLD (Granz et al., NeurIPS 2024): a distance between the distribution of one
    sample's coordinates and the mean training distribution, in feature space and in WeiPer
    space, plus the MSP in WeiPer space. Higher score = more in-distribution.

    For one sample, ``p_z`` is the histogram of its D feature values and ``p_wz`` that of its
    r*C perturbed logits (``n_bins`` equal bins over the training minimum and maximum of all
    entries, :func:`histogram_rows`). The references ``q_z``, ``q_wz`` are the mean training
    histograms. The test histograms are smoothed (:func:`uniform_smooth`, widths ``s1``,
    ``s2``), and ``d = symmetric_kl(q, smoothed p, eps)`` with ``eps = (eps_z, eps_wz)``:

        score = -(d_z + lambda1 * d_wz - lambda2 * msp_w)

    Defaults are the authors' CIFAR10/ResNet18 setting. After :meth:`fit`: ``W_tilde_``,
    ``b_tilde_``, ``z_range_``, ``wz_range_`` (training (min, max)), ``q_z_``, ``q_wz_``
    (reference histograms), ``n_features_in_``, ``n_classes_``.
    """

    def __init__(
        self,
        *,
        r=100,
        delta=1.8,
        n_bins=100,
        lambda1=2.5,
        lambda2=0.1,
        s1=4,
        s2=15,
        eps=(0.01, 0.025),
        rng=None,
    ):
        self.r, self.delta = _r_delta(r, delta)
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)
        self.lambda1 = check_float(lambda1, "lambda1", minimum=0.0)
        self.lambda2 = check_float(lambda2, "lambda2", minimum=0.0)
        self.s1 = check_int(s1, "s1", minimum=1)
        self.s2 = check_int(s2, "s2", minimum=1)
        self.eps = _eps_pair(eps)
        check_rng(rng)  # validated now; the draw happens in fit
        self.rng = rng

    def __repr__(self) -> str:
        keys = ("r", "delta", "n_bins", "lambda1", "lambda2", "s1", "s2", "eps", "rng")
        return f"WeiPerKLD({', '.join(f'{k}={getattr(self, k)!r}' for k in keys)})"

    def fit(self, Z_train, W, b):
        """Draw ``W_tilde_`` (from ``rng``), take the training ranges and the mean training
        histograms of features Z_train [n, D] and of their perturbed logits. Returns self."""
        W, b = _layer(W, b)
        Z = _features(Z_train, "Z_train", W.shape[1])
        W_tilde, b_tilde = perturb_class_projections(W, b, r=self.r, delta=self.delta, rng=self.rng)
        z_range = (Z.min(), Z.max())
        lo, hi = np.inf, -np.inf
        for _, _, logits in _logit_blocks(Z, W_tilde, b_tilde):
            lo, hi = min(lo, logits.min()), max(hi, logits.max())
        wz_range = (lo, hi)
        q_z = histogram_rows(Z, *z_range, self.n_bins).mean(axis=0)
        q_wz = np.zeros(self.n_bins)
        for _, _, logits in _logit_blocks(Z, W_tilde, b_tilde):
            q_wz += histogram_rows(logits, *wz_range, self.n_bins).sum(axis=0)
        self.W_tilde_, self.b_tilde_ = W_tilde, b_tilde
        self.z_range_, self.wz_range_ = z_range, wz_range
        self.q_z_, self.q_wz_ = q_z, q_wz / Z.shape[0]
        self.n_features_in_, self.n_classes_ = W.shape[1], W.shape[0]
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "W_tilde_"):
            raise RuntimeError("this WeiPerKLD is not fitted yet: call fit(Z_train, W, b) first")

    def components(self, Z):
        """The three terms ``(d_z, d_wz, msp_w)`` [n] each, for features Z [n, D]."""
        self._check_fitted()
        Z = _features(Z, "Z", self.n_features_in_)
        n = Z.shape[0]
        d_z, d_wz, msp_w = np.empty(n), np.empty(n), np.empty(n)
        eps_z, eps_wz = self.eps
        for start, block, logits in _logit_blocks(Z, self.W_tilde_, self.b_tilde_):
            sl = slice(start, start + block.shape[0])
            p_z = uniform_smooth(histogram_rows(block, *self.z_range_, self.n_bins), self.s1)
            p_wz = uniform_smooth(histogram_rows(logits, *self.wz_range_, self.n_bins), self.s2)
            d_z[sl] = symmetric_kl(self.q_z_, p_z, eps=eps_z)
            d_wz[sl] = symmetric_kl(self.q_wz_, p_wz, eps=eps_wz)
            msp_w[sl] = _block_mean(logits, self.r, msp)
        return KLDComponents(d_z, d_wz, msp_w)

    def score(self, Z):
        """WeiPer+KLD score [n] of features Z [n, D]; higher = more in-distribution."""
        d_z, d_wz, msp_w = self.components(Z)
        return -(d_z + self.lambda1 * d_wz - self.lambda2 * msp_w)

    def outlier_score(self, Z):
        """``-score(Z)``: pytorch-ood's sign convention (higher = more likely OOD)."""
        return -self.score(Z)
