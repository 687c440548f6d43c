"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument.

``call(value)`` feeds ``value`` as the argument ``name`` with every other argument valid; plain
tests below cover what the case kinds do not (model outputs and λ scores of the wrong shape).
"""

import lambda_equitune as le
import pytest
import torch
from torch import nn

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

torch.manual_seed(0)
MODEL = le.DigitsCNN(10, channels=2)
NET = le.WeightNet(10, hidden=4)
X = torch.randn(3, 1, 8, 8)
G4 = le.Rot90()
LOADER = [(X, torch.tensor([0, 1, 2]))]

NON_MODULES = ((lambda t: t, TypeError), ("model", TypeError), (None, TypeError), (3, TypeError))
NOT_GROUPS = (("rot90", TypeError), (None, TypeError), (4, TypeError), (MODEL, TypeError))


def _wrappers():
    return {
        "EquiTune": le.EquiTune(MODEL, G4),
        "EquiZero": le.EquiZero(MODEL, G4),
        "LambdaEquiTune": le.LambdaEquiTune(MODEL, G4, NET),
    }


WRAPPERS = _wrappers()

# the wrapper classes and their positional arguments after (model, group)
WRAPPER_ARGS = {
    "EquiTune": (le.EquiTune, ()),
    "EquiZero": (le.EquiZero, ()),
    "LambdaEquiTune": (le.LambdaEquiTune, (NET,)),
}


def images(id, call):
    """The bad float image batches for an argument ``x`` of the shape of ``X``."""
    return suite.image_batch(id, "x", call, shape=tuple(X.shape))


CASES = [
    *[images(f"{k}.forward.x", w) for k, w in WRAPPERS.items()],
    images("EquiZero.select.x", WRAPPERS["EquiZero"].select),
    images("LambdaEquiTune.group_weights.x", WRAPPERS["LambdaEquiTune"].group_weights),
    suite.Values(
        "Rot90.act.x",
        "x",
        lambda v: G4.act(v, 1),
        bad=(
            (torch.zeros(1, 3, 4), ValueError),
            (torch.zeros(4), ValueError),
            (X.numpy(), TypeError),
        ),
    ),
    suite.Values(
        "D4.act.x", "x", lambda v: le.D4().act(v, 1), bad=((torch.zeros(2, 3), ValueError),)
    ),
    suite.Int("Rot90.act.g", "g", lambda v: G4.act(X, v), minimum=0, maximum=3),
    suite.Int("D4.act.g", "g", lambda v: le.D4().act(X, v), minimum=0, maximum=7),
    suite.Int("HFlip.inverse.g", "g", lambda v: le.HFlip().inverse(v), minimum=0, maximum=1),
    suite.Int("D4.compose.h", "h", lambda v: le.D4().compose(1, v), minimum=0, maximum=7),
    suite.Values(
        "TokenSwap.pairs",
        "pairs",
        le.TokenSwap,
        bad=(([], ValueError), (None, TypeError), ([(2, 2)], ValueError)),
    ),
    suite.Values(
        "TokenSwap.act.x",
        "x",
        lambda v: le.TokenSwap([(0, 1)]).act(v, 1),
        bad=((X, TypeError), ([0, 1], TypeError)),
    ),
    *(
        suite.Values(f"{n}.model", "model", lambda v, c=c, r=r: c(v, G4, *r), bad=NON_MODULES)
        for n, (c, r) in WRAPPER_ARGS.items()
    ),
    *(
        suite.Values(f"{n}.group", "group", lambda v, c=c, r=r: c(MODEL, v, *r), bad=NOT_GROUPS)
        for n, (c, r) in WRAPPER_ARGS.items()
    ),
    suite.Values(
        "LambdaEquiTune.weight_net",
        "weight_net",
        lambda v: le.LambdaEquiTune(MODEL, G4, v),
        bad=NON_MODULES,
    ),
    suite.Values(
        "equivariance_error.group",
        "group",
        lambda v: le.equivariance_error(MODEL, v, X),
        bad=NOT_GROUPS,
    ),
    suite.Values(
        "EquiTune.output_action",
        "output_action",
        lambda v: le.EquiTune(MODEL, G4, output_action=v),
        bad=(("rot90", TypeError), (3, TypeError), (MODEL, TypeError)),
    ),
    suite.Values(
        "LambdaEquiTune.features",
        "features",
        lambda v: le.LambdaEquiTune(MODEL, G4, NET, features=v),
        bad=(("logits", TypeError), (3, TypeError)),
    ),
    suite.Values(
        "EquiZero.proxy",
        "proxy",
        lambda v: le.EquiZero(MODEL, G4, proxy=v),
        bad=(("argmax", ValueError), ("", ValueError), (3, TypeError), (None, TypeError)),
    ),
    suite.keyword(
        suite.Option,
        le.LambdaEquiTune,
        "positivity",
        MODEL,
        G4,
        NET,
        valid=frozenset({"softplus", "softmax"}),
    ),
    suite.keyword(suite.Flag, le.EquiZero, "straight_through", MODEL, G4),
    images("equivariance_error.x", lambda v: le.equivariance_error(MODEL, G4, v)),
    suite.Values(
        "equivariance_error.module",
        "module",
        lambda v: le.equivariance_error(v, G4, X),
        bad=(("m", TypeError), (None, TypeError)),
    ),
    suite.keyword(suite.Number, le.assert_equivariant, "atol", WRAPPERS["EquiTune"], G4, X),
    # the two training loops take the same options: steps, lr, optimizer
    *(
        case
        for train, wrapper in ((le.fit_lambda, "LambdaEquiTune"), (le.finetune, "EquiTune"))
        for case in (
            suite.keyword(suite.Int, train, "steps", WRAPPERS[wrapper], LOADER, minimum=1),
            suite.keyword(suite.Number, train, "lr", WRAPPERS[wrapper], LOADER),
            suite.keyword(
                suite.Option,
                train,
                "optimizer",
                WRAPPERS[wrapper],
                LOADER,
                kwargs={"steps": 1},
                valid=frozenset({"adam", "sgd"}),
            ),
        )
    ),
    suite.Values(
        "fit_lambda.wrapper",
        "wrapper",
        lambda v: le.fit_lambda(v, LOADER, steps=1),
        bad=((MODEL, TypeError), (WRAPPERS["EquiTune"], TypeError), (None, TypeError)),
    ),
    suite.Values(
        "finetune.wrapper",
        "wrapper",
        lambda v: le.finetune(v, LOADER, steps=1),
        bad=((None, TypeError), ("w", TypeError)),
    ),
    suite.Values(
        "finetune.loader",
        "loader",
        lambda v: le.finetune(WRAPPERS["EquiTune"], v, steps=1),
        bad=(([], ValueError), (None, TypeError), (X, TypeError), ([X], TypeError)),
    ),
    suite.Values(
        "finetune.loss_fn",
        "loss_fn",
        lambda v: le.finetune(WRAPPERS["EquiTune"], LOADER, steps=1, loss_fn=v),
        bad=(("ce", TypeError),),
    ),
    suite.keyword(suite.Int, le.DigitsCNN, "n_classes", minimum=2),
    suite.keyword(suite.Int, le.DigitsCNN, "channels", minimum=1),
    suite.keyword(suite.Int, le.DigitsCNN, "image_size", minimum=2),
    suite.keyword(suite.Int, le.MLP, "in_features", kwargs={"out_features": 2}, minimum=1),
    suite.keyword(suite.Int, le.MLP, "hidden", 4, 2, minimum=1),
    suite.keyword(suite.Int, le.WeightNet, "in_features", minimum=1),
    suite.keyword(suite.Number, le.WeightNet, "dropout", 4),
    suite.OutOfRange(
        "WeightNet.dropout.range",
        "dropout",
        lambda v: le.WeightNet(4, dropout=v),
        values=__import__("hypothesis").strategies.sampled_from([-0.1, 1.0, 2.0]),
    ),
    suite.Values(
        "DigitsCNN.forward.x",
        "x",
        MODEL,
        bad=((torch.zeros(3, 1, 7, 7), ValueError), (torch.zeros(3, 8, 8), ValueError)),
    ),
    suite.Values(
        "entropy_proxy.y",
        "y",
        le.entropy_proxy,
        bad=(
            (torch.zeros(3), ValueError),
            (torch.full((2, 3), float("nan")), ValueError),
            ("y", TypeError),
        ),
    ),
    suite.Values(
        "max_prob_proxy.y",
        "y",
        le.max_prob_proxy,
        bad=((torch.zeros(3), ValueError), (None, TypeError)),
    ),
]

globals().update(suite.bad_input_suite(CASES))


class Wrong(nn.Module):
    def __init__(self, out):
        super().__init__()
        self.out = out

    def forward(self, x):
        return self.out(x)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: le.EquiTune(Wrong(lambda x: x[:1].flatten(1)), G4), "model"),
        (lambda: le.EquiTune(Wrong(lambda x: "no"), G4), "model"),
        (lambda: le.LambdaEquiTune(MODEL, G4, Wrong(lambda f: f)), "weight_net"),
        (
            lambda: le.LambdaEquiTune(MODEL, G4, Wrong(lambda f: f[:, 0] * float("nan"))),
            "weight_net",
        ),
        (lambda: le.LambdaEquiTune(MODEL, G4, NET, features=lambda x: "f"), "features"),
        (lambda: le.EquiZero(MODEL, G4, proxy=lambda y: y), "proxy"),
        (lambda: le.EquiZero(MODEL, G4, proxy=lambda y: y[:, 0] * float("nan")), "proxy"),
    ],
)
def test_wrong_model_or_callable_outputs_are_named(make, name):
    w = make()
    with pytest.raises((TypeError, ValueError), match=name):
        w(X)


def test_equivariance_error_wrong_output_action_is_named():
    w = le.EquiTune(MODEL, G4)
    assert_rejects(
        ValueError,
        "output_action",
        lambda: le.equivariance_error(w, G4, X, output_action=lambda y, g: y[:1]),
    )
