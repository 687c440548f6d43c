"""The AWSM objective written the slow, obvious way: the reference of the tests and the baseline
of bench.py (direct O(N^2) intensities, scores by central finite differences of log lambda; no
recursions). Not public API."""

import numpy as np


def naive_awsm(model, seqs, T, kind="two_sided_min", mark_coef=1.0):
    """Direct O(N^2) intensities; psi and dpsi by central finite differences of log lambda."""
    total, count = 0.0, 0
    for times, marks in seqs:
        for n, (t, k) in enumerate(zip(times, marks, strict=True)):
            hist = (times[:n], marks[:n])
            tprev = times[n - 1] if n else 0.0
            d = min(0.3 * (t - tprev), 1e-3)  # psi is smooth on (t_{n-1}, inf)

            def lam_tot(s, hist=hist):
                return model.intensity([s], hist).sum()

            def psi(s, lam_tot=lam_tot, d=d):
                return (np.log(lam_tot(s + d)) - np.log(lam_tot(s - d))) / (2 * d) - lam_tot(s)

            p, dp = psi(t), (psi(t + d) - psi(t - d)) / (2 * d)
            if kind == "two_sided_min":
                h, dh = min(t - tprev, T - t), (1.0 if t - tprev <= T - t else -1.0)
            elif kind == "two_sided_product":
                h, dh = (t - tprev) * (T - t), (T - t) - (t - tprev)
            else:  # none
                h, dh = 1.0, 0.0
            lam = model.intensity([t], hist)[0]
            total += 0.5 * h * p**2 + h * dp + dh * p + mark_coef * np.log(lam.sum() / lam[k])
            count += 1
    return total / count
