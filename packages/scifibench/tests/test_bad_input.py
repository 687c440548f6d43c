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
    suite.Int(
        "extract_letter.n_options",
        "n_options",
        lambda v: extract_letter("A", n_options=v),
        minimum=2,
    ),
    suite.Flag(
        "extract_letter.allow_lowercase",
        "allow_lowercase",
        lambda v: extract_letter("a", allow_lowercase=v),
    ),
    suite.Int(
        "LLMExtractor.n_options",
        "n_options",
        lambda v: LLMExtractor(ScriptedLLM(["A"]))("x", n_options=v),
        minimum=2,
    ),
    suite.Flag(
        "LLMExtractor.deterministic_first",
        "deterministic_first",
        lambda v: LLMExtractor(ScriptedLLM([]), deterministic_first=v),
    ),
    # bootstrap
    suite.Array(
        "bootstrap.correct", "correct", lambda v: bootstrap(v, n_boot=10), shape=(10,), ndims=(1,)
    ),
    suite.Int("bootstrap.n_boot", "n_boot", lambda v: bootstrap(CORRECT, n_boot=v), minimum=2),
    suite.Rng("bootstrap.rng", "rng", lambda v: bootstrap(CORRECT, n_boot=10, rng=v)),
    # curation
    suite.Array(
        "joint_embedding.img", "img", lambda v: joint_embedding(v, X), shape=(6, 3), ndims=(2,)
    ),
    suite.Array(
        "joint_embedding.txt", "txt", lambda v: joint_embedding(X, v), shape=(6, 3), ndims=(2,)
    ),
    suite.Mismatch("joint_embedding.txt", "txt", lambda: joint_embedding(X, X[:5])),
    suite.Array("knn_negatives.X", "X", lambda v: knn_negatives(v, k=1), shape=(6, 3), ndims=(2,)),
    suite.Int("knn_negatives.k", "k", lambda v: knn_negatives(X, k=v), minimum=1),
    suite.Number("knn_negatives.min_dist", "min_dist", lambda v: knn_negatives(X, k=1, min_dist=v)),
    suite.OutOfRange(
        "knn_negatives.min_dist",
        "min_dist",
        lambda v: knn_negatives(X, min_dist=v),
        _floats(hi=-1e-9),
    ),
    suite.Mismatch("knn_negatives.k>n-1", "k", lambda: knn_negatives(X, k=6)),
    suite.Int("random_negatives.n", "n", lambda v: random_negatives(v, k=1), minimum=2),
    suite.Int("random_negatives.k", "k", lambda v: random_negatives(6, k=v), minimum=1),
    suite.Mismatch("random_negatives.k>n-1", "k", lambda: random_negatives(6, k=6)),
    suite.Rng("random_negatives.rng", "rng", lambda v: random_negatives(6, rng=v)),
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
    suite.Option(
        "make_questions.task",
        "task",
        lambda v: make_questions(CAPS, FIGS, NEG, task=v),
        valid=frozenset({"fig2cap", "cap2fig"}),
    ),
    suite.Rng(
        "make_questions.rng",
        "rng",
        lambda v: make_questions(CAPS, FIGS, NEG, task="cap2fig", rng=v),
    ),
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
    suite.Int(
        "tiered_split.silver_size",
        "silver_size",
        lambda v: tiered_split(X[:, 0], [0], silver_size=v),
        minimum=0,
    ),
    suite.Mismatch("tiered_split.gold_ids", "gold_ids", lambda: tiered_split(X[:, 0], [9])),
    # questions, prompts, evaluation, alignment
    suite.Option(
        "Question.task",
        "task",
        lambda v: dataclasses.replace(Q, task=v),
        valid=frozenset({"fig2cap", "cap2fig"}),
    ),
    suite.Option(
        "Question.answer",
        "answer",
        lambda v: dataclasses.replace(Q, answer=v),
        valid=frozenset("ABC"),
    ),
    suite.Mismatch(
        "Question.option_ids", "option_ids", lambda: dataclasses.replace(Q, option_ids=(1, 2))
    ),
    suite.Mismatch("Question.images", "images", lambda: dataclasses.replace(Q2, images=(1, 2))),
    suite.Option(
        "build_prompt.style",
        "style",
        lambda v: build_prompt(Q, style=v),
        valid=frozenset({"cot", "direct"}),
    ),
    suite.Int(
        "evaluate.n_shuffles",
        "n_shuffles",
        lambda v: evaluate(Oracle(), [Q], n_shuffles=v),
        minimum=0,
    ),
    suite.Rng("evaluate.rng", "rng", lambda v: evaluate(Oracle(), [Q], n_shuffles=1, rng=v)),
    suite.Rng("shuffle_options.rng", "rng", lambda v: shuffle_options(Q, rng=v)),
    suite.Option(
        "augment.mark", "mark", lambda v: augment(Q, mark=v), valid=frozenset({"true", "wrong"})
    ),
    suite.Flag(
        "augment.instruct_ignore",
        "instruct_ignore",
        lambda v: augment(Q, mark="true", instruct_ignore=v),
    ),
    suite.Rng("augment.rng", "rng", lambda v: augment(Q, mark="wrong", rng=v)),
    suite.Option(
        "from_records.task",
        "task",
        lambda v: from_records([ROW], task=v),
        valid=frozenset({"fig2cap", "cap2fig"}),
    ),
    # LLM protocol and the synthetic world
    suite.Int(
        "ScriptedLLM.complete.n", "n", lambda v: ScriptedLLM(["a"]).complete([], n=v), minimum=1
    ),
    suite.Number(
        "ScriptedLLM.complete.temperature",
        "temperature",
        lambda v: ScriptedLLM(["a"]).complete([], temperature=v),
    ),
    suite.OutOfRange(
        "ScriptedLLM.complete.temperature",
        "temperature",
        lambda v: ScriptedLLM(["a"]).complete([], temperature=v),
        _floats(hi=-1e-9),
    ),
    suite.Number(
        "LLMChatModel.temperature",
        "temperature",
        lambda v: LLMChatModel(ScriptedLLM([]), temperature=v),
    ),
    suite.Int(
        "synthetic_world.n_clusters", "n_clusters", lambda v: synthetic_world(v, 2), minimum=1
    ),
    suite.Int(
        "synthetic_world.per_cluster", "per_cluster", lambda v: synthetic_world(2, v), minimum=1
    ),
    suite.Int("synthetic_world.dim", "dim", lambda v: synthetic_world(2, 2, dim=v), minimum=1),
    suite.Number(
        "synthetic_world.latent_noise",
        "latent_noise",
        lambda v: synthetic_world(2, 2, latent_noise=v),
    ),
    suite.Number(
        "synthetic_world.modality_noise",
        "modality_noise",
        lambda v: synthetic_world(2, 2, modality_noise=v),
    ),
    suite.OutOfRange(
        "synthetic_world.latent_noise",
        "latent_noise",
        lambda v: synthetic_world(2, 2, latent_noise=v),
        _floats(hi=-1e-9),
    ),
    suite.Rng("synthetic_world.rng", "rng", lambda v: synthetic_world(2, 2, rng=v)),
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
