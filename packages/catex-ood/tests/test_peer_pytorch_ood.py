"""Peer: pytorch-ood's MaxSoftmax on S / T is mcm_score (sign: both higher = ID after negation)."""

import pytest
import torch

from papershelf_harness.testing import assert_close

pytorch_ood = pytest.importorskip("pytorch_ood")

import catex_ood as cx  # noqa: E402


@pytest.mark.parametrize("t", [1.0, 0.01])
def test_maxsoftmax_equals_mcm(t):
    from pytorch_ood.detector import MaxSoftmax

    S = torch.rand(20, 7, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 2 - 1
    theirs = MaxSoftmax.score(S / t)  # pytorch-ood: outlier score = -max softmax
    assert_close(cx.mcm_score(S, temperature=t), -theirs, atol=1e-12)
