import torch

# The models here are tiny: one thread avoids OpenMP spin-waiting on a shared 2-core machine.
torch.set_num_threads(1)
