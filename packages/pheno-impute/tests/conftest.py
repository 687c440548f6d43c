"""One thread per process: the CI machines are shared, and oversubscribed BLAS/OpenMP threads
make the small torch and k-means steps here many times slower."""

import torch
from threadpoolctl import threadpool_limits

torch.set_num_threads(1)
_LIMITS = threadpool_limits(1)
