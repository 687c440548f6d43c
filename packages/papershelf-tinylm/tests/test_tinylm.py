"""papershelf-tinylm: tokenizer round trip, cache keys, safetensors round trip, training works.

Models are cached in one directory per test run (tests/conftest.py), so the micro pair the README
example trains is loaded, not retrained, here and by reproduce.py --quick.
"""

import ast
import hashlib
import inspect
import json
import math
import textwrap

import numpy as np
import pytest
import torch

import papershelf_tinylm as tl
from papershelf_tinylm import data, models


def test_tokenizer_round_trip_and_specials():
    tok = tl.ByteTokenizer()
    text = "def f(x):\n    return 'héllo' + \"\\n\"  # ünïcode ✓"
    ids = tok.encode(text)
    assert ids[0] == tl.BOS_ID and all(0 <= i < 256 for i in ids[1:])
    assert ids[1:] == list(text.encode("utf-8"))
    assert tok.decode(ids) == text
    assert tok.decode([tl.BOS_ID, 104, tl.EOS_ID], skip_special_tokens=False) == "<bos>h<eos>"
    batch = tok(["ab", "abcd"], return_tensors="np")
    assert batch["input_ids"].shape == (2, 5)
    assert batch["input_ids"][0, 0] == tl.PAD_ID and batch["attention_mask"][0].tolist() == [
        0,
        0,
        1,
        1,
        1,
    ]
    assert tok.batch_decode(batch["input_ids"]) == ["ab", "abcd"]
    pt = tok("x", return_tensors="pt")["input_ids"]
    assert isinstance(pt, torch.Tensor) and pt.tolist() == [[tl.BOS_ID, 120]]
    assert len(tok) == tl.VOCAB_SIZE == tok.vocab_size


def test_tokenizer_bad_input():
    with pytest.raises(TypeError, match="text"):
        tl.encode(b"bytes")
    with pytest.raises(ValueError, match="ids"):
        tl.decode([1000])
    with pytest.raises(ValueError, match="return_tensors"):
        tl.ByteTokenizer()("a", return_tensors="tf")


def test_corpus_is_deterministic_and_split_is_disjoint():
    train, held = tl.corpus("train"), tl.corpus("heldout")
    assert len(train) > 500_000 and len(held) > 50_000
    assert train[:2000].tobytes() not in held.tobytes()
    assert tl.corpus_digest() == tl.corpus_digest()
    a = tl.lm_batch(np.random.default_rng(3), 4, 32)
    b = tl.lm_batch(np.random.default_rng(3), 4, 32)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 32) and (a[:, 0] == tl.BOS_ID).all()
    with pytest.raises(ValueError, match="split"):
        tl.corpus("test")


def test_header_recall_batch_layout():
    x = tl.header_recall_batch(np.random.default_rng(0), 3, 96, key_len=6)
    assert x.shape == (3, 96)
    for row in x:
        text = tl.decode(row)
        assert text.startswith("# key: ")
        key = text[7:13]
        assert text.endswith(f"\n# key? {key}\n")
    with pytest.raises(ValueError, match="seq_len"):
        tl.header_recall_batch(np.random.default_rng(0), 1, 10)


def test_content_key_is_deterministic_and_sensitive():
    s = tl.model_spec("micro-target", seed=0)
    assert tl.content_key(s) == tl.content_key(tl.model_spec("micro-target", seed=0))
    assert tl.content_key(s) == tl.content_key(json.loads(json.dumps(s)))  # key order irrelevant
    others = [
        tl.model_spec("micro-target", seed=1),
        tl.model_spec("micro-draft", seed=0),
        tl.model_spec("micro-target", seed=0, task="header_recall"),
        tl.model_spec("micro-target", seed=0, num_hidden_layers=3),
        tl.model_spec(
            "micro-target", seed=0, train=tl.TrainSpec(steps=61, batch_size=8, seq_len=64)
        ),
    ]
    keys = {tl.content_key(o) for o in others} | {tl.content_key(s)}
    assert len(keys) == len(others) + 1
    assert len(tl.content_key(s)) == 64


TINY = tl.TrainSpec(steps=8, batch_size=4, seq_len=32, lr=5e-3, warmup=2)


def _no_training(*args, **kwargs):
    raise AssertionError("a cached model was retrained")


def test_training_is_seed_deterministic_and_cached(fresh_cache, monkeypatch):
    a = tl.train_model("micro-draft", seed=5, train=TINY)  # trains and writes the cache
    assert tl.is_cached("micro-draft", seed=5, train=TINY)
    assert not tl.is_cached("micro-draft", seed=6, train=TINY)
    b = tl.train_model("micro-draft", seed=5, train=TINY, cache=False)  # trains again
    c = tl.train_model("micro-draft", seed=6, train=TINY, cache=False)
    for (n, pa), pb in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(pa, pb), n
    assert not torch.equal(a.lm_head.weight, c.lm_head.weight)
    files = sorted(p.name for p in next(fresh_cache.iterdir()).iterdir())
    assert files == ["config.json", "model.safetensors", "spec.json"]  # no pickle anywhere
    monkeypatch.setattr(models, "_fit", _no_training)
    e = tl.train_model("micro-draft", seed=5, train=TINY)  # loads, never trains
    for pa, pe in zip(a.state_dict().values(), e.state_dict().values()):
        assert torch.equal(pa, pe)
    assert e.tinylm_spec == a.tinylm_spec


def test_save_load_round_trip_gives_identical_logits(tmp_path):
    m = tl.train_model(
        "micro-target", train=tl.TrainSpec(steps=2, batch_size=2, seq_len=16), cache=False
    )
    path = tl.save_model(m, tmp_path / "m")
    m2 = tl.load_saved(path)
    for (n, p), p2 in zip(m.state_dict().items(), m2.state_dict().values()):
        assert torch.equal(p, p2), n
    x = torch.tensor([tl.encode("import os\n", add_bos=True)])
    with torch.no_grad():
        torch.testing.assert_close(m(x).logits, m2(x).logits, rtol=0, atol=0)
    with pytest.raises(FileNotFoundError):
        tl.load_saved(tmp_path / "missing")


def test_trained_target_beats_uniform_and_draft_on_heldout():
    # same data, same steps: 2 layers x 64 wide vs 1 layer x 32 wide (the micro pair, cached:
    # the README example trained it)
    target, draft, tok = tl.load_pair(micro=True)
    lt, ld = tl.heldout_loss(target), tl.heldout_loss(draft)
    assert lt < ld < math.log(256)
    assert lt < 0.75 * math.log(256)
    assert isinstance(tok, tl.ByteTokenizer)
    assert target.tinylm_spec["name"] == "micro-target" and draft.tinylm_spec["seed"] == 0


def test_load_pair_defaults_and_keyword_only_options():
    spec = tl.model_spec("target", seed=0)
    assert spec["train"] == tl.TrainSpec(steps=300).__dict__
    assert spec["config"]["num_hidden_layers"] == 4
    assert tl.model_spec("draft")["config"]["num_hidden_layers"] == 1
    with pytest.raises(TypeError):
        tl.load_pair(0)  # seed is keyword-only since 0.2.0


def test_custom_batch_fn_hook():
    calls = []

    def constant(rng, b, t):
        calls.append((b, t))
        return np.full((b, t), 65, dtype=np.int64)

    spec = tl.TrainSpec(steps=25, batch_size=2, seq_len=8, lr=1e-2, warmup=1)
    m = tl.train_model("micro-draft", train=spec, batch_fn=constant, data_key="all-A", cache=False)
    assert calls == [(2, 8)] * 25
    with torch.no_grad():
        probs = m(torch.tensor([[65, 65, 65]])).logits[0, -1].softmax(-1)
    assert probs[65] > 0.5  # it learned that "A" follows "A"
    bad = tl.TrainSpec(steps=1, batch_size=2, seq_len=8)
    with pytest.raises(ValueError, match="batch_fn"):
        tl.train_model(
            "micro-draft",
            train=bad,
            batch_fn=lambda r, b, t: np.zeros((1, 1)),
            data_key="x",
            cache=False,
        )


def _code_fingerprint(*functions) -> str:
    """SHA-256 of the functions' code, without docstrings, comments or formatting."""
    h = hashlib.sha256()
    for fn in functions:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(body, list)
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
        h.update(ast.unparse(tree).encode())
    return h.hexdigest()


# The code that decides a trained model's weights and is not part of the content key's data.
# Changing any of it must bump models.FORMAT_VERSION (so cached models are retrained), then the
# fingerprint here is updated to the new one.
TRAINING_CODE = (
    models._new_model,
    models._lr_at,
    models._fit,
    models._train,
    data._stdlib_files,
    data._is_heldout,
    data._corpus,
    data.lm_batch,
    data.header_recall_batch,
)
FINGERPRINTS = {1: "39d263bd76ac9ab0ad72ed57f39c8f52df5bd7118f887c322f6758863e0d7d17"}


def test_training_code_changes_bump_the_format_version():
    got = _code_fingerprint(*TRAINING_CODE)
    want = FINGERPRINTS.get(models.FORMAT_VERSION)
    assert got == want, (
        f"the training code changed (fingerprint {got}): bump FORMAT_VERSION in models.py so the "
        "content key changes and cached models are retrained, then record the new fingerprint"
    )


def test_cache_key_covers_the_versions_that_change_a_model():
    spec = tl.model_spec("micro-draft")
    assert set(spec["versions"]) == {"torch", "transformers", "numpy"}
    assert {"format", "config", "train", "task", "data_key", "corpus_sha256", "seed"} <= set(spec)
    for field in ("torch", "transformers", "numpy"):
        other = json.loads(json.dumps(spec))
        other["versions"][field] = "0.0"
        assert tl.content_key(other) != tl.content_key(spec)
    custom = tl.model_spec("micro-draft", data_key="mine-v1")
    assert tl.content_key(custom) != tl.content_key(
        tl.model_spec("micro-draft", data_key="mine-v2")
    )


@pytest.mark.slow
def test_default_architectures_train_cache_and_reload(monkeypatch):
    """The 4-layer target and 1-layer draft of load_pair() build, learn, are written to the cache
    and load back without retraining, on a short recipe (seconds, not the pair's 300 x 16 x 128
    steps; the trained pair's quality is reproduce.py's first claim)."""
    short = tl.TrainSpec(steps=40, batch_size=8, seq_len=64, lr=5e-3, warmup=4)
    target = tl.train_model("target", train=short)
    draft = tl.train_model("draft", train=short)
    assert target.config.num_hidden_layers == 4 and draft.config.num_hidden_layers == 1
    assert target.config.hidden_size == draft.config.hidden_size == 128
    lt, ld = tl.heldout_loss(target, n_seqs=8), tl.heldout_loss(draft, n_seqs=8)
    assert max(lt, ld) < 0.8 * math.log(256), (lt, ld)  # both learned something in 40 steps
    monkeypatch.setattr(models, "_fit", _no_training)
    again = tl.train_model("target", train=short)
    for p, p2 in zip(target.state_dict().values(), again.state_dict().values()):
        assert torch.equal(p, p2)
