"""Bad input to the torch extra (``wsm_tpp.torch_loss``) gets a TypeError or ValueError naming
the argument; skipped where torch is not installed (the torch-free test environment)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

torch = pytest.importorskip("torch")
from wsm_tpp.torch_loss import GRUIntensity, WSMLoss, torch_weight  # noqa: E402

FEW = settings(max_examples=5, deadline=None)
TIMES = torch.tensor([[0.5, 1.0, 2.0], [0.3, 0.9, 0.0]], dtype=torch.float64)
MARKS = torch.tensor([[0, 1, 0], [1, 1, 0]])
MASK = torch.tensor([[True, True, True], [True, True, False]])


def _intensity(tau):  # (B, N) -> (B, N, 2), positive
    return torch.stack([1.0 + tau**2, 0.5 + tau], dim=-1)


def _loss(intensity=_intensity, times=TIMES, marks=MARKS, T=3.0, mask=MASK, **kw):
    return WSMLoss(**kw)(intensity, times, marks, T, mask)


def test_valid_call_works():
    assert torch.isfinite(_loss())


TENSORS = [  # (id, name, call, valid value)
    ("WSMLoss.times", "times", lambda v: _loss(times=v), TIMES),
    ("WSMLoss.marks", "marks", lambda v: _loss(marks=v), MARKS),
    ("WSMLoss.mask", "mask", lambda v: _loss(mask=v), MASK),
    ("torch_weight.t", "t", lambda v: torch_weight(v, 0.0, 10.0), TIMES),
    (
        "GRUIntensity.intensity_fn.times",
        "times",
        lambda v: GRUIntensity(2).intensity_fn(v, MARKS),
        TIMES,
    ),
    (
        "GRUIntensity.intensity_fn.marks",
        "marks",
        lambda v: GRUIntensity(2).intensity_fn(TIMES, v),
        MARKS,
    ),
]


@pytest.mark.parametrize("case", TENSORS, ids=[c[0] for c in TENSORS])
def test_numpy_or_list_instead_of_a_tensor_is_a_type_error(case):
    _, name, call, good = case
    assert_rejects(TypeError, name, call, good.numpy())
    assert_rejects(TypeError, name, call, good.tolist())


@pytest.mark.parametrize(
    "case, bad",
    [
        (TENSORS[0], TIMES.reshape(-1)),  # 1-d
        (TENSORS[1], MARKS[:, :2]),  # not the shape of times
        (TENSORS[2], MASK[:, :2]),
        (TENSORS[4], TIMES.reshape(-1)),
        (TENSORS[5], MARKS[:, :2]),
    ],
    ids=lambda c: c[0] if isinstance(c, tuple) else "",
)
def test_wrong_shape_is_a_value_error(case, bad):
    _, name, call, _ = case
    assert_rejects(ValueError, name, call, bad)


@pytest.mark.parametrize(
    "case, bad",
    [
        (TENSORS[0], TIMES.long()),  # integer times
        (TENSORS[1], MARKS.double()),  # float marks
        (TENSORS[2], MASK.double()),  # float mask
        (TENSORS[3], TIMES.long()),
        (TENSORS[4], TIMES.float().to(torch.complex64)),
        (TENSORS[5], MARKS.double()),
    ],
    ids=lambda c: c[0] if isinstance(c, tuple) else "",
)
def test_wrong_dtype_is_a_type_error(case, bad):
    _, name, call, _ = case
    assert_rejects(TypeError, name, call, bad)


def _with(t, index, value):
    t = t.clone()
    t[index] = value
    return t


@pytest.mark.parametrize(
    "name, call",
    [
        ("times", lambda: _loss(times=_with(TIMES, (0, 1), math.nan))),
        ("times", lambda: _loss(times=_with(TIMES, (0, 1), math.inf))),
        ("times", lambda: _loss(times=_with(TIMES, (0, 1), 2.5))),  # not increasing
        ("times", lambda: _loss(times=_with(TIMES, (0, 0), -0.5))),  # negative
        ("marks", lambda: _loss(marks=_with(MARKS, (0, 1), 2))),  # >= K = 2
        ("marks", lambda: _loss(marks=_with(MARKS, (0, 1), -1))),
        ("mask", lambda: _loss(mask=torch.zeros_like(MASK))),  # no events: 0 / 0
        ("mask", lambda: _loss(mask=_with(MASK, (1, 0), False))),  # not a prefix
        ("mask", lambda: _loss(mask=_with(MASK.long(), (0, 0), 2))),
        ("T", lambda: _loss(T=1.5)),  # before the last event
        ("T", lambda: _loss(T=torch.tensor([3.0, 3.0, 3.0], dtype=torch.float64))),
        ("T", lambda: _loss(T=torch.tensor([3.0, -1.0], dtype=torch.float64))),
        ("intensity_fn", lambda: _loss(intensity=lambda tau: _intensity(tau) - 5.0)),  # negative
        ("intensity_fn", lambda: _loss(intensity=lambda tau: _intensity(tau) * math.nan)),
        ("intensity_fn", lambda: _loss(intensity=lambda tau: 1.0 + tau**2)),  # no mark axis
        ("intensity_fn", lambda: _loss(intensity=lambda tau: _intensity(tau).detach().numpy())),
        (
            "intensity_fn",
            lambda: _loss(intensity=lambda tau: _intensity(tau) * torch.tensor([1.0, 0.0])),
        ),
        ("tprev", lambda: torch_weight(TIMES, 1.0, 10.0)),  # tprev > t
        ("T", lambda: torch_weight(TIMES, 0.0, 1.0)),  # t > T
        ("tprev", lambda: torch_weight(TIMES, torch.zeros(4, dtype=torch.float64), 10.0)),
        ("marks", lambda: GRUIntensity(2).intensity_fn(TIMES, _with(MARKS, (0, 0), 2))),
    ],
)
def test_bad_values_are_value_errors(name, call):
    assert_rejects(ValueError, name, call)


@FEW
@given(value=invalid.non_numeric())
def test_non_numeric_T_or_mark_coef_is_a_type_error(value):
    assert_rejects(TypeError, "T", _loss, T=value)
    assert_rejects(TypeError, "mark_coef", WSMLoss, mark_coef=value)
    assert_rejects(TypeError, "T", torch_weight, TIMES, 0.0, value)


@pytest.mark.parametrize("value", [True, math.nan, math.inf, -1.0], ids=repr)
def test_bad_numbers(value):
    exc = TypeError if isinstance(value, bool) else ValueError
    assert_rejects(exc, "mark_coef", WSMLoss, mark_coef=value)
    assert_rejects(exc, "T", _loss, T=value)


def test_intensity_fn_must_be_callable():
    assert_rejects(TypeError, "intensity_fn", _loss, intensity="not a function")


@FEW
@given(
    value=st.text(max_size=6).filter(
        lambda s: s not in {"two_sided_min", "two_sided_product", "one_sided", "none"}
    )
)
def test_unknown_weight_is_a_value_error(value):
    assert_rejects(ValueError, "weight", WSMLoss, weight=value)
    assert_rejects(ValueError, "kind", torch_weight, TIMES, 0.0, 10.0, kind=value)


def test_non_string_weight_is_a_type_error():
    assert_rejects(TypeError, "weight", WSMLoss, weight=1)
    assert_rejects(TypeError, "kind", torch_weight, TIMES, 0.0, 10.0, kind=None)


@FEW
@given(value=invalid.non_integers())
def test_gru_sizes_must_be_ints(value):
    assert_rejects(TypeError, "K", GRUIntensity, value)
    assert_rejects(TypeError, "hidden", GRUIntensity, 2, hidden=value)


@pytest.mark.parametrize("value", [0, -3])
def test_gru_sizes_must_be_positive(value):
    assert_rejects(ValueError, "K", GRUIntensity, value)
    assert_rejects(ValueError, "hidden", GRUIntensity, 2, hidden=value)


def test_numpy_T_array_is_accepted_like_a_number():
    np.testing.assert_allclose(float(_loss(T=np.float64(3.0))), float(_loss(T=3.0)))
