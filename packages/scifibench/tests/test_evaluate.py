"""evaluate, the prompts, the CLIP-style solver and the alignment probe, with scripted models."""

import dataclasses

import numpy as np
import pytest
from scifibench import (
    ChatSolver,
    ClipStyleSolver,
    LLMChatModel,
    LLMExtractor,
    Question,
    ScriptedLLM,
    augment,
    build_prompt,
    evaluate,
    from_records,
    joint_embedding,
    knn_negatives,
    make_questions,
    random_negatives,
    shuffle_options,
    synthetic_world,
)
from scifibench.alignment import IGNORE_SENTENCE, MARK, MARKED_SENTENCE


def _questions(n=40, task="fig2cap", seed=0):
    captions = [f"caption {i}" for i in range(n)]
    figures = [f"fig{i}" for i in range(n)]
    qs = make_questions(captions, figures, random_negatives(n, rng=seed), task=task, rng=seed)
    cats = ["cs.LG", "cs.CV", "other cs"]
    return [dataclasses.replace(q, category=cats[i % 3]) for i, q in enumerate(qs)]


class AlwaysB:
    """Answers B, verbosely, whatever it is shown."""

    def __init__(self):
        self.prompts = []

    def generate(self, parts):
        self.prompts.append(parts)
        return "Let's think step by step. Option A has the wrong axes... The answer is B."


def test_always_b_scores_the_fraction_of_b_answers():
    qs = _questions()
    model = AlwaysB()
    r = evaluate(model, qs)
    want = np.mean([q.answer == "B" for q in qs])
    assert r.accuracy == want and r.n_unparsed == 0
    assert r.predictions == ("B",) * len(qs)
    for cat in ("cs.LG", "cs.CV", "other cs"):
        sub = [q for q in qs if q.category == cat]
        assert r.per_category[cat] == np.mean([q.answer == "B" for q in sub])
    assert model.prompts[0] == build_prompt(qs[0])


def test_shuffling_changes_the_accuracy_of_a_position_biased_model():
    qs = _questions(n=60)
    r = evaluate(AlwaysB(), qs, n_shuffles=8, rng=0)
    assert len(r.shuffle_accuracies) == 8
    assert len(set(r.shuffle_accuracies)) > 1
    assert r == evaluate(AlwaysB(), qs, n_shuffles=8, rng=0)  # seeded


def test_unparsed_replies_count_as_wrong():
    qs = _questions(n=6)
    replies = [f"The answer is {qs[0].answer}", "I cannot tell", "A or B", "", "hmm", "no idea"]
    r = evaluate(ScriptedLLM(replies), qs)
    assert r.n_unparsed == 5
    assert r.correct == (True, False, False, False, False, False)
    assert r.accuracy == pytest.approx(1 / 6)


def test_scripted_llm_records_calls_and_chat_adapter():
    llm = ScriptedLLM(["C", "D"])
    chat = LLMChatModel(llm)
    assert chat.generate(["x"]) == "C"
    assert llm.calls[0] == {
        "messages": [{"role": "user", "content": ["x"]}],
        "n": 1,
        "temperature": 0.0,
    }
    assert llm.complete([{"role": "user", "content": "y"}], n=1, temperature=0.0) == ["D"]
    with pytest.raises(RuntimeError, match="ran out"):
        llm.complete([], n=1, temperature=0.0)


def test_answer_models_are_used_when_there_is_no_generate():
    class Oracle:
        def answer(self, q):
            return q.answer

    class Never:
        def answer(self, q):
            return None

    qs = _questions(n=10)
    assert evaluate(Oracle(), qs).accuracy == 1.0
    r = evaluate(Never(), qs)
    assert r.accuracy == 0.0 and r.n_unparsed == 10


def test_fig2cap_prompt_is_the_paper_template():
    q = _questions(n=6)[0]
    parts = build_prompt(q)
    assert parts[0] == q.images[0] and len(parts) == 2
    lines = parts[1].split("\n")
    assert lines[:5] == [f"{L}) {o}" for L, o in zip("ABCDE", q.options)]
    assert lines[5] == (
        "Which of the captions best describes the image? Let's think step by step. "
        "Only provide the letter of the correct caption as your answer. Answer:"
    )


def test_cap2fig_prompt_interleaves_letters_and_images():
    q = _questions(n=6, task="cap2fig")[0]
    parts = build_prompt(q)
    assert parts[0::2][:5] == ["A) ", "\nB) ", "\nC) ", "\nD) ", "\nE) "]
    assert list(parts[1::2]) == list(q.images)
    assert parts[-1].startswith(f"\n{q.caption}\nWhich of the images best matches the caption?")
    assert parts[-1].endswith("correct image as your answer. Answer:")
    assert "step by step" not in build_prompt(q, style="direct")[-1]


def test_shuffle_options_keeps_the_answer_on_the_true_item():
    for task in ("fig2cap", "cap2fig"):
        for q in _questions(n=10, task=task):
            s = shuffle_options(q, rng=q.qid)
            assert s.option_ids[s.answer_index] == q.option_ids[q.answer_index]
            if task == "fig2cap":
                assert s.options[s.answer_index] == q.options[q.answer_index]
            else:
                assert s.images[s.answer_index] == q.images[q.answer_index]


@pytest.mark.parametrize("task", ["fig2cap", "cap2fig"])
def test_clip_solver_picks_the_highest_cosine(task):
    w = synthetic_world(5, 6, rng=0)
    neg = random_negatives(len(w.captions), rng=0)
    solver = ClipStyleSolver(w.encoder())
    for q in make_questions(w.captions, w.figures, neg, task=task, rng=0):
        if task == "fig2cap":
            s = [w.image_emb[q.images[0]] @ w.text_emb[j] for j in q.option_ids]
        else:
            s = [w.text_emb[q.qid] @ w.image_emb[j] for j in q.option_ids]
        assert solver.answer(q) == "ABCDE"[int(np.argmax(s))]
        np.testing.assert_allclose(solver.scores(q), s, rtol=1e-12)


def test_mined_negatives_are_harder_for_a_clip_style_solver():
    # the brief's synthetic world (scaled down); the full size runs in reproduce.py
    w = synthetic_world(50, 12, rng=0)
    X = joint_embedding(w.image_emb, w.text_emb)
    solver = ClipStyleSolver(w.encoder())
    acc = {}
    for name, neg in (
        ("random", random_negatives(len(X), rng=1)),
        ("mined", knn_negatives(X)),
    ):
        qs = make_questions(w.captions, w.figures, neg, task="fig2cap", rng=2)
        acc[name] = evaluate(solver, qs).accuracy
    assert acc["random"] > 0.97
    assert acc["random"] - acc["mined"] >= 0.10


def test_augment_marks_exactly_one_option():
    for q in _questions(n=20):
        t = augment(q, mark="true")
        assert [MARK in o for o in t.options].count(True) == 1
        assert t.options[t.answer_index] == f"{MARK} {q.options[q.answer_index]}"
        assert MARKED_SENTENCE in t.question and IGNORE_SENTENCE not in t.question
        w = augment(q, mark="wrong", instruct_ignore=True, rng=q.qid)
        marked = [k for k, o in enumerate(w.options) if MARK in o]
        assert len(marked) == 1 and marked[0] != w.answer_index
        assert w.question.endswith(f"{MARKED_SENTENCE} {IGNORE_SENTENCE}")
        assert w.answer == q.answer and w.option_ids == q.option_ids


def test_augment_wrong_mark_is_uniform_over_wrong_options():
    q = _questions(n=5)[0]
    counts = np.zeros(5)
    for s in range(1000):
        a = augment(q, mark="wrong", rng=s)
        counts[[MARK in o for o in a.options].index(True)] += 1
    assert counts[q.answer_index] == 0
    wrong = np.delete(counts, q.answer_index)
    chi2 = (((wrong - 250) ** 2) / 250).sum()
    assert chi2 < 17.7  # 3 dof, p < 0.0005


def test_question_is_frozen_with_fields_in_order():
    names = [f.name for f in dataclasses.fields(Question)]
    assert names == [
        "qid",
        "task",
        "question",
        "options",
        "answer",
        "images",
        "option_ids",
        "caption",
        "category",
    ]
    q = _questions(n=6)[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.answer = "A"


def test_question_accepts_string_ids_and_missing_extras():
    q = Question("q-7", "fig2cap", "Which?", ["a", "b", "c"], "C", None, None, None, None)
    assert q.qid == "q-7" and q.images == () and q.option_ids == () and q.category == ""
    assert q.options == ("a", "b", "c") and q.answer_index == 2 and q.n_options == 3


def test_from_records_reads_released_rows():
    rows = [
        {
            "ID": 40,
            "Question": "Which caption best matches the image?",
            "Options": ["A)  ber vs snr", "B)  loss", "C)  acc", "D)  ber 16 qam", "E)  bpsk"],
            "Answer": "D",
            "Category": "other cs",
            "Images": ["img"],
        },
        {
            "ID": 3,
            "Question": "Caption: the loss curve. Which figure best matches the caption?",
            "Options": ["A) ", "B) ", "C) ", "D) ", "E) "],
            "Answer": "A",
            "Category": "cs.LG",
            "Images": [1, 2, 3, 4, 5],
        },
    ]
    a, b = from_records(rows)
    assert a.task == "fig2cap" and a.options[3] == "ber 16 qam" and a.answer == "D"
    assert b.task == "cap2fig" and b.caption == "the loss curve." and b.images == (1, 2, 3, 4, 5)
    assert b.question == "Which figure best matches the caption?"
    with pytest.raises(ValueError, match="records\\[0\\]"):
        from_records([{"ID": 1}])


def test_chat_solver_uses_the_llm_judge_only_when_the_rules_fail():
    qs = _questions(n=6)[:4]
    chat = ScriptedLLM(["The answer is A", "hmm, the second one", "I pick (C)", "no idea"])
    judge = ScriptedLLM(["B", "None"])
    solver = ChatSolver(chat, extractor=LLMExtractor(judge))
    r = evaluate(solver, qs)
    assert r.predictions == ("A", "B", "C", None)
    assert r.n_unparsed == 1 and len(judge.calls) == 2
    assert solver.replies[1] == "hmm, the second one"
    assert "hmm, the second one" in judge.calls[0]["messages"][0]["content"]


def test_evaluate_accepts_a_generator_of_questions():
    qs = _questions(n=5)
    assert evaluate(AlwaysB(), (q for q in qs)).accuracy == evaluate(AlwaysB(), qs).accuracy
