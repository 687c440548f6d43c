"""Accelerator-aware costs and the FLOPs baseline against their formulas."""

import idealized_runtime as ir
import numpy as np
import pytest


def test_dollar_cost_and_accelerator_time():
    assert ir.dollar_cost(5.281, 8, 4.096) == pytest.approx(5.281 * 8 * 4.096 / 3600, rel=1e-15)
    assert ir.accelerator_time(5.281, 8) == pytest.approx(42.248)
    t = np.array([0.5, 2.0])
    np.testing.assert_allclose(ir.dollar_cost(t, 24, 3.06), t * 24 * 3.06 / 3600)
    np.testing.assert_allclose(ir.accelerator_time(t, 3), t * 3)


def test_tnlg_is_far_more_expensive_than_davinci():
    ref, spec = ir.REFERENCE_A100, ir.REFERENCE_MODELS
    cost = {
        n: ir.dollar_cost(ref[n].runtime(512, 64), spec[n].n_a100, 4.096)
        for n in ("openai/davinci", "microsoft/TNLGv2_530B")
    }
    ratio = cost["microsoft/TNLGv2_530B"] / cost["openai/davinci"]
    assert ratio == pytest.approx((0.490 + 63 * 0.123) * 24 / ((0.178 + 63 * 0.081) * 8))
    assert 4.6 < ratio < 4.8


def test_flops_estimate():
    assert ir.flops_estimate(12288, 96, 1024, 1) == 24 * 12288**2 * 96 * 1024
    assert ir.flops_estimate(12288, 96, 1, 1024) == ir.flops_estimate(12288, 96, 1024, 1)
    np.testing.assert_array_equal(
        ir.flops_estimate(8, 2, np.array([1, 5]), np.array([1, 0])), [24 * 64 * 2, 24 * 64 * 2 * 4]
    )
    with pytest.raises(ValueError, match="p \\+ o"):
        ir.flops_estimate(8, 2, 0, 0)
