"""Naive per-row references written from the paper's and the issue's definitions (no code
shared with the package): np.histogram per row, np.pad + np.convolve smoothing, KL by loops."""

import math

import numpy as np


def hist(v, lo, hi, n_bins):
    return np.histogram(v, bins=n_bins, range=(lo, hi))[0] / len(v)


def smooth(p, width):
    left = (width - 1) // 2
    padded = np.pad(p, (left, width - 1 - left), mode="edge")
    return np.convolve(padded, np.ones(width) / width, mode="valid")


def sym_kl(p, q, eps):
    p = (np.asarray(p) + eps) / (np.asarray(p) + eps).sum()
    q = (np.asarray(q) + eps) / (np.asarray(q) + eps).sum()
    return sum(a * math.log(a / b) + b * math.log(b / a) for a, b in zip(p, q))


def softmax_max(l):
    e = [math.exp(v - max(l)) for v in l]
    return max(e) / sum(e)


def kld_reference(Z_train, Z, W_tilde, b_tilde, C, *, n_bins, lambda1, lambda2, s1, s2, eps):
    """WeiPer+KLD score of each row of Z, one sample at a time."""
    L_train = Z_train @ W_tilde.T + b_tilde
    z_lo, z_hi = Z_train.min(), Z_train.max()
    l_lo, l_hi = L_train.min(), L_train.max()
    q_z = np.mean([hist(z, z_lo, z_hi, n_bins) for z in Z_train], axis=0)
    q_l = np.mean([hist(l, l_lo, l_hi, n_bins) for l in L_train], axis=0)
    out = []
    for z in Z:
        l = W_tilde @ z + b_tilde
        d_z = sym_kl(q_z, smooth(hist(z, z_lo, z_hi, n_bins), s1), eps[0])
        d_l = sym_kl(q_l, smooth(hist(l, l_lo, l_hi, n_bins), s2), eps[1])
        r = len(l) // C
        m = np.mean([softmax_max(l[k * C : (k + 1) * C]) for k in range(r)])
        out.append((d_z, d_l, m, -(d_z + lambda1 * d_l - lambda2 * m)))
    return np.array(out)
