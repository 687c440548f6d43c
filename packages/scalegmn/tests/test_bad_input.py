"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below for
the rules the kinds do not cover (lists of tensors, masks, index tensors)."""

import numpy as np
import pytest
import scalegmn as S
import torch
from scalegmn.train import apply_edit, fit_editor, fit_regressor, kendall_tau

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

DIMS = (2, 3, 1)
W = [torch.randn(3, 2), torch.randn(1, 3)]
B = [torch.randn(3), torch.randn(1)]
X = torch.randn(4, 2)
MODEL = S.ScaleGMN(DIMS, out_dim=2, d_hidden=4, num_layers=1)
HET = S.ScaleGMN(DIMS, out_dim=2, d_hidden=4, num_layers=1, symmetry="hetero")
K = suite.keyword
ACTS = frozenset({"tanh", "relu", "sine"})
SYMS = frozenset({"sign", "scale", "hetero", "permutation"})
OUT = {"out_dim": 2}
STEPS0 = {"steps": 0}
# a CNN [conv3x3 1->2, GAP, linear 2->3], images, and a tiny valid cnn_zoo call
CW = [torch.randn(2, 1, 3, 3), torch.randn(3, 2)]
CB = [torch.randn(2), torch.randn(3)]
CX = torch.randn(2, 1, 4, 4)
IM = torch.rand(6, 1, 4, 4)
LB = torch.tensor([0, 1, 2, 0, 1, 2])
ZOO = {"channels": (2,), "steps": 1}
BW = [torch.randn(4, 3, 2), torch.randn(4, 1, 3)]  # a batch of 4 MLPs (2, 3, 1)
BB = [torch.randn(4, 3), torch.randn(4, 1)]
REG = S.ScaleGMN(DIMS, out_dim=1, d_hidden=4, num_layers=1)
EDIT = S.ScaleGMNEquivariant(DIMS, d_hidden=4, num_layers=1)
GRID = torch.rand(5, 2)
TGT = torch.zeros(4, 5, 1)
ONE = {"epochs": 1}


def _zoo(options):
    """cnn_zoo called with ``options(v)`` over the valid tiny settings."""
    return lambda v: S.zoo.cnn_zoo(2, IM, LB, IM, LB, **{**ZOO, **options(v)})


def _zoo_data(name):
    """cnn_zoo called with its data argument ``name`` set to ``v``, the other data valid."""
    data = {"images": IM, "labels": LB, "test_images": IM, "test_labels": LB}
    return lambda v: S.zoo.cnn_zoo(2, **{**data, name: v}, **ZOO)


CASES = [
    suite.Array(
        "forward_mlp.weights0",
        "weights[0]",
        lambda v: S.forward_mlp([v, W[1]], B, X),
        (3, 2),
        (2, 3),
    ),
    suite.Array(
        "forward_mlp.biases0", "biases[0]", lambda v: S.forward_mlp(W, [v, B[1]], X), (3,), (1,)
    ),
    suite.Array("forward_mlp.x", "x", lambda v: S.forward_mlp(W, B, v), (4, 2), (2,)),
    K(suite.Option, S.forward_mlp, "activation", W, B, X, valid=ACTS),
    K(suite.Number, S.forward_mlp, "omega0", W, B, X),
    suite.Mismatch("forward_mlp.x_features", "x", lambda: S.forward_mlp(W, B, torch.ones(4, 3))),
    suite.Mismatch(
        "forward_mlp.chain", "weights[1]", lambda: S.forward_mlp([W[0], torch.ones(1, 4)], B, X)
    ),
    suite.Mismatch(
        "forward_mlp.bias_shape", "biases[1]", lambda: S.forward_mlp(W, [B[0], torch.ones(2)], X)
    ),
    suite.Mismatch("forward_mlp.lengths", "biases", lambda: S.forward_mlp(W, B[:1], X)),
    K(suite.Option, S.random_scaling, "kind", W, B, valid=frozenset({"sign", "positive"})),
    K(suite.Number, S.random_scaling, "low", W, B),
    K(suite.Number, S.random_scaling, "high", W, B),
    suite.Mismatch(
        "random_scaling.high_below_low", "high", lambda: S.random_scaling(W, B, low=2.0, high=1.0)
    ),
    K(suite.Number, S.canonicalize_sine_phase, "omega0", W, B),
    suite.Array(
        "mlp_to_graph.weights1", "weights[1]", lambda v: S.mlp_to_graph([W[0], v], B), (1, 3), (2,)
    ),
    suite.Int("ScaleGMN.out_dim", "out_dim", lambda v: S.ScaleGMN(DIMS, out_dim=v), minimum=1),
    K(suite.Int, S.ScaleGMN, "d_hidden", DIMS, kwargs=OUT, minimum=1),
    K(suite.Int, S.ScaleGMN, "num_layers", DIMS, kwargs=OUT, minimum=1),
    K(suite.Option, S.ScaleGMN, "symmetry", DIMS, kwargs=OUT, valid=SYMS),
    K(
        suite.Option,
        S.ScaleGMN,
        "readout",
        DIMS,
        kwargs=OUT,
        valid=frozenset({"last_layer", "full_graph"}),
    ),
    K(suite.Flag, S.ScaleGMN, "bidirectional", DIMS, kwargs=OUT),
    K(suite.Number, S.ScaleGMN, "dropout", DIMS, kwargs=OUT),
    suite.Array(
        "ScaleGMN.forward.weights0", "weights[0]", lambda v: MODEL([v, W[1]], B), (3, 2), (2, 3)
    ),
    suite.Mismatch(
        "ScaleGMN.forward.layout",
        "weights[0]",
        lambda: MODEL([torch.ones(4, 2), torch.ones(1, 4)], [torch.ones(4), B[1]]),
    ),
    suite.Mismatch("ScaleGMN.hetero.mask", "sign_mask", lambda: HET(W, B)),
    suite.Mismatch(
        "ScaleGMN.hetero.mask_shape",
        "sign_mask",
        lambda: HET(W, B, sign_mask=torch.ones(2, dtype=torch.bool)),
    ),
    suite.Int(
        "function_zoo.n_networks", "n_networks", lambda v: S.zoo.function_zoo(v, steps=0), minimum=1
    ),
    K(suite.Int, S.zoo.function_zoo, "steps", 2, minimum=0),
    K(suite.Number, S.zoo.function_zoo, "lr", 2, kwargs=STEPS0),
    K(suite.Option, S.zoo.function_zoo, "activation", 2, kwargs=STEPS0, valid=ACTS),
    suite.Mismatch(
        "function_zoo.classes", "num_classes", lambda: S.zoo.function_zoo(4, num_classes=9, steps=0)
    ),
    # 0.3.0: strided CNNs, the CNN zoo, regression / editing loops, Kendall tau
    K(suite.Int, S.forward_cnn, "stride", CW, CB, CX, minimum=1),
    suite.Int(
        "cnn_zoo.n_networks",
        "n_networks",
        lambda v: S.zoo.cnn_zoo(v, IM, LB, IM, LB, **ZOO),
        minimum=1,
    ),
    *[
        suite.Array(f"cnn_zoo.{name}", name, _zoo_data(name), (6, 1, 4, 4), (4,))
        for name in ("images", "test_images")
    ],
    suite.Int("cnn_zoo.kernel_size", "kernel_size", _zoo(lambda v: {"kernel_size": v}), minimum=1),
    suite.Int("cnn_zoo.stride", "stride", _zoo(lambda v: {"stride": v}), minimum=1),
    suite.Int("cnn_zoo.steps", "steps", _zoo(lambda v: {"steps": v}), minimum=1),
    suite.Int("cnn_zoo.batch_size", "batch_size", _zoo(lambda v: {"batch_size": v}), minimum=1),
    suite.Int("cnn_zoo.channels0", "channels[0]", _zoo(lambda v: {"channels": (v,)}), minimum=1),
    suite.Number("cnn_zoo.lr", "lr", _zoo(lambda v: {"lr": v})),
    suite.Number("cnn_zoo.lr0", "lr[0]", _zoo(lambda v: {"lr": (v, 0.1)})),
    suite.Number("cnn_zoo.weight_decay", "weight_decay", _zoo(lambda v: {"weight_decay": v})),
    suite.Number("cnn_zoo.init_scale", "init_scale", _zoo(lambda v: {"init_scale": v})),
    suite.Option(
        "cnn_zoo.activation",
        "activation",
        _zoo(lambda v: {"activation": v}),
        frozenset({"relu", "tanh"}),
    ),
    suite.Mismatch("cnn_zoo.labels", "labels", lambda: S.zoo.cnn_zoo(2, IM, LB[:5], IM, LB, **ZOO)),
    suite.Mismatch(
        "cnn_zoo.test_labels", "test_labels", lambda: S.zoo.cnn_zoo(2, IM, LB, IM, LB[:5], **ZOO)
    ),
    suite.Mismatch(
        "cnn_zoo.test_shape",
        "test_images",
        lambda: S.zoo.cnn_zoo(2, IM, LB, IM[..., :3], LB, **ZOO),
    ),
    suite.Mismatch(
        "cnn_zoo.lr_order", "lr", lambda: S.zoo.cnn_zoo(2, IM, LB, IM, LB, lr=(0.5, 0.1), **ZOO)
    ),
    suite.Mismatch(
        "cnn_zoo.steps_order",
        "steps",
        lambda: S.zoo.cnn_zoo(2, IM, LB, IM, LB, channels=(2,), steps=(5, 2)),
    ),
    suite.Number("digits.test_fraction", "test_fraction", lambda v: S.zoo.digits(test_fraction=v)),
    suite.Array("kendall_tau.x", "x", lambda v: kendall_tau(v, np.arange(5.0)), (5,), (1,)),
    suite.Array("kendall_tau.y", "y", lambda v: kendall_tau(np.arange(5.0), v), (5,), (1,)),
    suite.Mismatch("kendall_tau.lengths", "y", lambda: kendall_tau([1.0, 2.0], [1.0, 2.0, 3.0])),
    suite.Array(
        "fit_regressor.targets",
        "targets",
        lambda v: fit_regressor(REG, BW, BB, v, epochs=0),
        (4,),
        (1,),
    ),
    K(suite.Int, fit_regressor, "epochs", REG, BW, BB, torch.rand(4), minimum=0),
    K(suite.Flag, fit_regressor, "sigmoid", REG, BW, BB, torch.rand(4), kwargs=ONE),
    suite.Array(
        "fit_editor.x", "x", lambda v: fit_editor(EDIT, BW, BB, v, TGT, epochs=0), (5, 2), (2,)
    ),
    suite.Array(
        "fit_editor.targets",
        "targets",
        lambda v: fit_editor(EDIT, BW, BB, GRID, v, epochs=0),
        (4, 5, 1),
        (3,),
    ),
    K(suite.Option, fit_editor, "activation", EDIT, BW, BB, GRID, TGT, kwargs=ONE, valid=ACTS),
    K(suite.Number, fit_editor, "omega0", EDIT, BW, BB, GRID, TGT, kwargs=ONE),
    K(suite.Int, apply_edit, "batch_size", EDIT, BW, BB, minimum=1),
]

globals().update(suite.bad_input_suite(CASES))


def test_weights_must_be_a_list():
    assert_rejects(TypeError, "weights", S.forward_mlp, W[0], B, X)
    assert_rejects(ValueError, "weights", S.forward_mlp, [], [], X)
    assert_rejects(TypeError, "weights[0]", S.forward_mlp, ["a", W[1]], B, X)


def test_layer_dims():
    assert_rejects(TypeError, "layer_dims", S.ScaleGMN, 5, out_dim=2)
    assert_rejects(ValueError, "layer_dims", S.ScaleGMN, (3,), out_dim=2)
    assert_rejects(ValueError, "layer_dims[1]", S.ScaleGMN, (3, 0, 1), out_dim=2)
    assert_rejects(TypeError, "layer_dims[0]", S.ScaleGMN, (2.5, 3, 1), out_dim=2)


def test_generators_and_factors():
    assert_rejects(TypeError, "generator", S.random_scaling, W, B, generator=0)
    assert_rejects(TypeError, "generator", S.random_permutation, W, B, generator="x")
    assert_rejects(ValueError, "q[0]", S.apply_scaling, W, B, [torch.zeros(3)])
    assert_rejects(ValueError, "q", S.apply_scaling, W, B, [])
    assert_rejects(ValueError, "perms[0]", S.apply_permutation, W, B, [torch.tensor([0, 0, 1])])
    assert_rejects(
        TypeError, "perms[0]", S.apply_permutation, W, B, [torch.tensor([0.0, 1.0, 2.0])]
    )


def test_sign_mask_rules():
    plain = S.ScaleGMN(DIMS, out_dim=2, d_hidden=4, num_layers=1)
    mask = torch.ones(1, dtype=torch.bool)
    assert_rejects(ValueError, "sign_mask", plain, W, B, sign_mask=mask)
    assert_rejects(TypeError, "sign_mask", HET, W, B, sign_mask=torch.ones(1))


def test_bidirectional_scale_refuses_zero_weights():
    m = S.ScaleGMN(DIMS, out_dim=2, d_hidden=4, num_layers=1, symmetry="scale", bidirectional=True)
    w0 = W[0].clone()
    w0[0, 0] = 0.0
    assert_rejects(ValueError, "weights[0]", m, [w0, W[1]], B)


def test_nan_weights_rejected_everywhere():
    bad = [W[0].clone(), W[1]]
    bad[0][0, 0] = float("nan")
    for fn in (
        lambda: S.forward_mlp(bad, B, X),
        lambda: MODEL(bad, B),
        lambda: S.mlp_to_graph(bad, B),
        lambda: S.canonicalize_sign(bad, B),
        lambda: S.canonicalize_sine_phase(bad, B),
    ):
        with pytest.raises(ValueError, match=r"weights\[0\]"):
            fn()
    assert np.isfinite(S.forward_mlp(W, B, X).detach().numpy()).all()


def test_mixed_layout_rules():
    # layouts must share the input and output widths
    assert_rejects(ValueError, "layer_dims[1]", S.ScaleGMN, [DIMS, (DIMS[0] + 1, 2, 2)], out_dim=2)
    assert_rejects(TypeError, "layer_dims[1][0]", S.ScaleGMN, [DIMS, (2.5, 2, 2)], out_dim=2)
    mixed = S.ScaleGMN([DIMS, (DIMS[0], 5, DIMS[-1])], out_dim=2, d_hidden=4, num_layers=1)
    other = [torch.randn(4, DIMS[0]), torch.randn(DIMS[-1], 4)]
    other_b = [torch.randn(4), torch.randn(DIMS[-1])]
    # a network whose layout the model does not serve
    assert_rejects(ValueError, "layout", mixed, other, other_b)
    assert_rejects(ValueError, "weights[1]", mixed, [W, other], [B, other_b])
    # one bias list per network; one mask per network
    assert_rejects(ValueError, "biases", mixed, [W, W], [B])
    het = S.ScaleGMN([DIMS], out_dim=2, d_hidden=4, num_layers=1, symmetry="hetero")
    assert_rejects(TypeError, "sign_mask", het, [W], [B], sign_mask=torch.ones(1, dtype=bool))
    assert_rejects(
        ValueError, "sign_mask", het, [W, W], [B, B], sign_mask=[torch.ones(1, dtype=bool)]
    )
    assert_rejects(ValueError, "sign_mask[0]", het, [W], [B], sign_mask=[torch.ones(3, dtype=bool)])
    assert_rejects(ValueError, "num_hidden", S.mlp_to_graph, W, B, num_hidden=0)


def test_cnn_rules():
    conv = [torch.randn(3, 2, 3, 3), torch.randn(1, 3)]
    cb = [torch.randn(3), torch.randn(1)]
    x = torch.randn(4, 2, 5, 5)
    assert S.forward_cnn(conv, cb, x).shape == (4, 1)
    # a conv kernel after a linear layer; no linear layer at the end; channel mismatch
    assert_rejects(
        ValueError,
        "weights[2]",
        S.forward_cnn,
        conv + [torch.randn(1, 1, 1, 1)],
        cb + [torch.randn(1)],
        x,
    )
    assert_rejects(ValueError, "weights", S.forward_cnn, conv[:1], cb[:1], x)
    assert_rejects(ValueError, "weights[1]", S.forward_cnn, [conv[0], torch.randn(1, 4)], cb, x)
    assert_rejects(ValueError, "biases[0]", S.forward_cnn, conv, [torch.randn(4), cb[1]], x)
    assert_rejects(ValueError, "x", S.forward_cnn, conv, cb, torch.randn(4, 3, 5, 5))
    assert_rejects(ValueError, "activation", S.forward_cnn, conv, cb, x, activation="gelu")
    bad = [conv[0].clone(), conv[1]]
    bad[0][0, 0, 0, 0] = float("inf")
    assert_rejects(ValueError, "weights[0]", S.forward_cnn, bad, cb, x)
    # kernels larger than the model's kernel_size; reciprocal backward edges need scalars
    m = S.ScaleGMN((2, 3, 1), out_dim=2, d_hidden=4, num_layers=1, kernel_size=1)
    assert_rejects(ValueError, "kernel_size", m, conv, cb)
    assert_rejects(ValueError, "kernel_size", S.ScaleGMN, (2, 3, 1), out_dim=2, kernel_size=0)
    assert_rejects(TypeError, "kernel_size", S.ScaleGMN, (2, 3, 1), out_dim=2, kernel_size="3")
    assert_rejects(
        ValueError,
        "kernel_size",
        S.ScaleGMN,
        (2, 3, 1),
        out_dim=2,
        kernel_size=3,
        symmetry="scale",
        bidirectional=True,
    )
    assert_rejects(ValueError, "q", S.cnn_apply_scaling, conv, cb, [torch.zeros(3)])
    assert_rejects(
        ValueError, "perms[0]", S.cnn_apply_permutation, conv, cb, [torch.tensor([0, 0, 1])]
    )
    assert_rejects(ValueError, "kernel_size", S.cnn_to_graph, conv, cb, kernel_size=1)


def test_equivariant_head_rules():
    E = S.ScaleGMNEquivariant
    assert_rejects(TypeError, "layer_dims", E, 5)
    assert_rejects(ValueError, "d_hidden", E, DIMS, d_hidden=0)
    assert_rejects(ValueError, "symmetry", E, DIMS, symmetry="rotation")
    assert_rejects(TypeError, "bidirectional", E, DIMS, bidirectional="yes")
    assert_rejects(ValueError, "kernel_size", E, DIMS, kernel_size=(3, 3, 3))
    head = E(DIMS, d_hidden=4, num_layers=1)
    assert_rejects(ValueError, "weights[0]", head, [torch.randn(3, 5), W[1]], B)
    assert_rejects(
        ValueError, "sign_mask", E(DIMS, d_hidden=4, num_layers=1, symmetry="hetero"), W, B
    )


def test_cnn_zoo_and_training_types():
    assert_rejects(TypeError, "generator", S.zoo.cnn_zoo, 2, IM, LB, IM, LB, generator=1, **ZOO)
    assert_rejects(TypeError, "labels", S.zoo.cnn_zoo, 2, IM, IM, IM, LB, **ZOO)
    assert_rejects(ValueError, "labels", S.zoo.cnn_zoo, 2, IM, LB - 1, IM, LB, **ZOO)
    assert_rejects(TypeError, "channels", S.zoo.cnn_zoo, 2, IM, LB, IM, LB, channels=3, steps=1)
    assert_rejects(ValueError, "channels", S.zoo.cnn_zoo, 2, IM, LB, IM, LB, channels=(), steps=1)
    assert_rejects(TypeError, "model", fit_regressor, "net", BW, BB, torch.rand(4))
    assert_rejects(ValueError, "weights", fit_regressor, REG, W, B, torch.rand(1))
    assert_rejects(ValueError, "x", kendall_tau, [1.0], [2.0])
