"""scikit-learn style streaming estimators built on Clipped-SGD (one pass, O(d) state).

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das et al., NeurIPS 2024) - https://arxiv.org/abs/2410.20135.  The paper's statistical
instantiations of smooth strongly convex stochastic optimisation:

* mean estimation, ``f(x; xi) = ||x - xi||^2 / 2`` (``g = x - xi``, Sigma = Cov(xi)),
* linear regression with heavy-tailed covariates and noise, ``f(w; a, b) = (a^T w - b)^2 / 2``,
* logistic regression, ``f(w; a, s) = log(1 + exp(-s a^T w))`` (strongly convex on bounded sets).

Each estimator runs :class:`~clipped_sgd.ClippedSGD` over the rows in the order given (``fit`` resets,
``partial_fit`` continues), one step per ``batch_size`` rows, with the step size
``eta_t = 1/(mu (t + t0))`` and the clipping level of :func:`~clipped_sgd.clip_level`.

``clip="auto"`` (ours, not from the paper) looks at a pilot: the first ``m = max(ceil(sqrt(n)),
2 (d + 1))`` rows of ``fit`` (or the first ``partial_fit`` rows: the first batch if it has at
least ``2 (d + 1)`` rows, else the rows are buffered (O(d^2) memory) until that many have arrived, so
a stream fed one sample per call works; until then no step is taken and ``t_ = 0``).  It fits the pilot
(coordinate median / least squares / a few Newton steps), takes the Hessian H there for ``mu``
(smallest eigenvalue) and ``L`` (trace of H, the per-sample smoothness that SGD's stability needs)
when they are ``"auto"`` and estimates ``Tr(Sigma)`` robustly from the pilot gradients at
the pilot fit (:func:`~clipped_sgd.functional.estimate_noise_trace`).  The pilot rows are then
streamed like every other row.  With a known horizon T (``fit``, or ``horizon=``) Gamma is constant;
otherwise the anytime level ``Gamma_t`` uses ``t`` in place of T.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._checks import check_rng
from ._validation import check_estimator_params, check_features, check_target
from .baselines import median_of_means
from .functional import clip_level, estimate_noise_trace
from .optimizer import ClippedSGD

__all__ = ["StreamingMean", "StreamingLinearRegression", "StreamingLogisticRegression"]


def _anytime_level(t, *, noise_trace, delta, c, grad_norm_init, t_min):
    return clip_level(noise_trace, max(t, t_min), delta=delta, c=c, grad_norm_init=grad_norm_init)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free logistic function


class _StreamingBase(BaseEstimator):
    """Shared machinery: parameter checks, pilot, optimizer set-up, the streaming loop."""

    _mean_problem = False

    # --- problem-specific hooks -------------------------------------------------------------
    def _grad(self, w, A, y):  # (p,), (B, p), (B,) -> (p,) mean gradient over the batch
        raise NotImplementedError

    def _pilot_fit(self, A, y):  # -> (w_pilot (p,), hessian (p, p))
        raise NotImplementedError

    def _per_sample_grads(self, w, A, y):  # -> (m, p)
        raise NotImplementedError

    # --- checks -----------------------------------------------------------------------------
    def _check_params(self):
        check_estimator_params(self)

    def _features(self, X):
        if getattr(self, "fit_intercept", False):
            return np.hstack(
                [X, np.ones((X.shape[0], 1))]
            )  # (n, d + 1), last coordinate = intercept
        return X

    # --- set-up from the pilot --------------------------------------------------------------
    def _start(self, A, y, horizon_samples):
        """Create the optimizer from a pilot (A, y); horizon_samples = T in samples or None."""
        n, p = A.shape
        B = self.batch_size
        need_pilot = self._needs_pilot()
        if need_pilot and n < 2:
            raise ValueError(
                "clip='auto' (or mu/L='auto') estimates Tr(Sigma) and the curvature from a pilot, "
                f"which needs at least 2 samples (got {n} sample); pass numeric clip, mu and L"
            )
        if need_pilot:
            w_p, H = self._pilot_fit(A, y)
            eig = np.linalg.eigvalsh(H)  # ascending
            # SGD's stability is governed by the per-sample smoothness E||a||^2 (>= lambda_max), so
            # L is the trace of the pilot Hessian; for the mean problem H = I and L = 1 is exact.
            L_hat = 1.0 if self._mean_problem else max(float(np.trace(H)), 1e-12)
            mu_hat = min(max(float(eig[0]), 1e-3 * L_hat), L_hat)  # kappa capped at 1e3
        mu = mu_hat if self._param_is_auto("mu") else float(self.mu)
        L = L_hat if self._param_is_auto("L") else float(self.L)
        # a numeric L < mu was refused by _check_params; an estimated L below a given mu is raised
        # to mu (kappa >= 1)
        L = max(L, mu)
        self.mu_, self.L_ = mu, L

        self.noise_trace_ = math.nan
        if self.clip is None:
            clip = None
        elif isinstance(self.clip, str):  # "auto"
            G = self._per_sample_grads(w_p, A, y)  # (n, p) gradients at the pilot fit
            trace_sample = estimate_noise_trace(G)
            self.noise_trace_ = trace_sample
            G0 = self._per_sample_grads(np.zeros(p), A, y)  # gradients at x_1 = 0
            g0 = float(np.linalg.norm(median_of_means(G0, n_blocks=min(8, n))))
            trace_step = trace_sample / B  # a mini-batch of B samples divides the noise by B
            if horizon_samples is not None:
                T = max(1, math.ceil(horizon_samples / B))
                clip = clip_level(trace_step, T, delta=self.delta, c=self.c, grad_norm_init=g0)
            else:
                clip = partial(
                    _anytime_level,
                    noise_trace=trace_step,
                    delta=self.delta,
                    c=self.c,
                    grad_norm_init=g0,
                    t_min=max(1, n // B),
                )
        else:
            clip = float(self.clip)
        self._opt = ClippedSGD(
            p, step="strongly_convex", mu=mu, L=L, clip=clip, average=self.average
        )

    def _param_is_auto(self, name):
        v = getattr(self, name, 1.0)
        return isinstance(v, str) and v == "auto"

    def _needs_pilot(self):
        return (
            (isinstance(self.clip, str) and self.clip == "auto")
            or self._param_is_auto("mu")
            or self._param_is_auto("L")
        )

    def _stream_started(self):
        return hasattr(self, "_opt") or getattr(self, "_pilot_rows", None) is not None

    def _partial(self, A, y):
        """``partial_fit`` core: start from a pilot (buffering rows until it is large enough)."""
        if hasattr(self, "_opt"):
            self._stream(A, y)
            return self
        pending = getattr(self, "_pilot_rows", None)
        if pending is not None:  # rows buffered by earlier calls come first
            A = np.vstack([pending[0], A])
            y = None if y is None else np.concatenate([pending[1], y])
        p = A.shape[1]
        if self._needs_pilot() and A.shape[0] < 2 * (p + 1):
            # too few rows to estimate Tr(Sigma) / the curvature: wait for more (no step yet)
            self._pilot_rows = (A, y)
            self.t_, self.n_clipped_, self.clipped_fraction_ = 0, 0, 0.0
            self.clip_level_ = self.noise_trace_ = math.nan
            self._set_solution(np.zeros(p))  # the starting point x_1 = 0
            return self
        self._pilot_rows = None
        self._start(A, y, self.horizon)
        self._stream(A, y)
        return self

    def _stream(self, A, y):
        if self.batch_size == 1 and y is not None:
            return self._stream_single(A, y)
        B = self.batch_size
        for i in range(0, A.shape[0], B):
            w = self._opt.x_
            g = self._grad(w, A[i : i + B], None if y is None else y[i : i + B])
            if not math.isfinite(float(g @ g)):
                raise ValueError("a stochastic gradient is not finite (overflow in the data?)")
            self._opt._step(g)
        self._sync()

    def _stream_single(self, A, y):
        """The same update as ``ClippedSGD._step`` inlined for one row per step (about 3x faster)."""
        opt = self._opt
        x, avg, t, n_clipped = opt.x_.copy(), opt.x_avg_.copy(), opt.t_, int(opt.n_clipped_)
        mu, t0 = self.mu_, self.L_ / self.mu_ - 1.0  # eta_t = 1 / (mu (t + t0)), as in ClippedSGD
        clip, const = opt.clip, (None if callable(opt.clip) else opt.clip)
        grad1 = self._grad1
        level = math.inf
        for i in range(A.shape[0]):
            g = grad1(x, A[i], y[i])
            sq = float(g @ g)
            if not math.isfinite(sq):
                raise ValueError("a stochastic gradient is not finite (overflow in the data?)")
            t += 1
            if clip is not None:
                level = const if const is not None else float(clip(t))
                if sq > level * level:
                    g = g * (level / math.sqrt(sq))
                    n_clipped += 1
            x = x - g / (mu * (t + t0))
            avg += (x - avg) / t
        opt.x_, opt.x_avg_, opt.t_, opt.n_clipped_ = x, avg, t, n_clipped
        if t > 0:
            opt.clip_level_ = level
        self._sync()

    def _sync(self):
        opt = self._opt
        self.n_clipped_ = int(opt.n_clipped_)
        self.t_ = int(opt.t_)
        self.clipped_fraction_ = self.n_clipped_ / max(self.t_, 1)
        self.clip_level_ = float(opt.current_clip_level(max(opt.t_, 1)))
        self._set_solution(np.array(opt.solution_))

    def _fit_arrays(self, A, y):
        n, p = A.shape
        m = min(n, max(math.ceil(math.sqrt(n)), 2 * (p + 1)))
        horizon = self.horizon if self.horizon is not None else n
        self._pilot_rows = None  # fit restarts the stream
        self._start(A[:m], None if y is None else y[:m], horizon)
        if self.shuffle:
            order = check_rng(self.random_state, "random_state").permutation(n)
            A, y = A[order], (None if y is None else y[order])
        self._stream(A, y)
        return self


class StreamingMean(_StreamingBase):
    """Streaming heavy-tailed mean estimation with Clipped-SGD (``g = x - xi``, ``eta_t = 1/t``).

    With ``clip=None`` this is exactly the running sample mean (unclipped SGD); with ``clip="auto"``
    its high-probability error is close to ``sqrt(Tr(Sigma)/T)`` under heavy tails.

    Args:
        clip: ``"auto"`` (level from a pilot, see the module docstring), a number > 0, or None.
        delta: failure probability the clipping level is tuned for.
        c: constant in ``Gamma = c sqrt(T Tr(Sigma) / ln(ln T / delta))``.
        horizon: T in samples when known in advance for ``partial_fit`` (``fit`` uses n).
        batch_size: rows averaged into one stochastic gradient.
        average: return the Polyak average instead of the last iterate.
        shuffle: permute the rows of ``fit`` first (randomness from ``random_state``).
        random_state: seed for ``shuffle``.

    Attributes:
        mean_: (d,) estimate.  n_clipped_: number of clipped steps.  clipped_fraction_: their share.
        clip_level_: Gamma at the last step.  noise_trace_: pilot estimate of Tr(Sigma).
        t_: steps taken.  n_features_in_: d.

    >>> rng = np.random.default_rng(0)
    >>> X = 3.0 + rng.standard_t(2.5, size=(2000, 5))
    >>> est = StreamingMean().fit(X)
    >>> est.mean_.shape, bool(np.linalg.norm(est.mean_ - 3.0) < 0.3)
    ((5,), True)
    """

    _mean_problem = True

    def __init__(
        self,
        *,
        clip="auto",
        delta=1e-3,
        c=1.0,
        horizon=None,
        batch_size=1,
        average=False,
        shuffle=False,
        random_state=None,
    ):
        self.clip = clip
        self.delta = delta
        self.c = c
        self.horizon = horizon
        self.batch_size = batch_size
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state

    mu = 1.0  # f(x; xi) = ||x - xi||^2 / 2 is 1-smooth and 1-strongly convex
    L = 1.0

    def _grad(self, w, A, y):
        return w - A.mean(axis=0)

    def _per_sample_grads(self, w, A, y):
        return w - A

    def _pilot_fit(self, A, y):
        return np.median(A, axis=0), np.eye(A.shape[1])

    def _set_solution(self, w):
        self.mean_ = w

    def _stream(self, A, y):
        """Exact Clipped-SGD with eta_t = 1/t, vectorised between clipping events.

        Unclipped, ``x_{t+1} = ((t - 1) x_t + xi_t) / t``, so ``t x_{t+1}`` is a cumulative sum.  We
        compute a chunk of candidate iterates at once, find the first step whose gradient
        ``x_s - xi_s`` exceeds Gamma_s, accept the steps before it, take the clipped step
        sequentially, and continue (chunk length adapts: doubled after a clean chunk, halved after a
        clip).  Same iterates as the step-by-step loop up to float rounding (tested to 1e-10).
        """
        B = self.batch_size
        if B > 1:  # one stochastic gradient per mini-batch: stream the batch means
            n = A.shape[0]
            starts = np.arange(0, n, B)
            A = np.add.reduceat(A, starts, axis=0) / np.diff(np.r_[starts, n])[:, None]
        opt = self._opt
        n, K, i = A.shape[0], 64, 0
        while i < n:
            k = opt.t_  # steps done; opt.x_ = x_{k+1}
            xi = A[i : i + K]  # (K', d)
            m = xi.shape[0]
            cs = np.cumsum(xi, axis=0)  # (K', d)
            it = np.empty_like(xi)  # it[j] = x_{k+1+j} if steps k+1..k+j are unclipped
            it[0] = opt.x_
            if m > 1:
                it[1:] = (k * opt.x_ + cs[:-1]) / np.arange(k + 1, k + m)[:, None]
            steps = np.arange(k + 1, k + m + 1)
            if opt.clip is None:
                over = np.zeros(m, dtype=bool)
                levels = np.full(m, math.inf)
            else:
                levels = (
                    np.array([opt.clip(s) for s in steps], dtype=float)
                    if callable(opt.clip)
                    else np.full(m, float(opt.clip))
                )
                g = it - xi
                over = np.einsum("ij,ij->i", g, g) > levels**2
            j = int(np.argmax(over)) if over.any() else m  # unclipped steps accepted
            if j > 0:
                new = (k * opt.x_ + cs[j - 1]) / (k + j)  # x_{k+j+1}
                acc = np.vstack([it[1:j], new[None]])  # (j, d) iterates x_{k+2}..x_{k+j+1}
                opt.x_avg_ = (k * opt.x_avg_ + acc.sum(axis=0)) / (k + j)
                opt.x_, opt.t_, opt.clip_level_ = new, k + j, float(levels[j - 1])
            if j < m:  # the clipped step, taken by the reference update
                opt._step(opt.x_ - xi[j])
                j += 1
                K = max(16, K // 2)
            else:
                K = min(8192, 2 * K)
            i += j
        self._sync()

    def fit(self, X, y=None):
        """Estimate the mean of the rows of X (n, d) in one streaming pass; returns self."""
        self._check_params()
        check_features(X)
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=1)
        return self._fit_arrays(X, None)

    def partial_fit(self, X, y=None):
        """Continue the stream with the rows of X (n, d); returns self.

        The optimizer is set up from the first rows (with ``clip="auto"``: once ``2 (d + 1)`` rows
        have arrived, buffering smaller first calls, so one row per call works).
        """
        self._check_params()
        check_features(X)
        first = not self._stream_started()
        X = validate_data(self, X, dtype=np.float64, reset=first)
        return self._partial(X, None)


class StreamingLinearRegression(RegressorMixin, _StreamingBase):
    """Streaming least squares with Clipped-SGD, robust to heavy-tailed covariates and noise.

    ``f(w; a, b) = (a^T w - b)^2 / 2``, step ``eta_t = 1/(mu (t + t0))``, ``t0 = L/mu - 1``, with mu the
    smallest eigenvalue of ``E[a a^T]`` and L the per-sample smoothness ``E||a||^2`` (both estimated
    from the pilot when ``"auto"``).

    Args:
        fit_intercept: append a constant feature.
        clip, delta, c, horizon, batch_size, average, shuffle, random_state: as in
            :class:`StreamingMean`.
        mu, L: strong convexity / smoothness of the population loss, or ``"auto"``.

    Attributes:
        coef_: (d,) weights.  intercept_: float.  n_clipped_, clipped_fraction_, clip_level_,
        noise_trace_, mu_, L_, t_, n_features_in_.

    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((5000, 3)); w = np.array([1.0, -2.0, 0.5])
    >>> b = A @ w + rng.standard_t(2.5, size=5000)
    >>> bool(np.linalg.norm(StreamingLinearRegression().fit(A, b).coef_ - w) < 0.15)
    True
    """

    def __init__(
        self,
        *,
        fit_intercept=True,
        clip="auto",
        delta=1e-3,
        c=1.0,
        mu="auto",
        L="auto",
        horizon=None,
        batch_size=1,
        average=False,
        shuffle=False,
        random_state=None,
    ):
        self.fit_intercept = fit_intercept
        self.clip = clip
        self.delta = delta
        self.c = c
        self.mu = mu
        self.L = L
        self.horizon = horizon
        self.batch_size = batch_size
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state

    def _grad(self, w, A, y):
        return A.T @ (A @ w - y) / A.shape[0]  # (p,)

    @staticmethod
    def _grad1(w, a, b):
        return a * (float(a @ w) - b)  # (p,) one row

    def _per_sample_grads(self, w, A, y):
        return A * (A @ w - y)[:, None]  # (m, p)

    def _pilot_fit(self, A, y):
        H = A.T @ A / A.shape[0]  # (p, p) pilot E[a a^T]
        w_p = np.linalg.lstsq(A, y, rcond=None)[0]
        return w_p, H

    def _set_solution(self, w):
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[:-1].copy(), float(w[-1])
        else:
            self.coef_, self.intercept_ = w.copy(), 0.0

    def fit(self, X, y):
        """One streaming pass over (X (n, d), y (n,)); returns self."""
        self._check_params()
        check_features(X)
        check_target(y, X, numeric=True)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self._fit_arrays(self._features(X), y)

    def partial_fit(self, X, y):
        """Continue the stream with (X (n, d), y (n,)); returns self.

        The optimizer is set up from the first rows (with ``clip``, ``mu`` or ``L`` ``"auto"``:
        once ``2 (p + 1)`` rows have arrived, p = number of coefficients incl. the intercept,
        buffering smaller first calls, so one row per call works).
        """
        self._check_params()
        check_features(X)
        check_target(y, X, numeric=True)
        first = not self._stream_started()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, reset=first)
        return self._partial(self._features(X), y)

    def predict(self, X):
        """(n, d) -> (n,) predictions ``X coef_ + intercept_``."""
        check_is_fitted(self)
        check_features(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_


class StreamingLogisticRegression(ClassifierMixin, _StreamingBase):
    """Streaming binary logistic regression with Clipped-SGD.

    ``f(w; a, s) = log(1 + exp(-s a^T w))`` with ``s = +-1``; mu (``"auto"``) is the smallest eigenvalue
    and L the trace of the Hessian at a pilot fit (a few damped Newton steps on the pilot rows).

    Args:
        fit_intercept: append a constant feature.
        clip, delta, c, mu, L, horizon, batch_size, average, shuffle, random_state: as in
            :class:`StreamingLinearRegression`.

    Attributes:
        classes_: the two labels (``classes_[1]`` is the positive class).  coef_: (1, d).
        intercept_: (1,).  n_clipped_, clipped_fraction_, clip_level_, noise_trace_, mu_, L_, t_,
        n_features_in_.

    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((4000, 2)); y = (A @ [2.0, -1.0] + rng.logistic(size=4000) > 0)
    >>> clf = StreamingLogisticRegression(fit_intercept=False).fit(A, y)
    >>> clf.coef_.shape, bool(np.linalg.norm(clf.coef_[0] - [2.0, -1.0]) < 0.6)
    ((1, 2), True)
    """

    def __init__(
        self,
        *,
        fit_intercept=True,
        clip="auto",
        delta=1e-3,
        c=1.0,
        mu="auto",
        L="auto",
        horizon=None,
        batch_size=1,
        average=False,
        shuffle=False,
        random_state=None,
    ):
        self.fit_intercept = fit_intercept
        self.clip = clip
        self.delta = delta
        self.c = c
        self.mu = mu
        self.L = L
        self.horizon = horizon
        self.batch_size = batch_size
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _grad(self, w, A, s):
        return -(A.T @ (s * _sigmoid(-s * (A @ w)))) / A.shape[0]  # (p,)

    @staticmethod
    def _grad1(w, a, s):
        z = -s * float(a @ w)
        return a * (-s * 0.5 * (1.0 + math.tanh(0.5 * z)))  # (p,) one row: -s a sigmoid(-s a.w)

    def _per_sample_grads(self, w, A, s):
        return -A * (s * _sigmoid(-s * (A @ w)))[:, None]  # (m, p)

    def _pilot_fit(self, A, s):
        m, p = A.shape
        w = np.zeros(p)
        ridge = 1e-2 * (
            np.trace(A.T @ A) / (m * p) + 1e-12
        )  # keeps Newton stable on separable pilots
        for _ in range(25):
            q = _sigmoid(A @ w)
            H = (A * (q * (1 - q))[:, None]).T @ A / m + ridge * np.eye(p)
            grad = self._grad(w, A, s) + ridge * w
            step = np.linalg.solve(H, grad)
            w = w - step / max(1.0, np.linalg.norm(step))  # damped: at most unit length per step
            if np.linalg.norm(step) < 1e-8:
                break
        q = _sigmoid(A @ w)
        H = (A * (q * (1 - q))[:, None]).T @ A / m
        return w, H

    def _set_solution(self, w):
        w = np.asarray(w)
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[None, :-1].copy(), np.array([w[-1]])
        else:
            self.coef_, self.intercept_ = w[None, :].copy(), np.array([0.0])

    def _signs(self, y):
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _set_classes(self, y, classes):
        try:
            check_classification_targets(y)
        except ValueError as e:
            raise ValueError(f"y must hold class labels. {e}") from None
        if classes is None and type_of_target(y, input_name="y") not in ("binary",):
            raise ValueError(
                "Only binary classification is supported. StreamingLogisticRegression needs y with "
                f"exactly 2 classes, got {np.unique(y).shape[0]} class(es)"
            )
        if classes is not None:
            given = np.asarray(classes)
            if given.ndim != 1:
                raise ValueError(
                    f"classes must be a 1-d list of the 2 labels, got shape {given.shape}"
                )
            classes = np.unique(given)
        else:
            classes = np.unique(y)
        if classes.shape[0] != 2:
            raise ValueError(
                "Only binary classification is supported. StreamingLogisticRegression needs y "
                f"(or classes) with exactly 2 classes, got {classes.shape[0]} class(es)"
            )
        if not np.all(np.isin(np.unique(y), classes)):
            raise ValueError(f"y has labels outside classes={classes.tolist()}")
        self.classes_ = classes

    def fit(self, X, y):
        """One streaming pass over (X (n, d), y (n,) with 2 labels); returns self."""
        self._check_params()
        check_features(X)
        check_target(y, X, numeric=False)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self._set_classes(y, None)
        return self._fit_arrays(self._features(X), self._signs(y))

    def partial_fit(self, X, y, classes=None):
        """Continue the stream; ``classes`` (both labels) is needed on the first call if y has one.

        As in :meth:`StreamingLinearRegression.partial_fit`, first calls with fewer than
        ``2 (p + 1)`` rows in all are buffered until the pilot is large enough.
        """
        self._check_params()
        check_features(X)
        check_target(y, X, numeric=False)
        first = not self._stream_started()
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first)
        if first:
            self._set_classes(y, classes)
        elif not np.all(np.isin(np.unique(y), self.classes_)):
            raise ValueError(f"y has labels outside classes_={self.classes_.tolist()}")
        return self._partial(self._features(X), self._signs(y))

    def decision_function(self, X):
        """(n, d) -> (n,) scores ``X coef_^T + intercept_`` (positive favours ``classes_[1]``)."""
        check_is_fitted(self)
        check_features(X)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        """(n, d) -> (n, 2) class probabilities in the order of ``classes_``."""
        p1 = _sigmoid(self.decision_function(X))
        return np.column_stack([1 - p1, p1])

    def predict(self, X):
        """(n, d) -> (n,) predicted labels."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
