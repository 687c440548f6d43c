"""Parity of STAR with neuralforecast's SOFTS layer (STAD), run by `nox -s tests_extras`."""

import pytest
import softs_ts as S
import torch

nf_softs = pytest.importorskip("neuralforecast.models.softs")


def _pair(d=16, d_core=8):
    torch.manual_seed(0)
    theirs = nf_softs.STAD(d, d_core)
    ours = S.STAR(d, d_core)
    for mine, other in (
        (ours.candidate_hidden, theirs.gen1),
        (ours.candidate_out, theirs.gen2),
        (ours.fuse_hidden, theirs.gen3),
        (ours.fuse_out, theirs.gen4),
    ):
        mine.load_state_dict(other.state_dict())
    return ours, theirs


def test_eval_mode_equals_neuralforecast():
    ours, theirs = _pair()
    ours.eval()
    theirs.eval()
    x = torch.randn(3, 11, 16)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), theirs(x)[0], atol=1e-6, rtol=1e-5)


def test_training_draw_equals_neuralforecast_with_the_same_seed():
    """Both draw with torch.multinomial over the same [B * d_core, C] probabilities."""
    ours, theirs = _pair()
    x = torch.randn(4, 9, 16)
    torch.manual_seed(123)
    expected = theirs(x)[0]
    torch.manual_seed(123)
    torch.testing.assert_close(ours(x), expected, atol=1e-6, rtol=1e-5)
