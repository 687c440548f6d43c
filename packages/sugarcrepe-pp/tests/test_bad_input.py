"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below
for the rules the kinds do not cover (category lists, encoders, text lists, paths).
"""

import numpy as np
import pytest
from sugarcrepe_pp import (
    BagOfWordsEncoder,
    ImageFolder,
    SentenceTransformerEncoder,
    cosine,
    dataset_stats,
    evaluate,
    evaluate_triplets,
    itt_correct,
    jaccard,
    load_triplets,
    tokenize,
    tot_correct,
)
from sugarcrepe_pp.data import CATEGORIES

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

V3 = np.array([0.3, 0.2, 0.1])
M = np.ones((2, 3))
BOW = BagOfWordsEncoder(vocabulary=["a", "b"])
FEW = load_triplets("swap_obj")[:2]


def _options(valid):
    return frozenset(valid)


CASES = [
    suite.Array(
        "tot_correct.s12",
        "s12",
        lambda v: tot_correct(v, V3, V3),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Array(
        "tot_correct.s1n",
        "s1n",
        lambda v: tot_correct(V3, v, V3),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Array(
        "tot_correct.s2n",
        "s2n",
        lambda v: tot_correct(V3, V3, v),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Array(
        "itt_correct.si1",
        "si1",
        lambda v: itt_correct(v, V3, V3),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Array(
        "itt_correct.si2",
        "si2",
        lambda v: itt_correct(V3, v, V3),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Array(
        "itt_correct.sin",
        "sin",
        lambda v: itt_correct(V3, V3, v),
        (3,),
        ndims=(0, 1),
        empty_ok=True,
    ),
    suite.Mismatch("tot_correct.lengths", "s2n", lambda: tot_correct(V3, V3, V3[:2])),
    suite.Mismatch("itt_correct.lengths", "si2", lambda: itt_correct(V3, V3[:1], V3)),
    suite.Array("cosine.a", "a", lambda v: cosine(v, M), (2, 3), ndims=(1, 2)),
    suite.Array("cosine.b", "b", lambda v: cosine(M, v), (2, 3), ndims=(1, 2)),
    suite.Mismatch("cosine.shapes", "b", lambda: cosine(M, np.ones((3, 3)))),
    suite.Number("cosine.eps", "eps", lambda v: cosine(M, M, eps=v)),
    suite.OutOfRange(
        "cosine.eps.range",
        "eps",
        lambda v: cosine(M, M, eps=v),
        values=__import__("hypothesis").strategies.floats(max_value=0.0, allow_nan=False),
    ),
    suite.Option(
        "load_triplets.categories",
        "categories",
        lambda v: load_triplets(v),
        valid=_options(CATEGORIES),
        strings_only=False,
    ),
    suite.Option(
        "dataset_stats.categories",
        "categories",
        lambda v: dataset_stats(v),
        valid=_options(CATEGORIES),
        strings_only=False,
    ),
    suite.Option(
        "evaluate.categories",
        "categories",
        lambda v: evaluate(BOW, categories=v),
        valid=_options(CATEGORIES),
        strings_only=False,
    ),
    suite.Option(
        "evaluate.tasks",
        "tasks",
        lambda v: evaluate(BOW, categories="swap_obj", tasks=v),
        valid=_options(("tot",)),
        strings_only=False,
    ),
    suite.Int(
        "evaluate.batch_size",
        "batch_size",
        lambda v: evaluate_triplets(FEW, BOW, batch_size=v),
        minimum=1,
    ),
    suite.Flag(
        "evaluate.exclude_degenerate",
        "exclude_degenerate",
        lambda v: evaluate_triplets(FEW, BOW, exclude_degenerate=v),
    ),
    suite.Int(
        "SentenceTransformerEncoder.batch_size",
        "batch_size",
        lambda v: SentenceTransformerEncoder(object(), batch_size=v),
        minimum=1,
    ),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize(
    "value, exc",
    [
        ([], ValueError),
        (["swap_obj", "swap_obj"], ValueError),
        (["swap_obj", 3], TypeError),
        (3.5, TypeError),
        (5, TypeError),
        (b"swap_obj", TypeError),
        ({"swap_obj": 1}, TypeError),
    ],
    ids=repr,
)
def test_category_lists(value, exc):
    assert_rejects(exc, "categories", load_triplets, value)


def test_tasks_lists():
    assert_rejects(ValueError, "tasks", evaluate_triplets, FEW, BOW, tasks=())
    assert_rejects(ValueError, "tasks", evaluate_triplets, FEW, BOW, tasks=("tot", "tot"))
    assert_rejects(ValueError, "tasks", evaluate_triplets, FEW, BOW, tasks=("tot", "ITT"))
    assert_rejects(TypeError, "tasks", evaluate_triplets, FEW, BOW, tasks=None)
    assert_rejects(TypeError, "tasks", evaluate_triplets, FEW, BOW, tasks=5)
    assert_rejects(TypeError, "tasks", evaluate_triplets, FEW, BOW, tasks=("tot", 5))


def test_root_and_paths(tmp_path):
    assert_rejects(TypeError, "root", load_triplets, root=3)
    assert_rejects(ValueError, "root", load_triplets, root=tmp_path / "nope")
    assert_rejects(TypeError, "root", ImageFolder, None)
    assert_rejects(ValueError, "root", ImageFolder, tmp_path / "nope")


def test_encoders_and_sources():
    assert_rejects(TypeError, "text_encoder", evaluate, object(), categories="swap_obj")
    assert_rejects(TypeError, "text_encoder", evaluate_triplets, FEW, "bow")
    assert_rejects(TypeError, "image_encoder", evaluate_triplets, FEW, BOW, image_encoder=object())
    assert_rejects(TypeError, "image_source", evaluate_triplets, FEW, BOW, image_source="folder")
    assert_rejects(TypeError, "model", SentenceTransformerEncoder, 3)


def test_triplet_lists():
    assert_rejects(ValueError, "triplets", evaluate_triplets, [], BOW)
    assert_rejects(TypeError, "triplets", evaluate_triplets, FEW[0], BOW)
    assert_rejects(TypeError, "triplets[1]", evaluate_triplets, [FEW[0], "x"], BOW)
    assert_rejects(ValueError, "triplets[1]", evaluate_triplets, [FEW[0], FEW[0]], BOW)


def test_texts_and_vocabularies():
    assert_rejects(TypeError, "texts", BOW.encode_text, "a b")
    assert_rejects(ValueError, "texts", BOW.encode_text, [])
    assert_rejects(TypeError, "texts[1]", BOW.encode_text, ["a", None])
    assert_rejects(TypeError, "text", tokenize, 3)
    assert_rejects(TypeError, "vocabulary", BagOfWordsEncoder, vocabulary="ab")
    assert_rejects(ValueError, "vocabulary", BagOfWordsEncoder, vocabulary=[])
    assert_rejects(ValueError, "vocabulary", BagOfWordsEncoder, vocabulary=["a", "a"])
    assert_rejects(ValueError, "vocabulary[0]", BagOfWordsEncoder, vocabulary=["A b"])
    assert_rejects(TypeError, "vocabulary[1]", BagOfWordsEncoder, vocabulary=["a", 2])
    assert_rejects(TypeError, "a", jaccard, None, "x")
    assert_rejects(ValueError, "b", jaccard, "x", "")
