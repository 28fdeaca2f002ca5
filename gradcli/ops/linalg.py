"""Matrix products: matmul, mm, bmm, mv, dot, and the linear layers (addmm, linear, bilinear)."""
from __future__ import annotations

import builtins as _b

import numpy as np

from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError
from .numeric import _SCALAR_NAME, _same_dtype, _shape_str, _strides, _tensor_args, broadcast_shapes
from .record import FLOPS_PER_SECOND, _begin, _check_numel, _check_work, _numel, _record
from .formulas import _trilinear_np
from .table import ROWS, TABLE
from .views import _inplace
from .pointwise import add, clone
from .shape import _squeeze0_, _unsafe_view, expand, reshape, squeeze, t_, transpose, unsqueeze, view


def matmul(a, b):
    if not isinstance(a, TensorBase) or not isinstance(b, TensorBase):
        raise TorchTypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                             f"{type(b if isinstance(a, TensorBase) else a).__name__}")
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise TorchRuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 1 and db == 2:                    # PyTorch: a.unsqueeze(0).mm(b).squeeze_(0)
        return _squeeze0_(mm(unsqueeze(a, 0), b))
    return _batched_matmul(a, b)


def dot(a, b):
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise TorchRuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    if a._data.shape[0] != b._data.shape[0]:
        na, nb = a._data.shape[0], b._data.shape[0]
        raise TorchRuntimeError(f"inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the "
                                f"same number of elements, but got {na} and {nb} elements respectively")
    _same_dtype(a, b, "dot")
    seq = _begin(a, b)
    return _record(TABLE["dot"], seq, np.asarray(np.dot(a._data, b._data)), (a, b), extra={"tensor": b})


def mv(a, v):
    if a._data.ndim == 0:
        raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
    if a._data.ndim != 2 or v._data.ndim != 1:
        raise TorchRuntimeError(f"vector + matrix @ vector expected, got 1, {a._data.ndim}, {v._data.ndim}")
    if a._data.shape[1] != v._data.shape[0]:
        raise TorchRuntimeError(f"size mismatch, got input ({a._data.shape[0]}), mat ({_shape_str(a._data.shape)}), "
                                f"vec ({v._data.shape[0]})")
    _same_dtype(a, v, "mv")
    seq = _begin(a, v)
    return _record(TABLE["mv"], seq, a._data @ v._data, (a, v), extra={"vec": v})


def mm(a, b):
    if b._data.ndim != 2:
        raise TorchRuntimeError("mat2 must be a matrix")
    if a._data.ndim != 2:
        raise TorchRuntimeError("self must be a matrix")
    if a._data.shape[1] != b._data.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a._data.shape)} and "
                                f"{_shape_str(b._data.shape)})")
    _same_dtype(a, b, "mm")
    _check_numel(a._data.shape[0] * b._data.shape[1], a._data.itemsize)
    _check_work(2 * a._data.shape[0] * a._data.shape[1] * b._data.shape[1], FLOPS_PER_SECOND,
                f"a matrix product of {_shape_str(a._data.shape)} and {_shape_str(b._data.shape)}")
    seq = _begin(a, b)
    ra, rb = a.requires_grad, b.requires_grad
    attrs = {"mat2_sym_sizes": tuple(b._data.shape), "mat2_sym_strides": _strides(b) if rb else (),
             "self_sym_sizes": tuple(a._data.shape), "self_sym_strides": _strides(a) if ra else ()}
    return _record(TABLE["mm"], seq, a._data @ b._data, (a, b), extra={"mat2": b}, attrs=attrs)


def bmm(a, b):
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise TorchRuntimeError("batch1 must be a 3D tensor" if a._data.ndim != 3 else "batch2 must be a 3D tensor")
    if a._data.shape[0] != b._data.shape[0] or a._data.shape[2] != b._data.shape[1]:
        raise TorchRuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                                f"[{a._data.shape[0]}, {a._data.shape[2]}] but got: [{b._data.shape[0]}, {b._data.shape[1]}].")
    (n, m, k), p = a._data.shape, b._data.shape[2]
    _check_numel(n * m * p, a._data.itemsize)
    _check_work(2 * n * m * k * p, FLOPS_PER_SECOND,
                f"a batched matrix product of {_shape_str(a._data.shape)} and {_shape_str(b._data.shape)}")
    seq = _begin(a, b)
    return _record(TABLE["bmm"], seq, np.matmul(a._data, b._data), (a, b), extra={"mat2": b})


def _batched_matmul(a, b):
    """PyTorch's matmul for 3-D and more (_matmul_impl): fold the larger operand's batch into
    the rows of an mm or mv when should_fold says so; else expand both batches, reshape them
    to 3-D, bmm, and an unsafe view."""
    da, db = a._data.ndim, b._data.ndim
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    n = a._data.shape[-2] if da > 1 else 1
    m1 = a._data.shape[-1]
    batch1 = a._data.shape[:-2]
    m2 = b._data.shape[-2] if db > 1 else b._data.shape[0]
    p = b._data.shape[-1] if db > 1 else 1
    batch2 = b._data.shape[:-2]
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and a.requires_grad:     # broadcasting: fold instead (see should_fold)
            return matmul(squeeze(a, 0), b)
        if batch2[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    batch = broadcast_shapes(batch1, batch2)
    nb = _numel(batch)
    ea = reshape(expand(a, batch + (n, m1)), (nb, n, m1))
    if db == 1:                                  # a vector: a batch of one-column matrices
        eb = unsqueeze(reshape(expand(b, batch + (m2,)), (nb, m2)), 2)
        out = squeeze(bmm(ea, eb), -1)
    else:
        out = bmm(ea, reshape(expand(b, batch + (m2, p)), (nb, m2, p)))
    return _unsafe_view(out, batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ()))


def _should_fold(a, b):
    """PyTorch's should_fold: the larger operand (b.mT when b is) has >= 3 dims and the other
    <= 2, and either the smaller one requires grad or the fold needs no copy."""
    a_larger = a._data.ndim >= b._data.ndim
    t1 = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    if not (t1.ndim >= 3 and (b if a_larger else a)._data.ndim <= 2):
        return False
    if (b if a_larger else a).requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    st = [x // t1.itemsize for x in t1.strides]
    return all(st[i] == st[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(a, b):
    swap = b._data.ndim > a._data.ndim             # fold b.mT, multiply by a.t(), transpose back
    t1 = transpose(b, -2, -1) if swap else a
    t2 = (t_(a) if a._data.ndim == 2 else a) if swap else b
    shape = t1._data.shape[:-1]
    folded = reshape(t1, (_numel(shape), t1._data.shape[-1]))
    if t2._data.ndim == 1:
        return _unsafe_view(mv(folded, t2), shape)
    out = _unsafe_view(mm(folded, t2), shape + (t2._data.shape[1],))
    return _contiguous(transpose(out, -2, -1)) if swap else out


def _contiguous(t):
    return t if t._data.flags.c_contiguous else clone(t)

# ----------------------------------------------------------------------------- linear


def addmm(bias, mat1, mat2, beta=1, alpha=1):
    # (each matrix's array read once: a Tensor's attributes are slow to read, see Tensor.__getattr__)
    d1, d2 = mat1._data, mat2._data
    if d1.dtype != d2.dtype:
        raise TorchRuntimeError(f"mat1 and mat2 must have the same dtype, but got {_SCALAR_NAME[d1.dtype.name]} "
                                f"and {_SCALAR_NAME[d2.dtype.name]}")
    if d1.shape[1] != d2.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(d1.shape)} and "
                                f"{_shape_str(d2.shape)})")
    seq = _begin(bias, mat1, mat2)
    out = d1 @ d2
    if alpha != 1:
        out *= np.asarray(alpha, out.dtype)
    b = bias._data
    if beta != 1:
        b = b * np.asarray(beta, b.dtype)
    if b.dtype == out.dtype and b.ndim and b.shape == out.shape[-b.ndim:]:
        np.add(b, out, out=out)             # b + out, into the product's buffer
    else:
        out = np.asarray(b + out, out.dtype)
    if seq is None:
        return CONFIG.tensor(out)
    attrs = {"alpha": alpha, "beta": beta,
             "mat1_sym_sizes": d1.shape, "mat1_sym_strides": _strides(mat1) if mat1.requires_grad else (),
             "mat2_sym_sizes": d2.shape, "mat2_sym_strides": _strides(mat2) if mat2.requires_grad else ()}
    return _record(ROWS["addmm"], seq, out, (bias, mat1, mat2), attrs=attrs)     # (the saved mats are inputs)


def linear(input, weight, bias=None):
    """at::linear: addmm for a 2-D input with a bias; a contiguous input of other rank is
    flattened to 2-D, addmm'd and viewed back; otherwise matmul with weight.t() (+ bias in place)."""
    if type(input) is not CONFIG.tensor or type(weight) is not CONFIG.tensor:
        _tensor_args("linear", input=input, weight=weight)
    nd = input._data.ndim
    if bias is not None and nd == 2:
        return addmm(bias, input, t_(weight))
    if bias is not None and input._data.flags.c_contiguous and (nd == 3 or bias._data.ndim == 1) and nd:
        sizes = input._data.shape
        flat = _b.int(np.prod(sizes[:-1], dtype=np.int64))
        out = addmm(bias, reshape(input, (flat, sizes[-1])), t_(weight))
        return view(out, tuple(sizes[:-1]) + (out._data.shape[1],))
    out = matmul(input, t_(weight))
    if bias is not None:
        out = _inplace(out, add, bias, name="add_")
    return out


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    return _record(ROWS["trilinear"], _begin(i1, i2, i3), _trilinear_np(i1._data, i2._data, i3._data, expand1, expand2,
                                                                        expand3, sumdim), (i1, i2, i3),
                   extra={"i1": i1, "i2": i2, "i3": i3},
                   attrs={"expand1": expand1, "expand2": expand2, "expand3": expand3, "sumdim": sumdim})


def bilinear(input1, input2, weight, bias=None):
    """at::bilinear: _trilinear over the inputs flattened to 2-D, viewed back, plus the bias."""
    lead = input1._data.shape[:-1]
    i1 = view(input1, (-1, input1._data.shape[-1]))
    i3 = view(input2, (-1, input2._data.shape[-1]))
    out = _trilinear(i1, weight, i3, (1, 3), (0,), (1, 2), (2, 3))
    out = view(out, tuple(lead) + (weight._data.shape[0],))
    return add(out, bias) if bias is not None else out
