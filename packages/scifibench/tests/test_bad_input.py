"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind; ``papershelf_harness.suite`` writes the hypothesis tests.
``call(value)`` feeds ``value`` as the argument ``name`` with every other argument valid. Plain
tests below cover what the kinds do not: strings, sequences of strings, questions, models.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import strategies as st
from scifibench import (
    ChatSolver,
    ClipStyleSolver,
    LLMChatModel,
    LLMExtractor,
    LookupEncoder,
    ScriptedLLM,
    augment,
    bootstrap,
    build_prompt,
    dedupe_captions,
    difficulty,
    evaluate,
    extract_letter,
    from_records,
    joint_embedding,
    knn_negatives,
    letters,
    make_questions,
    random_negatives,
    shuffle_options,
    strip_figure_number,
    synthetic_world,
    tiered_split,
)

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

_rng = np.random.default_rng(0)
X = _rng.standard_normal((6, 3))
NEG = random_negatives(6, k=2, rng=0)
CAPS = [f"c{i}" for i in range(6)]
FIGS = list(range(6))
Q = make_questions(CAPS, FIGS, NEG, task="fig2cap", rng=0)[0]
Q2 = make_questions(CAPS, FIGS, NEG, task="cap2fig", rng=0)[0]
ROW = {"ID": 1, "Question": "q", "Options": ["A) x", "B) y"], "Answer": "B", "Images": [0]}
CORRECT = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1])


class Oracle:
    def answer(self, q):
        return q.answer


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


CASES = [
    # letters / extraction
    suite.Int("letters.n", "n", lambda v: letters(v), minimum=1),
    suite.keyword(suite.Int, extract_letter, "n_options", "A", minimum=2),
    suite.keyword(suite.Flag, extract_letter, "allow_lowercase", "a"),
    suite.keyword(
        suite.Int,
        LLMExtractor(ScriptedLLM(["A"])),
        "n_options",
        "x",
        id="LLMExtractor.n_options",
        minimum=2,
    ),
    suite.keyword(suite.Flag, LLMExtractor, "deterministic_first", ScriptedLLM([])),
    # bootstrap
    suite.Array(
        "bootstrap.correct", "correct", lambda v: bootstrap(v, n_boot=10), shape=(10,), ndims=(1,)
    ),
    suite.keyword(suite.Int, bootstrap, "n_boot", CORRECT, minimum=2),
    suite.keyword(suite.Rng, bootstrap, "rng", CORRECT, kwargs={"n_boot": 10}),
    # curation
    suite.Array(
        "joint_embedding.img", "img", lambda v: joint_embedding(v, X), shape=(6, 3), ndims=(2,)
    ),
    suite.Array(
        "joint_embedding.txt", "txt", lambda v: joint_embedding(X, v), shape=(6, 3), ndims=(2,)
    ),
    suite.Mismatch("joint_embedding.txt", "txt", lambda: joint_embedding(X, X[:5])),
    suite.Array("knn_negatives.X", "X", lambda v: knn_negatives(v, k=1), shape=(6, 3), ndims=(2,)),
    suite.keyword(suite.Int, knn_negatives, "k", X, minimum=1),
    suite.keyword(suite.Number, knn_negatives, "min_dist", X, kwargs={"k": 1}),
    suite.keyword(suite.OutOfRange, knn_negatives, "min_dist", X, values=_floats(hi=-1e-09)),
    suite.Mismatch("knn_negatives.k>n-1", "k", lambda: knn_negatives(X, k=6)),
    suite.Int("random_negatives.n", "n", lambda v: random_negatives(v, k=1), minimum=2),
    suite.keyword(suite.Int, random_negatives, "k", 6, minimum=1),
    suite.Mismatch("random_negatives.k>n-1", "k", lambda: random_negatives(6, k=6)),
    suite.keyword(suite.Rng, random_negatives, "rng", 6),
    suite.Array("difficulty.X", "X", lambda v: difficulty(v, NEG), shape=(6, 3), ndims=(2,)),
    suite.Array("difficulty.neg", "neg", lambda v: difficulty(X, v), shape=(6, 2), ndims=(2,)),
    suite.Mismatch("difficulty.neg", "neg", lambda: difficulty(X, NEG[:5])),
    suite.Mismatch("difficulty.neg.range", "neg", lambda: difficulty(X, NEG + 6)),
    suite.Array(
        "make_questions.neg",
        "neg",
        lambda v: make_questions(CAPS, FIGS, v, task="fig2cap"),
        shape=(6, 2),
        ndims=(2,),
    ),
    suite.keyword(
        suite.Option,
        make_questions,
        "task",
        CAPS,
        FIGS,
        NEG,
        valid=frozenset({"fig2cap", "cap2fig"}),
    ),
    suite.keyword(suite.Rng, make_questions, "rng", CAPS, FIGS, NEG, kwargs={"task": "cap2fig"}),
    suite.Mismatch(
        "make_questions.figures",
        "figures",
        lambda: make_questions(CAPS, FIGS[:5], NEG, task="fig2cap"),
    ),
    suite.Mismatch(
        "make_questions.neg", "neg", lambda: make_questions(CAPS[:5], FIGS[:5], NEG, task="fig2cap")
    ),
    suite.Array(
        "tiered_split.difficulty",
        "difficulty",
        lambda v: tiered_split(v, [0]),
        shape=(6,),
        ndims=(1,),
    ),
    suite.keyword(suite.Int, tiered_split, "silver_size", X[:, 0], [0], minimum=0),
    suite.Mismatch("tiered_split.gold_ids", "gold_ids", lambda: tiered_split(X[:, 0], [9])),
    # questions, prompts, evaluation, alignment
    suite.keyword(
        suite.Option,
        dataclasses.replace,
        "task",
        Q,
        id="Question.task",
        valid=frozenset({"fig2cap", "cap2fig"}),
    ),
    suite.keyword(
        suite.Option, dataclasses.replace, "answer", Q, id="Question.answer", valid=frozenset("ABC")
    ),
    suite.Mismatch(
        "Question.option_ids", "option_ids", lambda: dataclasses.replace(Q, option_ids=(1, 2))
    ),
    suite.Mismatch("Question.images", "images", lambda: dataclasses.replace(Q2, images=(1, 2))),
    suite.keyword(suite.Option, build_prompt, "style", Q, valid=frozenset({"cot", "direct"})),
    suite.keyword(suite.Int, evaluate, "n_shuffles", Oracle(), [Q], minimum=0),
    suite.keyword(suite.Rng, evaluate, "rng", Oracle(), [Q], kwargs={"n_shuffles": 1}),
    suite.keyword(suite.Rng, shuffle_options, "rng", Q),
    suite.keyword(suite.Option, augment, "mark", Q, valid=frozenset({"true", "wrong"})),
    suite.keyword(suite.Flag, augment, "instruct_ignore", Q, kwargs={"mark": "true"}),
    suite.keyword(suite.Rng, augment, "rng", Q, kwargs={"mark": "wrong"}),
    suite.keyword(
        suite.Option, from_records, "task", [ROW], valid=frozenset({"fig2cap", "cap2fig"})
    ),
    # LLM protocol and the synthetic world
    suite.keyword(
        suite.Int, ScriptedLLM(["a"]).complete, "n", [], id="ScriptedLLM.complete.n", minimum=1
    ),
    suite.keyword(
        suite.Number,
        ScriptedLLM(["a"]).complete,
        "temperature",
        [],
        id="ScriptedLLM.complete.temperature",
    ),
    suite.keyword(
        suite.OutOfRange,
        ScriptedLLM(["a"]).complete,
        "temperature",
        [],
        id="ScriptedLLM.complete.temperature",
        values=_floats(hi=-1e-09),
    ),
    suite.keyword(suite.Number, LLMChatModel, "temperature", ScriptedLLM([])),
    suite.Int(
        "synthetic_world.n_clusters", "n_clusters", lambda v: synthetic_world(v, 2), minimum=1
    ),
    suite.Int(
        "synthetic_world.per_cluster", "per_cluster", lambda v: synthetic_world(2, v), minimum=1
    ),
    suite.keyword(suite.Int, synthetic_world, "dim", 2, 2, minimum=1),
    suite.keyword(suite.Number, synthetic_world, "latent_noise", 2, 2),
    suite.keyword(suite.Number, synthetic_world, "modality_noise", 2, 2),
    suite.keyword(
        suite.OutOfRange, synthetic_world, "latent_noise", 2, 2, values=_floats(hi=-1e-09)
    ),
    suite.keyword(suite.Rng, synthetic_world, "rng", 2, 2),
]

globals().update(suite.bad_input_suite(CASES))


# --- strings and sequences of strings ------------------------------------------------------
@pytest.mark.parametrize("value", [None, 3, b"A", ["A"]], ids=repr)
def test_non_string_text_is_a_type_error(value):
    assert_rejects(TypeError, "text", extract_letter, value)
    assert_rejects(TypeError, "caption", strip_figure_number, value)


def test_captions_must_be_strings():
    assert_rejects(TypeError, "captions", make_questions, "abc", FIGS, NEG, task="fig2cap")
    assert_rejects(
        TypeError,
        "captions[2]",
        make_questions,
        [*CAPS[:2], 5, *CAPS[3:]],
        FIGS,
        NEG,
        task="fig2cap",
    )
    assert_rejects(ValueError, "captions", make_questions, [], [], NEG, task="fig2cap")
    assert_rejects(TypeError, "captions[0]", dedupe_captions, [1])
    assert_rejects(TypeError, "figures", make_questions, CAPS, 7, NEG, task="fig2cap")


def test_bad_question_fields():
    assert_rejects(TypeError, "options", dataclasses.replace, Q, options="abc")
    assert_rejects(TypeError, "options[1]", dataclasses.replace, Q, options=("a", 2, "c"))
    assert_rejects(ValueError, "options", dataclasses.replace, Q, options=("a",), answer="A")
    assert_rejects(TypeError, "question", dataclasses.replace, Q, question=None)
    assert_rejects(TypeError, "caption", dataclasses.replace, Q, caption=3)
    assert_rejects(TypeError, "category", dataclasses.replace, Q, category=3)
    for bad in (1.5, None, True, [1]):
        assert_rejects(TypeError, "qid", dataclasses.replace, Q, qid=bad)
    assert_rejects(TypeError, "option_ids[0]", dataclasses.replace, Q, option_ids=(1.5, 2, 3))
    assert_rejects(ValueError, "answer", dataclasses.replace, Q, answer="a")


def test_bad_questions_and_models():
    for fn in (build_prompt, shuffle_options):
        assert_rejects(TypeError, "q", fn, {"answer": "A"})
    assert_rejects(TypeError, "q", augment, "question", mark="true")
    assert_rejects(ValueError, "q", augment, Q2, mark="true")
    assert_rejects(ValueError, "q", augment, augment(Q, mark="true"), mark="true")
    assert_rejects(TypeError, "questions[1]", evaluate, Oracle(), [Q, "x"])
    assert_rejects(ValueError, "questions", evaluate, Oracle(), [])
    assert_rejects(TypeError, "questions", evaluate, Oracle(), Q)
    assert_rejects(TypeError, "model", evaluate, object(), [Q])
    assert_rejects(TypeError, "encoder", ClipStyleSolver, object())
    assert_rejects(TypeError, "model", ChatSolver, Oracle())
    assert_rejects(TypeError, "extractor", ChatSolver, ScriptedLLM([]), extractor="regex")
    assert_rejects(ValueError, "style", ChatSolver, ScriptedLLM([]), style="cot5")
    assert_rejects(TypeError, "llm", LLMExtractor, object())
    assert_rejects(TypeError, "llm", LLMChatModel, "gpt")
    assert_rejects(TypeError, "replies", ScriptedLLM, "abc")
    assert_rejects(TypeError, "replies[1]", ScriptedLLM, ["a", 1])
    assert_rejects(TypeError, "images", LookupEncoder, [1], {"a": [1.0]})
    assert_rejects(ValueError, "texts", LookupEncoder, {1: [1.0]}, {})


def test_model_returning_nonsense_is_a_type_error():
    class Bad:
        def generate(self, parts):
            return 3

    assert_rejects(TypeError, "model.generate", evaluate, Bad(), [Q])


def test_zero_rows_cannot_be_normalised():
    Z = X.copy()
    Z[2] = 0
    assert_rejects(ValueError, "img", joint_embedding, Z, X)
    assert_rejects(ValueError, "txt", joint_embedding, X, Z)


def test_non_integral_neg_is_a_type_error_and_records_are_checked():
    assert_rejects(TypeError, "neg", difficulty, X, NEG + 0.5)
    assert_rejects(TypeError, "records", from_records, "rows")
    assert_rejects(TypeError, "records[0]", from_records, [3])
    assert_rejects(
        ValueError,
        "records[0]",
        from_records,
        [{"ID": 1, "Question": "q", "Options": ["a", "b"], "Answer": "Z"}],
    )
