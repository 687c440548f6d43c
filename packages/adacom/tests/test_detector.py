"""CompromiseDetector and compromise_labels."""

import adacom
import numpy as np
import pytest
from adacom import CompromiseDetector, auroc, compromise_labels
from adacom.detector import FEATURES


def test_labels_are_below_the_median_bleu(corpus, gru):
    test = adacom.make_corpus({"A": 20, "B": 20}, cue=0.6, rng=2)
    y = compromise_labels(gru, test.codes, test.comments)
    hyps = gru.generate(list(test.codes))
    b = np.array([adacom.bleu4(h, r) for h, r in zip(hyps, test.comments)])
    np.testing.assert_array_equal(y, (b < np.median(b)).astype(int))


def test_detector_features_and_logistic_fit(corpus, gru):
    det = CompromiseDetector(gru, corpus.codes, corpus.comments, k=4)
    val = adacom.make_corpus({"A": 20, "B": 20}, cue=0.6, rng=4)
    X = det.features(val.codes)
    assert X.shape == (40, len(FEATURES)) and np.isfinite(X).all()
    # the contradiction column is the function applied to the top-4 comments
    idx, _ = det.retriever.query(val.codes[0], 4)
    assert X[0, 3] == pytest.approx(adacom.contradiction([corpus.comments[i] for i in idx]))
    # labels that are a threshold of one feature are learnt (AUROC near 1 on the fit data)
    y = (X[:, 4] > np.median(X[:, 4])).astype(int)
    det.fit(val.codes, y)
    p = det.predict_proba(val.codes)
    assert p.shape == (40,) and ((0 < p) & (p < 1)).all()
    assert auroc(p, y) > 0.95
    assert det(val.codes[0]) == pytest.approx(p[0])


def test_unfitted_detector_raises(corpus, gru):
    with pytest.raises(RuntimeError, match="fit"):
        CompromiseDetector(gru, corpus.codes, corpus.comments).predict_proba(corpus.codes[:2])
