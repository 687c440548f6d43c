import os

# numpy's BLAS threads only spin on a shared 2-core machine (set before numpy loads it)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
import torch  # noqa: E402

# tiny models: threads only add contention on a shared 2-core machine
torch.set_num_threads(1)


@pytest.fixture
def llama():
    from papershelf_harness.tiny_hf import tiny_causal_lm

    return tiny_causal_lm("llama", n_layers=2, seed=0, vocab=64)


@pytest.fixture
def ids():
    return torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(1))
