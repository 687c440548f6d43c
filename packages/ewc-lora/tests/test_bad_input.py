"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import math

import ewc_lora as el
import torch
from hypothesis import strategies as st
from torch import nn

from papershelf_harness import suite
from papershelf_harness.suite import Flag, Int, Number, OutOfRange, Rng, Values, keyword


class _Bigram(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(6, 3)
        self.head = nn.Linear(3, 6)

    def forward(self, input_ids, attention_mask=None):
        return self.head(self.emb(input_ids))


def _adapted():
    model = _Bigram()
    el.apply_lora(model, target_modules=["head"], r=2)
    return model


MODEL = _adapted()
FISHER = {"head.weight": torch.ones(6, 3), "head.bias": torch.ones(6)}
THETA0 = {"head.weight": torch.zeros(6, 3), "head.bias": torch.zeros(6)}
ENV = el.GridHome(rng=0)
GOAL = ENV.sample_goal(rng=0)
PLAN = el.mcts_plan(ENV, GOAL, n_simulations=20, rng=0)
TRAJ = el.random_explore(ENV, 3, rng=0)


class _Tok:
    pad_token_id = 0

    def encode(self, text):
        return [ord(c) % 50 + 1 for c in text]


EXAMPLES = [{"prompt": "Q:", "target": " a"}]
NOT_A_MODEL = (("model", TypeError), (None, TypeError), (3, TypeError))


def _fisher(**entries):
    return {**FISHER, **entries}


CASES = [
    # LoRALinear / apply_lora / merge_lora
    keyword(Int, el.LoRALinear, "r", nn.Linear(3, 2), minimum=1),
    keyword(Number, el.LoRALinear, "alpha", nn.Linear(3, 2)),
    *(
        OutOfRange(
            f"LoRALinear.{name}-range",
            name,
            lambda v, n=name: el.LoRALinear(nn.Linear(3, 2), **{n: v}),
            bad,
        )
        for name, bad in (
            ("alpha", st.floats(-10, 0)),
            ("dropout", st.one_of(st.floats(1, 5), st.floats(-5, -0.01))),
        )
    ),
    keyword(Number, el.LoRALinear, "dropout", nn.Linear(3, 2)),
    keyword(
        Values, el.LoRALinear, "generator", nn.Linear(3, 2), bad=((0, TypeError), ("g", TypeError))
    ),
    Values(
        "LoRALinear.base",
        "base",
        lambda v: el.LoRALinear(v),
        bad=(
            (nn.Conv2d(2, 2, 1), TypeError),
            ("x", TypeError),
            (None, TypeError),
            (el.LoRALinear(nn.Linear(2, 2)), TypeError),
        ),
    ),
    Values("apply_lora.model", "model", lambda v: el.apply_lora(v), bad=NOT_A_MODEL),
    keyword(Int, el.apply_lora, "r", _Bigram(), kwargs={"target_modules": ["head"]}, minimum=1),
    keyword(Number, el.apply_lora, "alpha", _Bigram(), kwargs={"target_modules": ["head"]}),
    keyword(Number, el.apply_lora, "dropout", _Bigram(), kwargs={"target_modules": ["head"]}),
    keyword(
        Values,
        el.apply_lora,
        "target_modules",
        _Bigram(),
        bad=(
            ([], ValueError),
            ("", ValueError),
            (["nothing"], ValueError),
            (["emb"], ValueError),
            ("(", ValueError),
            ([1], TypeError),
            (3, TypeError),
            (None, TypeError),
        ),
    ),
    Values(
        "merge_lora.model",
        "model",
        el.merge_lora,
        bad=NOT_A_MODEL + ((nn.Linear(2, 2), ValueError),),
    ),
    # penalties
    keyword(Number, el.ewc_lora_penalty, "lam", MODEL, FISHER),
    keyword(
        OutOfRange,
        el.ewc_lora_penalty,
        "lam",
        MODEL,
        FISHER,
        values=st.floats(-100, -1e-3),
        id="ewc_lora_penalty.lam-range",
    ),
    Values(
        "ewc_lora_penalty.model",
        "model",
        lambda v: el.ewc_lora_penalty(v, FISHER),
        bad=NOT_A_MODEL + ((_Bigram(), ValueError),),
    ),
    Values(
        "ewc_lora_penalty.fisher",
        "fisher",
        lambda v: el.ewc_lora_penalty(MODEL, v),
        bad=(
            (None, TypeError),
            ([torch.ones(6, 3)], TypeError),
            ({}, ValueError),
            ({"head.bias": torch.ones(6)}, ValueError),  # the adapted weight's entry missing
            (_fisher(**{"head.weight": torch.ones(3, 6)}), ValueError),  # transposed
            (_fisher(**{"head.weight": torch.ones(6)}), ValueError),
            (_fisher(**{"head.weight": torch.full((6, 3), math.nan)}), ValueError),
            (_fisher(**{"head.weight": -torch.ones(6, 3)}), ValueError),
            (_fisher(**{"head.weight": "big"}), TypeError),
            (_fisher(**{"head.weight": torch.ones(6, 3, dtype=torch.complex64)}), TypeError),
        ),
    ),
    keyword(Number, el.ewc_full_penalty, "lam", MODEL, FISHER, THETA0),
    Values(
        "ewc_full_penalty.model",
        "model",
        lambda v: el.ewc_full_penalty(v, FISHER, THETA0),
        bad=NOT_A_MODEL,
    ),
    Values(
        "ewc_full_penalty.fisher",
        "fisher",
        lambda v: el.ewc_full_penalty(MODEL, v, THETA0),
        bad=(
            (None, TypeError),
            ({}, ValueError),
            ({"nothing.weight": torch.ones(2)}, ValueError),
            (_fisher(**{"head.bias": torch.ones(5)}), ValueError),
        ),
    ),
    Values(
        "ewc_full_penalty.theta0",
        "theta0",
        lambda v: el.ewc_full_penalty(MODEL, FISHER, v),
        bad=(
            (None, TypeError),
            ({}, ValueError),
            ({"head.weight": torch.zeros(6, 3)}, ValueError),
            ({**THETA0, "head.bias": torch.zeros(2)}, ValueError),
            ({**THETA0, "head.bias": torch.full((6,), math.inf)}, ValueError),
        ),
    ),
    # Fisher
    suite.token_ids(
        "estimate_fisher_diag.samples[item]",
        "samples",
        lambda v: el.estimate_fisher_diag(_Bigram(), [v]),
        vocab_size=6,
    ),
    Values(
        "estimate_fisher_diag.samples",
        "samples",
        lambda v: el.estimate_fisher_diag(_Bigram(), v),
        bad=(
            ([], ValueError),
            (3, TypeError),
            ("abc", TypeError),
            ([{"ids": [0, 1]}], ValueError),
            ([{"input_ids": [0, 1], "labels": [-100, -100]}], ValueError),
        ),
    ),
    Values(
        "estimate_fisher_diag.model",
        "model",
        lambda v: el.estimate_fisher_diag(v, [[0, 1]]),
        bad=NOT_A_MODEL,
    ),
    keyword(
        Values,
        el.estimate_fisher_diag,
        "loss_fn",
        _Bigram(),
        [[0, 1]],
        bad=(
            (3, TypeError),
            ("mse", TypeError),
            (lambda m, i: 1.0, TypeError),
            (lambda m, i: torch.ones(2, requires_grad=True), ValueError),
        ),
    ),
    keyword(Flag, el.estimate_fisher_diag, "empirical", _Bigram(), [[0, 1]]),
    keyword(
        Values,
        el.estimate_fisher_diag,
        "generator",
        _Bigram(),
        [[0, 1]],
        bad=((0, TypeError), ("x", TypeError)),
    ),
    # the world
    keyword(Int, el.GridHome, "n_rooms", minimum=1, maximum=5),
    keyword(Int, el.GridHome, "n_objects", minimum=1, maximum=12),
    keyword(Rng, el.GridHome, "rng"),
    keyword(Int, ENV.sample_goal, "n_predicates", minimum=1, maximum=4),
    keyword(Rng, ENV.sample_goal, "rng"),
    Values(
        "GridHome.step.action",
        "action",
        lambda v: ENV.copy().step(v),
        bad=(
            (("walk", "kitchen"), ValueError),
            (("fly", "x"), ValueError),
            (("grab",), ValueError),
            (("grab", "moon"), ValueError),
            ("walk", TypeError),
            (None, TypeError),
            ((1, 2), TypeError),
            (("walk",), ValueError),
        ),
    ),
    Values(
        "GridHome.satisfied.goal",
        "goal",
        lambda v: ENV.satisfied(v),
        bad=(
            ([], ValueError),
            (["apple in moon"], ValueError),
            (["zzz"], ValueError),
            ([("in", "apple")], ValueError),
            (5, TypeError),
            ([5], TypeError),
        ),
    ),
    Values(
        "mcts_plan.env",
        "env",
        lambda v: el.mcts_plan(v, GOAL),
        bad=((None, TypeError), ("home", TypeError)),
    ),
    Values(
        "mcts_plan.goal",
        "goal",
        lambda v: el.mcts_plan(ENV, v),
        bad=(([], ValueError), (["apple in moon"], ValueError), (5, TypeError)),
    ),
    keyword(Int, el.mcts_plan, "n_simulations", ENV, GOAL, minimum=1),
    keyword(Int, el.mcts_plan, "max_depth", ENV, GOAL, kwargs={"n_simulations": 2}, minimum=1),
    keyword(Number, el.mcts_plan, "c_uct", ENV, GOAL, kwargs={"n_simulations": 2}),
    keyword(Flag, el.mcts_plan, "prune", ENV, GOAL, kwargs={"n_simulations": 2}),
    keyword(Rng, el.mcts_plan, "rng", ENV, GOAL, kwargs={"n_simulations": 2}),
    Values(
        "random_explore.env", "env", lambda v: el.random_explore(v, 3), bad=((None, TypeError),)
    ),
    Int("random_explore.n_steps", "n_steps", lambda v: el.random_explore(ENV, v), minimum=0),
    keyword(Rng, el.random_explore, "rng", ENV, 3),
    keyword(
        Values,
        el.random_explore,
        "goal",
        ENV,
        3,
        bad=((["apple in moon"], ValueError), (5, TypeError)),
    ),
    # data builders
    Values(
        "make_plan_examples.plans",
        "plans",
        el.make_plan_examples,
        bad=(([], ValueError), ([1], TypeError), ("plan", TypeError), (None, TypeError)),
    ),
    Values(
        "make_activity_recognition.plans",
        "plans",
        el.make_activity_recognition,
        bad=(([], ValueError), ([TRAJ], TypeError)),
    ),
    Values(
        "make_counting_qa.env",
        "env",
        lambda v: el.make_counting_qa(v, [TRAJ]),
        bad=((None, TypeError),),
    ),
    Values(
        "make_counting_qa.trajectories",
        "trajectories",
        lambda v: el.make_counting_qa(ENV, v),
        bad=(([], ValueError), ([PLAN], TypeError)),
    ),
    Values(
        "make_path_tracking_qa.env",
        "env",
        lambda v: el.make_path_tracking_qa(v, [TRAJ]),
        bad=((3, TypeError),),
    ),
    Values(
        "make_path_tracking_qa.trajectories",
        "trajectories",
        lambda v: el.make_path_tracking_qa(ENV, v),
        bad=(([], ValueError), (None, TypeError)),
    ),
    Values(
        "tokenize_examples.examples",
        "examples",
        lambda v: el.tokenize_examples(v, _Tok()),
        bad=(
            ([], ValueError),
            ("text", TypeError),
            ([{"prompt": 1}], TypeError),
            ([{"prompt": "a", "target": ""}], ValueError),
        ),
    ),
    Values(
        "tokenize_examples.tokenizer",
        "tokenizer",
        lambda v: el.tokenize_examples(EXAMPLES, v),
        bad=((None, TypeError), ("tok", TypeError)),
    ),
    keyword(Int, el.tokenize_examples, "max_length", EXAMPLES, _Tok(), minimum=2),
]

globals().update(suite.bad_input_suite(CASES))
