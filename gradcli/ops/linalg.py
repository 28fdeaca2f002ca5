"""Matrix products: matmul, mm, bmm, mv, dot, the linear layers (addmm, linear, bilinear), the products
with an added input (addmm, addmv, addr, baddbmm, addbmm), outer, vdot, dist, kron, cross."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError
from .numeric import (_SCALAR_NAME, _norm_dim, _same_dtype, _shape_str, _strides, _tensor_args, _type_str,
                      broadcast_shapes)
from .record import FLOPS_PER_SECOND, _begin, _check_numel, _check_work, _numel, _record
from .formulas import _trilinear_np
from .table import ROWS, TABLE
from .views import _inplace
from .pointwise import add, clone, mul
from .shape import (_broadcast_view, _expand_shape, _squeeze0_, _unsafe_view, expand, reshape, squeeze, t_, transpose,
                    unsqueeze, view)


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
    if type(input) is not CONFIG.tensor_type or type(weight) is not CONFIG.tensor_type:
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

# ----------------------------------------------------------------------------- products with an added input


def _dtype_name(t):
    return _SCALAR_NAME[t._data.dtype.name]


def _with_input(input, product, beta, alpha):
    """beta * input + alpha * product, as PyTorch's kernels: input ignored when beta is 0."""
    dt = product.dtype
    if alpha != 1:
        product = product * np.asarray(alpha, dt)
    if beta == 0:
        return np.ascontiguousarray(product)
    b = input if beta == 1 else input * np.asarray(beta, dt)
    return np.ascontiguousarray(np.asarray(b + product, dt))


def _expanded(input, shape):
    """The input broadcast to the result (PyTorch's expand_size, with expand's errors)."""
    return _broadcast_view(input._data, _expand_shape(input._data.shape, shape, _type_str(input)))


def torch_addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """torch.addmm: PyTorch's checks (dtypes, ranks, shapes, the input's broadcast), then addmm."""
    if input._data.dtype != mat2._data.dtype:
        raise TorchRuntimeError(f"self and mat2 must have the same dtype, but got {_dtype_name(input)} and "
                                f"{_dtype_name(mat2)}")
    if mat1._data.dtype != mat2._data.dtype:
        raise TorchRuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_name(mat1)} and "
                                f"{_dtype_name(mat2)}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m._data.ndim != 2:
            raise TorchRuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(mat1._data.shape)} and "
                                f"{_shape_str(mat2._data.shape)})")
    _expanded(input, (mat1._data.shape[0], mat2._data.shape[1]))
    seq = _begin(input, mat1, mat2)
    out = _with_input(input._data, mat1._data @ mat2._data, beta, alpha)
    attrs = {"alpha": alpha, "beta": beta,
             "mat1_sym_sizes": mat1._data.shape, "mat1_sym_strides": _strides(mat1) if mat1.requires_grad else (),
             "mat2_sym_sizes": mat2._data.shape, "mat2_sym_strides": _strides(mat2) if mat2.requires_grad else ()}
    return _record(ROWS["addmm"], seq, out, (input, mat1, mat2), attrs=attrs)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise TorchRuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                                f"{vec._data.ndim}")
    n = input._data.size
    if mat._data.shape[1] != vec._data.shape[0] or not (mat._data.shape[0] == n or n == 1):
        raise TorchRuntimeError(f"size mismatch, got input ({n}), mat ({_shape_str(mat._data.shape)}), vec "
                                f"({vec._data.shape[0]})")
    _same_dtype(mat, vec, "addmv")
    seq = _begin(input, mat, vec)
    out = _with_input(input._data, mat._data @ vec._data, beta, alpha)
    return _record(TABLE["addmv"], seq, out, (input, mat, vec), attrs={"alpha": alpha, "beta": beta})


def _vector(name, which, t):
    if t._data.ndim != 1:
        raise TorchRuntimeError(f"{name}: Expected 1-D argument {which}, but got {t._data.ndim}-D")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    _vector("addr", "vec1", vec1)
    _vector("addr", "vec2", vec2)
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    _expanded(input, shape)
    dt = E.promote_types(E.promote_types(input.dtype, vec1.dtype), vec2.dtype).np
    seq = _begin(input, vec1, vec2)
    out = _with_input(input._data.astype(dt), np.multiply.outer(vec1._data.astype(dt), vec2._data.astype(dt)),
                      beta, alpha)
    return _record(TABLE["addr"], seq, out, (input, vec1, vec2), attrs={"alpha": alpha, "beta": beta})


def _size(t, dim):
    """t.size(dim), with PyTorch's error for a dim out of range."""
    return t._data.shape[_norm_dim(dim, t._data.ndim)]


def _three_d(b1, b2):
    for which, t in (("batch1", b1), ("batch2", b2)):
        if t._data.ndim != 3:
            raise TorchRuntimeError(f"{which} must be a 3D tensor")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    n, m, p = _size(batch1, 0), _size(batch1, 1), _size(batch2, 2)
    _expanded(input, (n, m, p))
    _three_d(batch1, batch2)
    k = batch1._data.shape[2]
    if batch2._data.shape[:2] != (n, k):
        raise TorchRuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but got: "
                                f"[{batch2._data.shape[0]}, {batch2._data.shape[1]}].")
    seq = _begin(input, batch1, batch2)
    out = _with_input(input._data, np.matmul(batch1._data, batch2._data), beta, alpha)
    return _record(TABLE["baddbmm"], seq, out, (input, batch1, batch2), attrs={"alpha": alpha, "beta": beta})


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    m, p = _size(batch1, 1), _size(batch2, 2)
    _expanded(input, (m, p))
    _three_d(batch1, batch2)
    n, k, n2, k2 = batch1._data.shape[0], batch1._data.shape[2], batch2._data.shape[0], batch2._data.shape[1]
    if n != n2:
        raise TorchRuntimeError(f"batch1 and batch2 must have same number of batches, got {n} and {n2}")
    if k != k2:
        raise TorchRuntimeError(f"Incompatible matrix sizes for bmm ({m}x{k} and {k2}x{p})")
    seq = _begin(input, batch1, batch2)
    out = np.array(np.broadcast_to(input._data, (m, p)))      # PyTorch: one addmm per batch into the result
    if n == 0:
        out = out * np.asarray(beta, out.dtype) if beta != 0 else np.zeros_like(out)
    for i in range(n):
        out = _with_input(out, batch1._data[i] @ batch2._data[i], beta if i == 0 else 1, alpha)
    return _record(TABLE["addbmm"], seq, out, (input, batch1, batch2),
                   attrs={"alpha": alpha, "batch1_sym_argsize_0": n, "batch1_sym_argsize_1": m,
                          "batch2_sym_argsize_2": p, "beta": beta})

# ----------------------------------------------------------------------------- other products


def outer(input, vec2):
    _vector("outer", "self", input)
    _vector("outer", "vec2", vec2)
    return mul(reshape(input, (input._data.shape[0], 1)), vec2)


def vdot(input, other):
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise TorchRuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise TorchRuntimeError(f"dot : expected both vectors to have same dtype, but found {_dtype_name(input)} "
                                f"and {_dtype_name(other)}")
    na, nb = input._data.shape[0], other._data.shape[0]
    if na != nb:
        raise TorchRuntimeError(f"inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the same "
                                f"number of elements, but got {na} and {nb} elements respectively")
    seq = _begin(input, other)
    return _record(TABLE["vdot"], seq, np.asarray(np.dot(input._data, other._data)), (input, other))


def dist(input, other, p=2):
    shape = broadcast_shapes(input._data.shape, other._data.shape)
    dt = E.promote_types(input.dtype, other.dtype)
    if dt.np.kind != "f":
        raise TorchRuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                                f"{_SCALAR_NAME[dt.np.name]} instead.")
    a = np.abs(np.broadcast_to(input._data, shape).astype(dt.np) - other._data.astype(dt.np))
    with np.errstate(all="ignore"):
        if p == 2:
            out = np.sqrt((a * a).sum())
        elif p == 1:
            out = a.sum()
        elif p == float("inf"):
            out = a.max()
        elif p == -float("inf"):
            out = a.min()
        elif p == 0:
            out = (a != 0).sum()
        else:
            out = (a ** p).sum() ** (1.0 / p)
    seq = _begin(input, other)
    return _record(TABLE["dist"], seq, np.asarray(out, dt.np), (input, other), attrs={"p": p})


def kron(input, other):
    nd = _b.max(input._data.ndim, other._data.ndim)
    sa = (1,) * (nd - input._data.ndim) + input._data.shape
    sb = (1,) * (nd - other._data.ndim) + other._data.shape
    a_shape = tuple(x for n in sa for x in (n, 1))
    b_shape = tuple(x for n in sb for x in (1, n))
    product = mul(_unsafe_viewed(input, a_shape), _unsafe_viewed(other, b_shape))
    return _unsafe_viewed(product, tuple(x * y for x, y in zip(sa, sb)))


def _unsafe_viewed(t, shape):
    """at::_unsafe_view: a view's rules (not viewable: PyTorch's error), no view recorded."""
    out = t._data.view()
    try:
        out.shape = shape
    except AttributeError:
        raise TorchRuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return _unsafe_view(t, shape)


W_CROSS = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or "
           "simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross "
           "in a future release. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")


def cross(input, other, dim=None):
    if dim is None:
        E.warn_once(W_CROSS)
        dim = next((i for i, n in enumerate(input._data.shape) if n == 3), -1)
    return linalg_cross(input, other, dim=dim)


def linalg_cross(input, other, *, dim=-1):
    if input._data.ndim != other._data.ndim:
        raise TorchRuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _norm_dim(dim, input._data.ndim)
    na, nb = input._data.shape[d], other._data.shape[d]
    if na != 3 or nb != 3:
        raise TorchRuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {na} and {nb}")
    shape = broadcast_shapes(input._data.shape, other._data.shape)
    if input._data.dtype != other._data.dtype:
        raise TorchRuntimeError(f"expected scalar type {_dtype_name(input)} but found {_dtype_name(other)}")
    a = np.broadcast_to(input._data, shape)
    b = np.broadcast_to(other._data, shape)
    seq = _begin(input, other)
    out = np.ascontiguousarray(np.cross(a, b, axis=d))
    return _record(TABLE["linalg_cross"], seq, out, (input, other), attrs={"dim": dim})
