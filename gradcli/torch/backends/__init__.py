"""`torch.backends` as PyTorch's CPU build has it: the cuDNN, CUDA and MPS switches a training
script sets (they change nothing on the CPU), and which CPU libraries the build has."""
from . import cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.backends", name)
