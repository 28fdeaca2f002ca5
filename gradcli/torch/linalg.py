"""`torch.linalg`: thin fronts on the ops of gradcli.ops.linalg, under PyTorch's names, argument
checks and errors (loaded on first use of `torch.linalg`)."""
from __future__ import annotations

from ..engine import TensorBase
from ..engine import TorchLinAlgError as LinAlgError
from ..ops import linalg as _ops
from . import _signatures

__all__ = ["LinAlgError", "cross", "det", "inv", "matrix_norm", "matrix_power", "norm", "slogdet", "solve", "vector_norm"]


def inv(A):
    return _ops.inverse(A)


def cross(input, other, *, dim=-1):
    return _ops.linalg_cross(input, other, dim=dim)


def det(A):
    return _ops.det(A)


def matrix_power(input, n):
    return _ops.matrix_power(input, n)


def slogdet(A):
    return _ops.slogdet(A)


def solve(A, B, *, left=True):
    return _ops.solve(A, B, left)


def _number(ord):
    """An order given as a 0-d tensor: PyTorch's parser reads it as the number it holds."""
    return ord.item() if isinstance(ord, TensorBase) else ord


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _ops.vector_norm(x, _number(ord), dim, keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    return _ops.matrix_norm(A, _number(ord), dim, keepdim, dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    return _ops.linalg_norm(A, _number(ord), dim, keepdim, dtype)


_signatures.install(globals(), "linalg")
