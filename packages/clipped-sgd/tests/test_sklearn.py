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
