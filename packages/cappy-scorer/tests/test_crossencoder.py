"""CappyScorer against the peer: sentence-transformers' CrossEncoder on the same saved model."""

import numpy as np
import pytest

from papershelf_harness.testing import assert_close

INSTR = ["the cat sat", "a dog ran fast", "yes", "copy this text please"]
RESP = ["on the mat", "no", "maybe maybe maybe maybe", "copy this text"]


def test_scores_match_crossencoder(scorer, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    import torch

    scorer.save_pretrained(tmp_path)
    pairs = list(zip(INSTR, RESP))
    ours = scorer.score(INSTR, RESP)
    raw = st.CrossEncoder(str(tmp_path), max_length=64, activation_fn=torch.nn.Identity())
    assert_close(np.asarray(raw.predict(pairs, batch_size=2)), ours, rtol=1e-4, atol=1e-6)
    # CrossEncoder's default for one label is a sigmoid on top of the same logit
    default = st.CrossEncoder(str(tmp_path), max_length=64)
    assert_close(np.asarray(default.predict(pairs)), 1 / (1 + np.exp(-ours)), rtol=1e-4)
