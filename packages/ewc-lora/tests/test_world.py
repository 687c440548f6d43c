"""GridHome's rules, MCTS against random play, and the four data formats against a replay."""

import pytest
from ewc_lora import (
    GridHome,
    make_activity_recognition,
    make_counting_qa,
    make_path_tracking_qa,
    make_plan_examples,
    mcts_plan,
    random_explore,
)

from papershelf_harness.testing import assert_rejects


def _home():
    env = GridHome(rng=0)
    # the apple starts in the closed fridge (a known layout for the rule tests)
    env.initial_state = (0, (), (env.receptacles.index("fridge"),) + env.initial_state[2][1:],
                         env.initial_state[3], env.initial_state[4])  # fmt: skip
    env.reset()
    return env


def test_preconditions_and_effects():
    env = _home()
    assert env.location("apple") == ("in", "fridge") and env.agent_room() == "kitchen"
    assert_rejects(ValueError, "action", env.step, ("grab", "apple"))  # fridge closed
    assert_rejects(ValueError, "action", env.step, ("switch_on", "tv"))  # tv elsewhere
    assert_rejects(ValueError, "action", env.step, ("walk", "kitchen"))
    assert_rejects(ValueError, "action", env.step, ("fly", "kitchen"))
    env.step(("open", "fridge"))
    env.step(("grab", "apple"))
    assert env.held() == ("apple",) and env.location("apple") == ("held", None)
    env.step(("walk", "living_room"))
    assert_rejects(ValueError, "action", env.step, ("put", "apple", "fridge"))  # not here
    env.step(("put", "apple", "table"))
    env.step(("switch_on", "tv"))
    assert env.satisfied(["apple on table", "tv on", "fridge open"])
    assert not env.satisfied([("closed", "fridge")])
    # every listed legal action is accepted and every other single action refused
    state = env.state
    legal = set(env.legal_actions())
    verbs = ["walk", "grab", "open", "close", "switch_on", "switch_off"]
    names = env.rooms + env.objects + env.receptacles + env.devices
    for verb in verbs:
        for name in names:
            assert env.is_legal((verb, name), state) == ((verb, name) in legal)
    assert_rejects(ValueError, "goal", env.parse_goal, ["apple in moon"])


def test_mcts_reaches_goals_random_play_does_not():
    n, mcts_ok, random_ok = 8, 0, 0
    for ep in range(n):
        env = GridHome(rng=100 + ep)
        goal = env.sample_goal(n_predicates=2 + ep % 2, rng=ep)
        assert not env.satisfied(goal)
        plan = mcts_plan(env, goal, rng=ep)
        assert env.state == env.initial_state  # env untouched
        for a in plan.actions:  # replay: no precondition violation
            env.step(a)
        assert env.satisfied(goal) == plan.success and len(plan.actions) <= 20
        mcts_ok += plan.success
        random_ok += random_explore(GridHome(rng=100 + ep), 20, goal=goal, rng=ep).success
    assert mcts_ok >= n - 1 and random_ok <= 2


def test_builders_follow_a_replayed_trajectory():
    env = _home()
    traj = random_explore(env, 0)
    assert traj.actions == () and len(traj.states) == 1 and traj.success is None
    steps = [("open", "fridge"), ("grab", "apple"), ("walk", "living_room"),
             ("put", "apple", "table"), ("grab", "apple"), ("walk", "bedroom")]  # fmt: skip
    states = [env.state]
    for a in steps:
        states.append(env.step(a))
    from ewc_lora import Trajectory

    t = Trajectory(tuple(steps), tuple(states), None)
    counting = make_counting_qa(env, [t])
    assert [c["target"] for c in counting] == [" 1\n", " 3\n"]
    (path,) = make_path_tracking_qa(env, [t])
    assert "apple" in path["prompt"] and path["target"] == " fridge, hands, table, hands\n"
    env.reset()
    plan = mcts_plan(env, ["apple on bed"], rng=0)
    (ex,) = make_plan_examples([plan])
    assert ex["prompt"] == "Goal: apple on bed.\nPlan:" and ex["target"].startswith(" ")
    (rec,) = make_activity_recognition(plan)
    assert rec["target"] == " apple on bed.\n" and "open fridge" in rec["prompt"]


def test_tokenize_examples_masks_the_prompt():
    from ewc_lora import tokenize_examples

    from papershelf_tinylm import ByteTokenizer

    tok = ByteTokenizer()
    batch = tokenize_examples(
        [{"prompt": "Q: 1+1?\nA:", "target": " 2\n"}, {"prompt": "Q:", "target": " yes"}], tok
    )
    n = len(tok.encode("Q: 1+1?\nA:"))
    assert batch["input_ids"].shape == batch["labels"].shape == (2, n + 3)
    assert (batch["labels"][0, :n] == -100).all()
    assert tok.decode(batch["labels"][0, n:].tolist()) == " 2\n"
    assert batch["attention_mask"][1].sum() == len(tok.encode("Q: yes"))
    assert (batch["labels"][1][batch["attention_mask"][1] == 0] == -100).all()


@pytest.mark.parametrize("kw", [{"n_rooms": 0}, {"n_rooms": 9}, {"n_objects": 0}])
def test_gridhome_sizes(kw):
    assert_rejects(ValueError, next(iter(kw)), GridHome, **kw)


def test_idle_walks_are_dropped_and_plans_stay_legal():
    from ewc_lora.world import _drop_idle_walks

    walks = [("walk", "bedroom"), ("walk", "kitchen"), ("grab", "cup"), ("walk", "bedroom"),
             ("walk", "living_room"), ("walk", "bedroom")]  # fmt: skip
    assert _drop_idle_walks("kitchen", walks) == [("grab", "cup"), ("walk", "bedroom")]
    for seed in range(6):
        env = GridHome(rng=seed)
        plan = mcts_plan(env, env.sample_goal(n_predicates=3, rng=seed), n_simulations=60, rng=seed)
        for a, b in zip(plan.actions, plan.actions[1:]):
            assert not (a[0] == b[0] == "walk")
        for a in plan.actions:
            env.step(a)
        assert env.satisfied(plan.goal) == plan.success
