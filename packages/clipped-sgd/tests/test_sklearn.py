"""scikit-learn estimator conformance (parametrize_with_checks), with expected failures listed."""

from clipped_sgd import StreamingLinearRegression, StreamingLogisticRegression, StreamingMean
from sklearn.utils.estimator_checks import parametrize_with_checks

# Every check passes: no expected failures (StreamingLogisticRegression declares multi_class=False).
EXPECTED_FAILURES: dict = {}


def _expected(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [StreamingMean(), StreamingLinearRegression(), StreamingLogisticRegression()],
    expected_failed_checks=_expected,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_random_state_is_kept_and_makes_shuffle_reproducible():
    import numpy as np
    from sklearn.base import clone

    X = np.random.default_rng(0).standard_t(2.5, size=(300, 3))
    for seed in (0, np.random.default_rng(5)):
        est = StreamingMean(shuffle=True, random_state=seed)
        assert est.fit(X).random_state is seed  # stored as given, never replaced
    assert clone(StreamingMean(random_state=7)).get_params()["random_state"] == 7
    a = StreamingMean(clip=1.0, shuffle=True, random_state=3).fit(X).mean_
    b = StreamingMean(clip=1.0, shuffle=True, random_state=3).fit(X).mean_
    c = StreamingMean(clip=1.0, shuffle=True, random_state=4).fit(X).mean_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)  # the order matters once steps are clipped
