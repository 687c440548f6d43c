import pytest
import scalegmn as S
import torch

# tiny tensors: one thread avoids OpenMP contention on shared cores (30x slower there)
torch.set_num_threads(1)

DIMS = (2, 4, 3, 1)


def random_mlp(dims=DIMS, batch=3, *, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    ws = [
        torch.randn(batch, dims[i], dims[i - 1], generator=g, dtype=dtype)
        for i in range(1, len(dims))
    ]
    bs = [torch.randn(batch, dims[i], generator=g, dtype=dtype) for i in range(1, len(dims))]
    return ws, bs


def gen(seed):
    return torch.Generator().manual_seed(seed)


def model(symmetry="sign", *, dims=DIMS, seed=0, **kw):
    torch.manual_seed(seed)
    kw.setdefault("d_hidden", 8)
    kw.setdefault("num_layers", 2)
    return S.ScaleGMN(dims, out_dim=3, symmetry=symmetry, **kw).double().eval()


@pytest.fixture
def mlp():
    return random_mlp()
