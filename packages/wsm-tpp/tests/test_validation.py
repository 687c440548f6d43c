"""Bad input raises a clear error naming the argument."""

import numpy as np
import pytest
from wsm_tpp import (
    ExpHawkes,
    GaussHawkes,
    InhomogeneousPoisson,
    fit,
    log_likelihood,
    objective,
    simulate_hawkes,
    simulate_poisson,
    type_accuracy,
    weight,
)

SEQ = (np.array([0.5, 1.0, 2.0]), np.array([0, 1, 0]))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"mu": -1.0, "A": 0.5, "beta": 1.0, "T": 10.0}, "mu"),
        ({"mu": 1.0, "A": -0.5, "beta": 1.0, "T": 10.0}, "A"),
        ({"mu": [1.0, 1.0], "A": 0.5, "beta": 1.0, "T": 10.0}, "A"),
        ({"mu": 1.0, "A": 0.5, "beta": 0.0, "T": 10.0}, "beta"),
        ({"mu": 1.0, "A": 0.5, "beta": 1.0, "T": np.nan}, "T"),
        ({"mu": np.nan, "A": 0.5, "beta": 1.0, "T": 1.0}, "mu"),
    ],
)
def test_simulate_hawkes_bad_args(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_hawkes(**kwargs)


def test_simulate_bad_kernel_and_rate():
    with pytest.raises(ValueError, match="kernel"):
        simulate_hawkes(1.0, 0.5, 1.0, 10.0, kernel="weibull")
    with pytest.raises(ValueError, match="sigma"):
        simulate_hawkes(1.0, 0.5, 1.0, 10.0, kernel="gauss")
    with pytest.raises(ValueError, match="sigma"):
        simulate_hawkes(1.0, 0.5, 1.0, 10.0, kernel="gauss", sigma=-1.0)
    with pytest.raises(ValueError, match="rate_max"):
        simulate_poisson(lambda t: 5 + 0 * t, 10.0, rate_max=1.0, rng=0)
    with pytest.raises(ValueError, match="rate"):
        simulate_poisson(-1.0, 10.0)


@pytest.mark.parametrize(
    "seqs,match",
    [
        ([], "empty"),
        ([(np.array([1.0, 0.5]), np.array([0, 0]))], "increasing"),
        ([(np.array([1.0, np.nan]), np.array([0, 0]))], "NaN"),
        ([(np.array([1.0, 2.0]), np.array([0]))], "shape"),
        ([(np.array([1.0, 2.0]), np.array([0, -1]))], "marks"),
        ([(np.array([[1.0, 2.0]]), np.array([[0, 0]]))], "1-D"),
        ([(np.array([1.0, 20.0]), np.array([0, 0]))], "after T"),
        ([(np.array([]), np.array([], dtype=int))], "no events"),
    ],
)
def test_fit_bad_sequences(seqs, match):
    with pytest.raises(ValueError, match=match):
        fit(seqs, "awsm", model=ExpHawkes(1, beta=1.0), T=10.0)


def test_fit_bad_options():
    with pytest.raises(ValueError, match="method"):
        fit([SEQ], "xyz", T=10.0)
    with pytest.raises(ValueError, match="weight"):
        fit([SEQ], "awsm", weight="triangle", T=10.0)
    with pytest.raises(ValueError, match="T"):
        fit([SEQ], "awsm", T=-1.0)
    with pytest.raises(ValueError, match="T"):
        fit([SEQ, SEQ], "awsm", T=[10.0, 10.0, 10.0])
    with pytest.raises(ValueError, match="marks must be < K"):
        fit([SEQ], "awsm", model=ExpHawkes(1, beta=1.0), T=10.0)
    with pytest.raises(ValueError, match="mark_coef"):
        fit([SEQ], "awsm", T=10.0, mark_coef=-1.0)
    with pytest.raises(ValueError, match="sigma"):
        fit([SEQ], "dsm", T=10.0, sigma=0.0)
    with pytest.raises(TypeError, match="seqs"):
        fit("not a list", "awsm", T=10.0)


def test_models_bad_args():
    with pytest.raises(ValueError, match="K"):
        ExpHawkes(0)
    with pytest.raises(ValueError, match="beta"):
        ExpHawkes(1, beta=-2.0)
    with pytest.raises(ValueError, match="mu"):
        ExpHawkes(2, mu=[1.0])
    with pytest.raises(ValueError, match="basis"):
        InhomogeneousPoisson(-1)
    with pytest.raises(ValueError, match="set"):
        ExpHawkes(1).intensity([1.0], SEQ)
    with pytest.raises(ValueError, match="not set"):
        log_likelihood(ExpHawkes(1), [SEQ], T=10.0)
    with pytest.raises(ValueError, match="weight"):
        weight([1.0], [0.0], 2.0, "bogus")
    with pytest.raises(ValueError, match="method"):
        objective(ExpHawkes(2, beta=1.0, mu=[1, 1], A=np.eye(2)), [SEQ], "em", T=10.0)


def test_positional_arguments_in_brief_order():
    # brief: simulate_hawkes(mu, A, beta, T, kernel, rng); simulate_poisson(rate_fn, T, rng)
    a = simulate_hawkes(0.5, 0.8, 2.0, 10.0, "exp", 3)
    b = simulate_hawkes(0.5, 0.8, 2.0, 10.0, kernel="exp", rng=3)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = simulate_poisson(2.0, 10.0, 4)
    d = simulate_poisson(2.0, 10.0, rng=4)
    assert np.array_equal(c[0], d[0])


def test_fit_positional_arguments_in_brief_order():
    # brief: fit(seqs, method, weight, mark_coef, T)
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, 20.0, rng=i) for i in range(4)]
    a = fit(seqs, "awsm", "two_sided_product", 1.0, 20.0, model=ExpHawkes(1, beta=2.0))
    b = fit(seqs, "awsm", weight="two_sided_product", T=20.0, model=ExpHawkes(1, beta=2.0))
    assert np.allclose(a.params["mu"], b.params["mu"]) and np.allclose(a.params["A"], b.params["A"])
    c = fit(seqs, "awsm", "none", 1.0, 20.0, model=ExpHawkes(1, beta=2.0))
    assert not np.allclose(a.params["A"], c.params["A"])


@pytest.mark.parametrize("times", [np.array([0.5 + 1j, 1.0 + 0j]), ["a", "b"]])
def test_non_real_times_raise_type_error(times):
    # complex times used to be cast to real silently (ComplexWarning)
    with pytest.raises(TypeError, match="times"):
        fit([times], "awsm", model=ExpHawkes(1, beta=1.0), T=10.0)


def test_intensity_rejects_nan_and_2d_query_times():
    for m in (
        ExpHawkes(1, beta=1.0, mu=[0.5], A=[[0.5]]),
        GaussHawkes(1, mu=[0.5], A=[[0.5]]),
        InhomogeneousPoisson(0, weights=[0.0]),
    ):
        with pytest.raises(ValueError, match="t contains NaN"):
            m.intensity([np.nan], SEQ[0])
        with pytest.raises(ValueError, match="1-D"):
            m.intensity([[1.0, 2.0]], SEQ[0])
        with pytest.raises(TypeError, match="real"):
            m.intensity([1j], SEQ[0])


def test_model_argument_must_be_a_model():
    with pytest.raises(TypeError, match="model"):
        fit([SEQ], "awsm", T=10.0, model="hawkes")
    with pytest.raises(TypeError, match="model"):
        log_likelihood("hawkes", [SEQ], T=10.0)
    with pytest.raises(TypeError, match="model"):
        objective(None, [SEQ], "awsm", T=10.0)
    with pytest.raises(TypeError, match="model"):
        type_accuracy(object(), [SEQ], T=10.0)


def test_weight_outside_support_raises():
    with pytest.raises(ValueError, match="tprev <= t <= T"):
        weight([1.0], [2.0], 3.0)  # t before the previous event: h would be negative
    with pytest.raises(ValueError, match="tprev <= t <= T"):
        weight([4.0], [2.0], 3.0)  # t after the horizon
    with pytest.raises(ValueError, match="finite"):
        weight([np.nan], [0.0], 3.0)
    with pytest.raises(ValueError, match="shape"):
        weight([1.0, 2.0], [0.0, 0.5, 1.0], 3.0)
    h, dh = weight([1.0, 2.5], 0.0, 3.0)  # scalar tprev broadcasts
    assert h.tolist() == [1.0, 0.5] and dh.tolist() == [1.0, -1.0]


def test_model_constructor_shapes_name_the_argument():
    with pytest.raises(ValueError, match=r"A must have shape \(2, 2\)"):
        ExpHawkes(2, beta=1.0, mu=[1.0, 1.0], A=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"A must have shape \(2, 2\)"):
        GaussHawkes(2, mu=[1.0, 1.0], A=np.ones(3))
    # used to be accepted and silently broadcast by einsum (exp(0.1 + 0.1 t) instead of an error)
    with pytest.raises(ValueError, match=r"weights must have shape \(2,\)"):
        InhomogeneousPoisson(1, weights=[0.1])
    with pytest.raises(ValueError, match="n_quad"):
        InhomogeneousPoisson(1, n_quad=0)
    with pytest.raises(ValueError, match="max_events"):
        simulate_hawkes(0.5, 0.5, 1.0, 10.0, max_events=0)


def test_intensity_history_marks_out_of_range():
    for m in (ExpHawkes(1, beta=1.0, mu=[0.5], A=[[0.5]]), GaussHawkes(1, mu=[0.5], A=[[0.5]])):
        with pytest.raises(ValueError, match="marks must be < K"):  # was an IndexError
            m.intensity([1.0], (np.array([0.5]), np.array([3])))


def test_objective_of_unset_model_raises_and_does_not_mutate():
    m = ExpHawkes(1, beta=1.0)
    with pytest.raises(ValueError, match="not set"):
        objective(m, [SEQ[0]], "awsm", T=10.0)
    assert m.mu is None and m.A is None


def test_lone_pair_instead_of_list_gets_a_hint():
    times, marks = np.array([0.5, 1.0, 2.0]), np.array([0, 0, 0])
    with pytest.raises(ValueError, match=r"wrap one \(times, marks\) pair"):
        fit((times, marks), "awsm", T=10.0)
