"""scikit-learn estimators minimising the DP smooth-ambiguity criterion (Bariletto & Ho, NeurIPS 2024).

https://papers.nips.cc/paper_files/paper/2024/hash/402542c2341e5d2eadc1dd0891275901-Abstract-Conference.html
(Sec. 2 criterion, Sec. 3 regularisation links, Sec. 4 MC approximations, Sec. 5 gradient-based
optimisation, Sec. 6 experiments: sparse linear/logistic regression, Gaussian location.)

Common hyper-parameters:

* ``alpha`` - DP prior concentration (how much p0 counts, in "pseudo-observations").
* ``beta`` - ambiguity index of ``phi(t) = beta (exp(t / beta) - 1)`` (smaller = more averse), or
  the exponent of ``phi(t) = t^beta`` with ``phi="power"``. ``phi="identity"`` is ambiguity
  neutral (for squared loss and the Gaussian prior: ridge with penalty ``alpha * prior_scale^2``).
  ``beta`` is in the units of the loss: the authors' code multiplies every loss by 1e-3, so their
  ``beta = 1`` is ``beta = 1000`` here.
* ``prior`` - p0: ``"gaussian"`` (``x ~ N(0, prior_scale^2 I)``, ``y ~ N(0, prior_scale^2)``
  for regression, ``y`` uniform on {-1, 1} for classification), ``"laplace-axis"`` (regression: ``y = 0``,
  ``x`` uniform on ``{+-prior_scale e_j}``), or a callable ``p0(rng, size) -> (size, 1 + d)`` rows
  ``(y, x)`` in the (centred) feature space.
* ``method`` (``"mdmc"``/``"sbmc"``), ``M`` draws, ``T`` atoms per draw, ``random_state``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from sklearn.utils.validation import check_random_state as sklearn_check_random_state

from ._checks import check_array, check_bool, check_float, check_int, check_option, describe
from ._validation import call_sampler, check_phi, check_positive, check_random_state
from .criterion import SmoothAmbiguityRisk
from .posterior import (
    gaussian_prior,
    laplace_axis_prior,
    location_gaussian_prior,
    logistic_gaussian_prior,
)

__all__ = ["DPRobustLinearRegression", "DPRobustLogisticRegression", "DPRobustMean"]


def _check_params(est, priors=("gaussian", "laplace-axis")):
    """Validate the hyper-parameters in ``fit`` (scikit-learn style: not in ``__init__``)."""
    for name in ("alpha", "beta", "prior_scale"):
        check_positive(getattr(est, name), name)
    phi = check_phi(est.phi)
    if phi == "power" and est.beta < 1:
        raise ValueError(f"beta must be >= 1 with phi='power' (convex phi), got {est.beta}")
    check_option(est.method, "method", ("mdmc", "sbmc"))
    for name in ("M", "T", "max_iter"):
        check_int(getattr(est, name), name, minimum=1)
    check_float(est.tol, "tol", minimum=0.0)
    if hasattr(est, "fit_intercept"):
        check_bool(est.fit_intercept, "fit_intercept")
    if not callable(est.prior):
        if not isinstance(est.prior, str):
            raise TypeError(
                f"prior must be one of {list(priors)} or a callable, got {describe(est.prior)}"
            )
        check_option(est.prior, "prior", priors)
    check_random_state(est.random_state)


def _user_prior(prior, width):
    """Wrap a callable ``prior``: its output is checked and errors name ``prior``."""

    def sampler(rng, size):
        return call_sampler(prior, "prior", rng, size, width)

    return sampler


def _random_sign_response(sampler):
    """Wrap a regression p0 so that y is uniform on {-1, +1} (classification atoms)."""

    def wrapped(rng, size):
        out = sampler(rng, size)
        out[:, 0] = rng.choice(np.array([-1.0, 1.0]), size=size)
        return out

    return wrapped


def _seed(random_state):
    """A numpy Generator derived from a sklearn-style random_state (None, int, RandomState) or a
    ``numpy.random.Generator`` (as the posterior samplers accept); a seed is drawn from it."""
    check_random_state(random_state)
    if isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state.integers(0, 2**31 - 1))
    rs = sklearn_check_random_state(random_state)
    return np.random.default_rng(rs.randint(0, 2**31 - 1))


class _DPRobustBase(BaseEstimator):
    def _risk(self, loss, sampler, fit_intercept):
        return SmoothAmbiguityRisk(
            loss,
            phi=self.phi,
            beta=self.beta,
            alpha=self.alpha,
            base_sampler=sampler,
            method=self.method,
            M=self.M,
            T=self.T,
            fit_intercept=fit_intercept,
            rng=_seed(self.random_state),
        )

    def _fit_risk(self, risk, data, theta0=None):
        risk.draw(data)
        theta = risk.minimize(theta0, max_iter=self.max_iter, tol=self.tol)
        self.criterion_ = risk.value(theta)
        self.n_iter_ = int(getattr(risk, "optimize_result_", None).nit)
        return theta


class DPRobustLinearRegression(RegressorMixin, _DPRobustBase):
    """Linear regression minimising the DP smooth-ambiguity criterion.

    ``loss="squared"`` (default) or ``"absolute"``. With ``fit_intercept`` the data are centred
    and the criterion is applied to the centred data (the prior shrinks slopes only, like Ridge).

    Attributes:
        coef_: (d,) slopes. intercept_: float. criterion_: certainty-equivalent criterion at the
        optimum. n_iter_: L-BFGS-B iterations.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = X @ np.array([1.0, 0.0, -2.0]) + 0.1 * rng.normal(size=50)
    >>> est = DPRobustLinearRegression(alpha=1.0, beta=1.0, M=50, T=100, random_state=0).fit(X, y)
    >>> bool(np.allclose(est.coef_, [1.0, 0.0, -2.0], atol=0.1))
    True
    """

    def __init__(
        self,
        alpha=1.0,
        beta=1.0,
        *,
        phi="exp",
        prior="gaussian",
        prior_scale=1.0,
        loss="squared",
        method="mdmc",
        M=100,
        T=100,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-10,
        random_state=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.phi = phi
        self.prior = prior
        self.prior_scale = prior_scale
        self.loss = loss
        self.method = method
        self.M = M
        self.T = T
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on X (n, d), y (n,); returns self."""
        _check_params(self)
        check_option(self.loss, "loss", ("squared", "absolute"))
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        d = X.shape[1]
        if self.fit_intercept:
            x_mean, y_mean = X.mean(axis=0), y.mean()
        else:
            x_mean, y_mean = np.zeros(d), 0.0
        Xc, yc = X - x_mean, y - y_mean
        if self.prior == "gaussian":
            sampler = gaussian_prior(d, scale=self.prior_scale)
        elif self.prior == "laplace-axis":
            sampler = laplace_axis_prior(d, scale=self.prior_scale)
        else:
            sampler = _user_prior(self.prior, 1 + d)
        risk = self._risk(self.loss, sampler, False)
        self.coef_ = self._fit_risk(risk, np.column_stack([yc, Xc]))
        self.intercept_ = float(y_mean - x_mean @ self.coef_)
        return self

    def predict(self, X):
        """(n,) predictions ``X @ coef_ + intercept_``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_


class DPRobustLogisticRegression(ClassifierMixin, _DPRobustBase):
    """Logistic regression minimising the DP smooth-ambiguity criterion (one-vs-rest for K > 2).

    Binary labels are encoded to ``{-1, +1}`` (``classes_[1]`` is +1). p0 draws ``y`` uniformly and
    ``x ~ N(0, prior_scale^2 I)`` (authors' choice; ``prior="laplace-axis"``: ``x`` uniform on
    ``{+-prior_scale e_j}``). With ``fit_intercept`` the features are
    centred and an intercept enters the loss of every atom (p0 atoms pull it weakly towards 0).

    Attributes:
        classes_: (K,) labels. coef_: (1, d) for two classes, else (K, d). intercept_: (1,) or (K,).
        criterion_: float, or (K,) for one-vs-rest. n_iter_: most L-BFGS-B iterations.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    >>> clf = DPRobustLogisticRegression(M=30, T=100, random_state=0).fit(X, y)
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    def __init__(
        self,
        alpha=1.0,
        beta=1.0,
        *,
        phi="exp",
        prior="gaussian",
        prior_scale=1.0,
        method="mdmc",
        M=100,
        T=100,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-10,
        random_state=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.phi = phi
        self.prior = prior
        self.prior_scale = prior_scale
        self.method = method
        self.M = M
        self.T = T
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on X (n, d) and labels y (n,); returns self.

        Two classes: one criterion with ``y in {-1, +1}``. More classes: one-vs-rest, one
        criterion (with its own posterior draws) per class.
        """
        _check_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        enc = LabelEncoder().fit(y)
        self.classes_ = enc.classes_
        if self.classes_.size < 2:
            raise ValueError(
                f"y must contain at least 2 classes; got {self.classes_.size} class(es)"
            )
        codes = enc.transform(y)
        d = X.shape[1]
        x_mean = X.mean(axis=0) if self.fit_intercept else np.zeros(d)
        Xc = X - x_mean
        if self.prior == "gaussian":
            sampler = logistic_gaussian_prior(d, scale=self.prior_scale)
        elif self.prior == "laplace-axis":
            sampler = _random_sign_response(laplace_axis_prior(d, scale=self.prior_scale))
        else:
            sampler = _user_prior(self.prior, 1 + d)
        targets = (
            [codes == 1]
            if self.classes_.size == 2
            else [codes == k for k in range(self.classes_.size)]
        )
        rng = _seed(self.random_state)
        coefs, intercepts, crits, iters = [], [], [], []
        for positive in targets:
            ys = np.where(positive, 1.0, -1.0)  # (n,) in {-1, +1}
            risk = self._risk("logistic", sampler, bool(self.fit_intercept))
            risk.rng = rng
            theta = self._fit_risk(risk, np.column_stack([ys, Xc]))
            b = theta[d] if self.fit_intercept else 0.0
            coefs.append(theta[:d])
            intercepts.append(b - x_mean @ theta[:d])
            crits.append(self.criterion_)
            iters.append(self.n_iter_)
        self.coef_ = np.array(coefs)  # (1 or K, d)
        self.intercept_ = np.array(intercepts)  # (1 or K,)
        self.criterion_ = crits[0] if len(crits) == 1 else np.array(crits)
        self.n_iter_ = max(iters)
        return self

    def decision_function(self, X):
        """(n,) scores for two classes (positive means ``classes_[1]``), else (n, K)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        scores = X @ self.coef_.T + self.intercept_  # (n, 1 or K)
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        """(n, K) class probabilities (one-vs-rest probabilities normalised for K > 2)."""
        z = self.decision_function(X)
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
        if self.classes_.size == 2:
            return np.column_stack([1.0 - p, p])
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """(n,) predicted labels."""
        z = self.decision_function(X)
        idx = (z > 0).astype(int) if z.ndim == 1 else z.argmax(axis=1)
        return self.classes_[idx]


class DPRobustMean(_DPRobustBase):
    """Location estimate minimising the DP smooth-ambiguity criterion with loss ``||x - theta||^2``.

    p0 is ``N(prior_mean, prior_scale^2 I)`` (``prior="gaussian"``) or a callable
    ``p0(rng, size) -> (size, p)``. With ``phi="identity"`` the estimate is
    ``(sum_i x_i + alpha prior_mean) / (n + alpha)``.

    Attributes:
        location_: (p,) estimate. coef_: alias of ``location_``. criterion_, n_iter_.

    >>> x = np.array([[0.1], [-0.2], [0.3], [8.0]])
    >>> DPRobustMean(alpha=2.0, M=50, T=100, random_state=0).fit(x).location_.shape
    (1,)
    """

    def __init__(
        self,
        alpha=1.0,
        beta=1.0,
        *,
        phi="exp",
        prior="gaussian",
        prior_mean=0.0,
        prior_scale=1.0,
        method="mdmc",
        M=100,
        T=100,
        max_iter=1000,
        tol=1e-10,
        random_state=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.phi = phi
        self.prior = prior
        self.prior_mean = prior_mean
        self.prior_scale = prior_scale
        self.method = method
        self.M = M
        self.T = T
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit on X (n, p); y is ignored. Returns self."""
        _check_params(self, priors=("gaussian",))
        X = validate_data(self, X, dtype=np.float64)
        p = X.shape[1]
        mu0 = check_array(self.prior_mean, "prior_mean", ndim=(0, 1))
        if mu0.size not in (1, p):
            raise ValueError(
                f"prior_mean must be a scalar or a ({p},) vector, got shape {mu0.shape}"
            )
        if self.prior == "gaussian":
            sampler = location_gaussian_prior(
                np.broadcast_to(mu0.ravel(), (p,)), scale=self.prior_scale
            )
        else:
            sampler = _user_prior(self.prior, p)
        risk = self._risk("location", sampler, False)
        self.location_ = self._fit_risk(risk, X, theta0=X.mean(axis=0))
        self.coef_ = self.location_
        return self

    def score(self, X, y=None):
        """Negative mean squared distance of the rows of X to ``location_`` (higher is better)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return -float(np.mean(np.sum((X - self.location_) ** 2, axis=1)))
