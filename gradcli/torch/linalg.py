"""`torch.linalg`: thin fronts on the ops of gradcli.ops.linalg, under PyTorch's names, argument
checks and errors (loaded on first use of `torch.linalg`)."""
from __future__ import annotations

from ..engine import TorchLinAlgError as LinAlgError
from ..ops import linalg as _ops
from . import _signatures

__all__ = ["LinAlgError", "det", "inv", "matrix_power"]


def inv(A):
    return _ops.inverse(A)


def det(A):
    return _ops.det(A)


def matrix_power(input, n):
    return _ops.matrix_power(input, n)


_signatures.install(globals(), "linalg")
