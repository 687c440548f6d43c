"""Shared fixtures: a tiny corpus and a briefly trained GRU generator (seconds)."""

import adacom
import pytest
import torch

torch.set_num_threads(1)  # the CI machine has 2 cores shared by several jobs


@pytest.fixture(scope="session")
def corpus():
    return adacom.make_corpus({"A": 60, "B": 90}, cue=0.6, rng=0)


@pytest.fixture(scope="session")
def gru(corpus):
    torch.manual_seed(0)
    g = adacom.GRUCommentGenerator(corpus.codes, corpus.comments, embed=16, hidden=32)
    adacom.train_generator(g, corpus.codes, corpus.comments, epochs=3, batch_size=32, lr=1e-2)
    return g
