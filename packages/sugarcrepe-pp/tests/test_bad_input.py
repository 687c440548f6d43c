"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below
for the rules the kinds do not cover (category lists, encoders, text lists, paths).
"""

import numpy as np
import pytest
from hypothesis import strategies as st
from sugarcrepe_pp import (
    BagOfWordsEncoder,
    ImageFolder,
    OpenCLIPEncoder,
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


def _positional(fn, names):
    """One Array case per positional score argument of ``fn`` (the others valid)."""

    def case(k, name):
        def call(v):
            return fn(*[v if i == k else V3 for i in range(len(names))])

        return suite.Array(f"{fn.__name__}.{name}", name, call, (3,), ndims=(0, 1), empty_ok=True)

    return [case(k, name) for k, name in enumerate(names)]


CATS = frozenset(CATEGORIES)
CASES = [
    *_positional(tot_correct, ("s12", "s1n", "s2n")),
    *_positional(itt_correct, ("si1", "si2", "sin")),
    suite.Mismatch("tot_correct.lengths", "s2n", lambda: tot_correct(V3, V3, V3[:2])),
    suite.Mismatch("itt_correct.lengths", "si2", lambda: itt_correct(V3, V3[:1], V3)),
    suite.Array("cosine.a", "a", lambda v: cosine(v, M), (2, 3), ndims=(1, 2)),
    suite.Array("cosine.b", "b", lambda v: cosine(M, v), (2, 3), ndims=(1, 2)),
    suite.Mismatch("cosine.shapes", "b", lambda: cosine(M, np.ones((3, 3)))),
    suite.keyword(suite.Number, cosine, "eps", M, M),
    suite.keyword(
        suite.OutOfRange,
        cosine,
        "eps",
        M,
        M,
        id="cosine.eps.range",
        values=st.floats(max_value=0.0, allow_nan=False),
    ),
    suite.Option(
        "load_triplets.categories", "categories", load_triplets, valid=CATS, strings_only=False
    ),
    suite.Option(
        "dataset_stats.categories", "categories", dataset_stats, valid=CATS, strings_only=False
    ),
    suite.keyword(suite.Option, evaluate, "categories", BOW, valid=CATS, strings_only=False),
    suite.keyword(
        suite.Option,
        evaluate_triplets,
        "tasks",
        FEW,
        BOW,
        valid=frozenset({"tot"}),
        strings_only=False,
    ),
    suite.keyword(suite.Int, evaluate_triplets, "batch_size", FEW, BOW, minimum=1),
    suite.keyword(suite.Flag, evaluate_triplets, "exclude_degenerate", FEW, BOW),
    suite.keyword(suite.Int, SentenceTransformerEncoder, "batch_size", object(), minimum=1),
]

globals().update(suite.bad_input_suite(CASES))


ROOT_MISSING = "/nonexistent/sugarcrepe-pp-root"
PLAIN = [  # (exception, name the message must hold, function, args, kwargs)
    *[
        (exc, "categories", load_triplets, (v,), {})
        for v, exc in [
            ([], ValueError),
            (["swap_obj", "swap_obj"], ValueError),
            (["swap_obj", 3], TypeError),
            (3.5, TypeError),
            (5, TypeError),
            (b"swap_obj", TypeError),
            ({"swap_obj": 1}, TypeError),
        ]
    ],
    *[
        (exc, "tasks", evaluate_triplets, (FEW, BOW), {"tasks": v})
        for v, exc in [
            ((), ValueError),
            (("tot", "tot"), ValueError),
            (("tot", "ITT"), ValueError),
            (None, TypeError),
            (5, TypeError),
            (("tot", 5), TypeError),
        ]
    ],
    (TypeError, "root", load_triplets, (), {"root": 3}),
    (ValueError, "root", load_triplets, (), {"root": ROOT_MISSING}),
    (TypeError, "root", ImageFolder, (None,), {}),
    (ValueError, "root", ImageFolder, (ROOT_MISSING,), {}),
    (TypeError, "text_encoder", evaluate, (object(),), {"categories": "swap_obj"}),
    (TypeError, "text_encoder", evaluate_triplets, (FEW, "bow"), {}),
    (TypeError, "image_encoder", evaluate_triplets, (FEW, BOW), {"image_encoder": object()}),
    (TypeError, "image_source", evaluate_triplets, (FEW, BOW), {"image_source": "folder"}),
    (TypeError, "model", SentenceTransformerEncoder, (3,), {}),
    (TypeError, "model_name", OpenCLIPEncoder, (3,), {}),
    (ValueError, "model_name", OpenCLIPEncoder, ("",), {}),
    (TypeError, "pretrained", OpenCLIPEncoder, ("ViT-S-32",), {"pretrained": 3}),
    (TypeError, "device", OpenCLIPEncoder, ("ViT-S-32",), {"device": None}),
    (TypeError, "filename", ImageFolder("."), (None,), {}),
    (ValueError, "triplets", evaluate_triplets, ([], BOW), {}),
    (TypeError, "triplets", evaluate_triplets, (FEW[0], BOW), {}),
    (TypeError, "triplets[1]", evaluate_triplets, ([FEW[0], "x"], BOW), {}),
    (ValueError, "triplets[1]", evaluate_triplets, ([FEW[0], FEW[0]], BOW), {}),
    (TypeError, "texts", BOW.encode_text, ("a b",), {}),
    (ValueError, "texts", BOW.encode_text, ([],), {}),
    (TypeError, "texts[1]", BOW.encode_text, (["a", None],), {}),
    (TypeError, "text", tokenize, (3,), {}),
    (TypeError, "vocabulary", BagOfWordsEncoder, (), {"vocabulary": "ab"}),
    (ValueError, "vocabulary", BagOfWordsEncoder, (), {"vocabulary": []}),
    (ValueError, "vocabulary", BagOfWordsEncoder, (), {"vocabulary": ["a", "a"]}),
    (ValueError, "vocabulary[0]", BagOfWordsEncoder, (), {"vocabulary": ["A b"]}),
    (TypeError, "vocabulary[1]", BagOfWordsEncoder, (), {"vocabulary": ["a", 2]}),
    (TypeError, "a", jaccard, (None, "x"), {}),
    (ValueError, "b", jaccard, ("x", ""), {}),
]


@pytest.mark.parametrize(
    "exc, name, fn, args, kwargs", PLAIN, ids=lambda v: getattr(v, "__name__", None)
)
def test_rules_the_case_kinds_do_not_cover(exc, name, fn, args, kwargs):
    assert_rejects(exc, name, fn, *args, **kwargs)
