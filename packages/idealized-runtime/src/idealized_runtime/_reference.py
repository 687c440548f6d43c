"""Shipped reference data: HELM's cost tables and the paper's table of model shapes."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._cost_model import load_helm_json
from ._reference_data import DENOISED_JSON, HELM_COMMIT, IDEALIZED_JSON

__all__ = ["HELM_COMMIT", "REFERENCE_A100", "REFERENCE_DENOISED", "REFERENCE_MODELS", "ModelSpec"]

#: Idealized runtime on A100-80GB (Megatron-LM, fp16, batch 1), one CostModel per HELM name.
REFERENCE_A100: dict = load_helm_json(IDEALIZED_JSON)
#: Denoised API runtime (minimum over repeated requests), one CostModel per HELM name.
REFERENCE_DENOISED: dict = load_helm_json(DENOISED_JSON)


@dataclass(frozen=True)
class ModelSpec:
    """A model's shape and accelerator count (the paper's Table of models, NeurIPS 2023).

    ``spec.hidden_size`` and ``spec["hidden_size"]`` both work.
    """

    name: str
    params: float  # parameters
    hidden_size: int
    num_layers: int
    num_heads: int
    n_a100: int  # A100-80GB GPUs, the minimum that holds the model
    n_v100: int  # V100 GPUs

    def __getitem__(self, key: str):
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def keys(self):
        return [f.name for f in fields(self)]


_ROWS = [
    # HELM name, params, h, layers, heads, A100s, V100s
    ("openai/davinci", 175e9, 12288, 96, 96, 8, 16),
    ("ai21/j1-large", 7.5e9, 4096, 32, 32, 1, 1),
    ("ai21/j1-grande", 17e9, 5120, 50, 40, 1, 2),
    ("ai21/j1-jumbo", 178e9, 13824, 76, 96, 8, 16),
    ("cohere/xlarge-20220609", 52e9, 8192, 64, 64, 4, 4),
    ("anthropic/stanford-online-all-v4-s3", 52e9, 8192, 64, 64, 4, 4),
    ("microsoft/TNLGv2_530B", 530e9, 20480, 105, 128, 24, 48),
    ("huggingface/gptj_6b", 6e9, 4096, 28, 16, 1, 1),
    ("gooseai/gpt-j-6b", 6e9, 4096, 28, 16, 1, 1),
    ("together/gpt-j-6b", 6e9, 4096, 28, 16, 1, 1),
    ("together/yalm", 100e9, 10240, 80, 128, 4, 8),
    ("together/bloom", 176e9, 14336, 70, 112, 8, 16),
]

#: {HELM name: ModelSpec} for the models of the paper's table (GPT-J under its three HELM names).
REFERENCE_MODELS: dict = {r[0]: ModelSpec(*r) for r in _ROWS}
