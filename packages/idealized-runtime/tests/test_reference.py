"""The shipped tables against the paper's table of models (transcribed independently here)."""

import idealized_runtime as ir
import pytest

# HELM name: (beta, alpha(1), alpha(512), alpha(1024), alpha(1920), denoised beta or None), from
# the paper's table (A100-80GB); the package's tables come from HELM's JSON.
PAPER = {
    "openai/davinci": (0.081, 0.084, 0.178, 0.323, 0.597, 0.030),
    "ai21/j1-large": (0.024, 0.027, 0.047, 0.089, 0.167, 0.016),
    "ai21/j1-grande": (0.038, 0.041, 0.097, 0.190, 0.380, 0.021),
    "ai21/j1-jumbo": (0.064, 0.069, 0.164, 0.310, 0.603, 0.042),
    "cohere/xlarge-20220609": (0.054, 0.055, 0.108, 0.189, 0.342, 0.040),
    "anthropic/stanford-online-all-v4-s3": (0.054, 0.055, 0.108, 0.189, 0.342, 0.057),
    "microsoft/TNLGv2_530B": (0.123, 0.125, 0.490, 0.951, 1.852, None),
    "huggingface/gptj_6b": (0.021, 0.023, 0.042, 0.076, 0.142, None),
    "together/yalm": (0.068, 0.071, 0.284, 0.527, 1.006, None),
    "together/bloom": (0.061, 0.068, 0.191, 0.347, 0.669, None),
}


@pytest.mark.parametrize("name", sorted(PAPER))
def test_tables_match_the_paper(name):
    beta, a1, a512, a1024, a1920, den = PAPER[name]
    m = ir.REFERENCE_A100[name]
    assert m.beta == beta
    assert (m.alpha[1], m.alpha[512], m.alpha[1024], m.alpha[1920]) == (a1, a512, a1024, a1920)
    assert max(m.alpha) == 1920 and len(m.alpha) == 27
    if den is not None:
        assert ir.REFERENCE_DENOISED[name].beta == den
    else:
        assert name not in ir.REFERENCE_DENOISED


def test_models_table():
    d = ir.REFERENCE_MODELS["openai/davinci"]
    assert (d.hidden_size, d.num_layers, d.num_heads, d.n_a100, d.n_v100) == (12288, 96, 96, 8, 16)
    assert d["n_a100"] == 8 and "hidden_size" in d.keys()
    assert ir.REFERENCE_MODELS["microsoft/TNLGv2_530B"].n_a100 == 24
    assert set(ir.REFERENCE_MODELS) <= set(ir.REFERENCE_A100)
    with pytest.raises(KeyError):
        d["nope"]
    assert len(ir.HELM_COMMIT) == 40
