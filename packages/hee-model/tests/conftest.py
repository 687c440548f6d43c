import pytest
import torch


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    torch.set_num_threads(1)  # tiny tensors: intra-op threads only contend on a loaded machine
    yield
