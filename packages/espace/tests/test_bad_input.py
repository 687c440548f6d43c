"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
import pytest
import torch
from espace import (
    ActivationStats,
    LowRankLinear,
    ProjectedLinear,
    apply_espace,
    calibrate,
    layer_sensitivity,
    projection_from_stats,
    random_projection,
    rank_for_compression,
    select_calibrators,
    svd_linear,
    whitened_svd,
)
from hypothesis import strategies as st
from torch import nn

from papershelf_harness import suite
from papershelf_harness.suite import Array, Flag, Int, Mismatch, Number, Option, OutOfRange, Values
from papershelf_harness.testing import assert_rejects

C4 = torch.eye(4, dtype=torch.float64) + 0.1
LIN = nn.Linear(6, 5)
P63 = random_projection(6, 3)
MODEL = nn.Sequential(nn.Linear(6, 5))
NOT_MODULES = ((None, TypeError), ("model", TypeError), (3, TypeError), (torch.ones(2), TypeError))
NOT_LINEARS = ((None, TypeError), (nn.ReLU(), TypeError), (torch.ones(5, 6), TypeError))


class Toy(nn.Module):
    """A tiny causal LM: embeddings, one linear block, an LM head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 6)
        self.block = nn.Linear(6, 6)
        self.lm_head = nn.Linear(6, 10)

    def forward(self, input_ids, attention_mask=None):
        return (self.lm_head(torch.tanh(self.block(self.embed(input_ids)))),)


TOY = Toy()
IDS = torch.tensor([[1, 2, 3, 4]])

CASES = [
    # projections
    Array("projection_from_stats.C", "C", lambda v: projection_from_stats(v, 2), (4, 4), (2,)),
    Mismatch(
        "projection_from_stats.C.square", "C", lambda: projection_from_stats(torch.ones(4, 3), 2)
    ),
    suite.keyword(Int, projection_from_stats, "rank", C4, minimum=1),
    Int(
        "projection_from_stats.rank.max", "rank", lambda v: projection_from_stats(C4, v), maximum=4
    ),
    suite.keyword(Option, projection_from_stats, "sort", C4, 2, valid=frozenset({"eigen", "abs"})),
    Int("random_projection.K", "K", lambda v: random_projection(v, 1), minimum=1),
    Int("random_projection.rank", "rank", lambda v: random_projection(4, v), minimum=1, maximum=4),
    Values(
        "random_projection.generator",
        "generator",
        lambda v: random_projection(4, 2, generator=v),
        bad=(("abc", TypeError), (1, TypeError)),
    ),
    Values(
        "random_projection.dtype",
        "dtype",
        lambda v: random_projection(4, 2, dtype=v),
        bad=((torch.int64, TypeError), ("float", TypeError)),
    ),
    Int("rank_for_compression.N", "N", lambda v: rank_for_compression(v, 8, 0.5), minimum=1),
    Int("rank_for_compression.K", "K", lambda v: rank_for_compression(8, v, 0.5), minimum=1),
    Number("rank_for_compression.ratio", "ratio", lambda v: rank_for_compression(8, 8, v)),
    OutOfRange(
        "rank_for_compression.ratio.range",
        "ratio",
        lambda v: rank_for_compression(8, 8, v),
        st.one_of(
            st.floats(max_value=-1e-6, allow_nan=False, allow_infinity=False),
            st.floats(min_value=1.0, max_value=10.0),
        ),
    ),
    Mismatch("rank_for_compression.no_rank", "ratio", lambda: rank_for_compression(2, 2, 0.5)),
    # layers
    Values(
        "ProjectedLinear.from_linear.linear",
        "linear",
        lambda v: ProjectedLinear.from_linear(v, P63),
        bad=NOT_LINEARS,
    ),
    Array(
        "ProjectedLinear.from_linear.P",
        "P",
        lambda v: ProjectedLinear.from_linear(LIN, v),
        (6, 3),
        (2,),
    ),
    Mismatch(
        "ProjectedLinear.from_linear.P.rows",
        "P",
        lambda: ProjectedLinear.from_linear(LIN, torch.ones(5, 3)),
    ),
    Mismatch(
        "ProjectedLinear.from_linear.P.cols",
        "P",
        lambda: ProjectedLinear.from_linear(LIN, torch.ones(6, 7)),
    ),
    suite.keyword(
        Option,
        ProjectedLinear.from_linear,
        "mode",
        LIN,
        P63,
        valid=frozenset({"train", "inference"}),
    ),
    Mismatch(
        "LowRankLinear.right", "right", lambda: LowRankLinear(torch.ones(5, 2), torch.ones(3, 6))
    ),
    Values("apply_espace.model", "model", lambda v: apply_espace(v, {"0": P63}), bad=NOT_MODULES),
    Values(
        "apply_espace.projections",
        "projections",
        lambda v: apply_espace(MODEL, v),
        bad=(
            ({}, ValueError),
            ([P63], TypeError),
            ({"nope": P63}, ValueError),
            ({"0": torch.ones(5, 3)}, ValueError),
            ({"": P63}, TypeError),
        ),
    ),
    suite.keyword(
        Option, apply_espace, "mode", MODEL, {"0": P63}, valid=frozenset({"train", "inference"})
    ),
    Values("svd_linear.linear", "linear", lambda v: svd_linear(v, 2), bad=NOT_LINEARS),
    Int("svd_linear.rank", "rank", lambda v: svd_linear(LIN, v), minimum=1, maximum=5),
    Values(
        "whitened_svd.linear", "linear", lambda v: whitened_svd(v, torch.eye(6), 2), bad=NOT_LINEARS
    ),
    Array("whitened_svd.C_X", "C_X", lambda v: whitened_svd(LIN, v, 2), (6, 6), (2,)),
    Mismatch("whitened_svd.C_X.shape", "C_X", lambda: whitened_svd(LIN, torch.eye(5), 2)),
    Mismatch("whitened_svd.C_X.psd", "C_X", lambda: whitened_svd(LIN, -torch.eye(6), 2)),
    Int(
        "whitened_svd.rank",
        "rank",
        lambda v: whitened_svd(LIN, torch.eye(6), v),
        minimum=1,
        maximum=5,
    ),
    # calibration
    Values("calibrate.model", "model", lambda v: calibrate(v, [IDS]), bad=NOT_MODULES),
    Values(
        "calibrate.batches",
        "batches",
        lambda v: calibrate(TOY, v),
        bad=(
            (None, TypeError),
            ([], ValueError),
            (IDS, TypeError),
            ("abc", TypeError),
            ([IDS.float()], TypeError),
            ([{"ids": IDS}], ValueError),
            ([{"input_ids": IDS, "attention_mask": torch.ones(1, 3)}], ValueError),
            ([torch.zeros(1, 1, 4, dtype=torch.long)], ValueError),
        ),
    ),
    Values(
        "calibrate.targets",
        "targets",
        lambda v: calibrate(TOY, [IDS], targets=v),
        bad=(
            (5, TypeError),
            ([], ValueError),
            (["nope"], ValueError),
            ("zzz", ValueError),
            (["embed"], ValueError),
            ([3], TypeError),
        ),
    ),
    suite.keyword(Option, calibrate, "objective", TOY, [IDS], valid=frozenset({"mse", "go", "nl"})),
    suite.keyword(Flag, calibrate, "normalize", TOY, [IDS]),
    suite.keyword(Int, calibrate, "num_batches", TOY, [IDS], minimum=1, none_ok=True),
    Int("ActivationStats.dim", "dim", lambda v: ActivationStats(v), minimum=1),
    Flag("ActivationStats.normalize", "normalize", lambda v: ActivationStats(3, normalize=v)),
    Values(
        "ActivationStats.update.x",
        "x",
        lambda v: ActivationStats(3).update(v),
        bad=(
            (torch.ones(4, 2), ValueError),
            (torch.full((2, 3), float("nan")), ValueError),
            (np.ones((2, 3)), TypeError),
            (torch.ones(2, 3, dtype=torch.long), TypeError),
        ),
    ),
    Values(
        "ActivationStats.update_grad.g",
        "g",
        lambda v: ActivationStats(3).update_grad(v),
        bad=((torch.ones(4, 2), ValueError), (torch.full((2, 3), float("inf")), ValueError)),
    ),
    # sensitivity
    Values(
        "layer_sensitivity.model",
        "model",
        lambda v: layer_sensitivity(v, lambda m: 0.0, {"mse": {"0": P63}}),
        bad=NOT_MODULES,
    ),
    Values(
        "layer_sensitivity.eval_fn",
        "eval_fn",
        lambda v: layer_sensitivity(MODEL, v, {"mse": {"0": P63}}),
        bad=((5, TypeError), (None, TypeError)),
    ),
    Values(
        "layer_sensitivity.candidates",
        "candidates",
        lambda v: layer_sensitivity(MODEL, lambda m: 0.0, v),
        bad=(
            ({}, ValueError),
            (3, TypeError),
            ({"mse": {}}, ValueError),
            ({"mse": {"nope": P63}}, ValueError),
        ),
    ),
    Values(
        "select_calibrators.table",
        "table",
        select_calibrators,
        bad=(
            ({}, ValueError),
            (3, TypeError),
            ({"a": {}}, ValueError),
            ({"a": {"mse": "x"}}, TypeError),
        ),
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_eval_fn_result_must_be_a_number():
    assert_rejects(
        TypeError, "eval_fn", layer_sensitivity, MODEL, lambda m: "x", {"mse": {"0": P63}}
    )


def test_statistics_before_updates_are_errors():
    with pytest.raises(ValueError, match="update"):
        ActivationStats(3).autocorr()
    with pytest.raises(ValueError, match="update_grad"):
        ActivationStats(3).grad_autocorr()
