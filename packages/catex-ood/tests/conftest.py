"""One torch thread: the development machine has 2 cores shared by many processes."""

import torch

torch.set_num_threads(1)
