"""embedding (torch.nn.functional's sparse functions)."""
from __future__ import annotations

import numpy as np

from ..engine import TorchIndexError, TorchRuntimeError
from .numeric import _SCALAR_NAME, _tensor_args
from .record import _begin, _record
from .table import ROWS


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if padding_idx is not None:
        n = weight._data.shape[0]
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    _tensor_args("embedding", weight=weight, indices=input)
    idx = input._data
    if idx.dtype.kind not in "iu":
        raise TorchRuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar "
                                f"types: Long, Int; but got torch.{_SCALAR_NAME[idx.dtype.name]}Tensor instead "
                                "(while checking arguments for embedding)")
    n = weight._data.shape[0]
    if ((idx < 0) | (idx >= n)).any():
        raise TorchIndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    out = weight._data[idx.astype(np.int64)]
    return _record(ROWS["embedding"], _begin(weight), out, (weight,), extra={"indices": input},
                   attrs={"padding_idx": padding_idx, "scale_grad_by_freq": bool(scale_grad_by_freq),
                          "sparse": bool(sparse), "weight_sym_argsize_0": n})


def _embedding_renorm_(weight, idx, max_norm, norm_type):
    """embedding_renorm_: rows looked up whose norm exceeds max_norm are scaled down in place."""
    w = weight._data
    for i in np.unique(idx.reshape(-1)):
        norm = np.linalg.norm(w[i].astype(np.float64), ord=norm_type)
        if norm > max_norm:
            w[i] *= w.dtype.type(max_norm / (norm + 1e-7))
    weight._version_counter.bump()
