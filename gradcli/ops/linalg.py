"""Matrix products: matmul, mm, bmm, mv, dot, the linear layers (addmm, linear, bilinear), the products
with an added input (addmm, addmv, addr, baddbmm, addbmm), outer, vdot, dist, kron, cross."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchAttributeError, TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .numeric import (_C_NAME, _SCALAR_NAME, _dims, _norm_dim, _same_dtype, _shape_str, _strides, _tensor_args,
                      _type_str, broadcast_shapes)
from .record import FLOPS_PER_SECOND, _begin, _check_numel, _check_work, _numel, _record
from .formulas import _trilinear_np
from .table import ROWS, TABLE
from .views import _inplace
from .inplace import copy_
from .pointwise import _no_bool_subtraction, add, clone, mul
from .reduction import sum
from .shape import (_broadcast_view, _c_type_name, _check_tensor_list, _expand_shape, _squeeze0_, _unsafe_view, diagonal, expand, movedim, permute,
                    reshape, squeeze, t_, transpose, unsqueeze, view)


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
    if len({input._data.dtype, mat._data.dtype, vec._data.dtype}) > 1:
        raise TorchRuntimeError(f"addmv input tensors must have the same dtype, but got {_dtype_name(input)}, "
                                f"{_dtype_name(mat)}, and {_dtype_name(vec)}")
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
    """t.size(dim), with PyTorch's errors for a dim out of range."""
    if t._data.ndim == 0:
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
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
    if len({input._data.dtype, batch1._data.dtype, batch2._data.dtype}) > 1:
        raise TorchRuntimeError(f"Input dtypes must be the same, got: input {_C_NAME[input._data.dtype.name]}, "
                                f"batch1: {_C_NAME[batch1._data.dtype.name]}, batch2: {_C_NAME[batch2._data.dtype.name]}")
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
    if n and input._data.dtype != batch2._data.dtype:         # (addmm's checks, in its first call)
        raise TorchRuntimeError(f"self and mat2 must have the same dtype, but got {_dtype_name(input)} and "
                                f"{_dtype_name(batch2)}")
    if n and batch1._data.dtype != batch2._data.dtype:
        raise TorchRuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_name(batch1)} and "
                                f"{_dtype_name(batch2)}")
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
    if isinstance(p, TensorBase):                         # (a 0-d tensor is a Scalar to PyTorch)
        p = p.item()
    _no_bool_subtraction(input._data.dtype == np.bool_, other._data.dtype == np.bool_)    # (self - other first)
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
    if input._data.dtype == np.bool_:
        raise E.TorchNotImplementedError("\"cross\" not implemented for 'Bool'")
    if input._data.dtype != other._data.dtype:
        raise TorchRuntimeError(f"expected scalar type {_dtype_name(input)} but found {_dtype_name(other)}")
    a = np.broadcast_to(input._data, shape)
    b = np.broadcast_to(other._data, shape)
    seq = _begin(input, other)
    out = np.ascontiguousarray(np.cross(a, b, axis=d))
    return _record(TABLE["linalg_cross"], seq, out, (input, other), attrs={"dim": dim})

# ----------------------------------------------------------------------------- einsum (PyTorch's algorithm, node for node)


def _sumproduct_pair(left, right, sum_dims):
    """PyTorch's sumproduct_pair (keepdim): (left * right).sum(sum_dims) as permutes, reshapes and one bmm."""
    if not sum_dims:
        return mul(left, right)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left._data.ndim):
        sl, sr = left._data.shape[i] != 1, right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._data.shape[i] != right._data.shape[i]:
                    raise TorchRuntimeError("non-broadcast dimensions must match")
                sum_size *= left._data.shape[i]
            elif sl:
                left = sum(left, i, keepdim=True)
            elif sr:
                right = sum(right, i, keepdim=True)
        elif sl and sr:
            if left._data.shape[i] != right._data.shape[i]:
                raise TorchRuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    out_size = ([left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._data.shape[d] for d in ro])
    order = lro + lo + list(sum_dims) + ro
    opermutation = [0] * len(order)
    for k, d in enumerate(order):
        opermutation[d] = k
    left = reshape(permute(left, tuple(lro + lo + list(sum_dims) + ro)), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, tuple(lro + list(sum_dims) + ro + lo)), (lro_size, sum_size, ro_size))
    return permute(view(bmm(left, right), tuple(out_size)), tuple(opermutation))


_ELLIPSIS = 52


def _label(c):
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def _char(s):
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _einsum_parse(lhs, num_ops):
    op_labels = [[] for _ in range(num_ops)]
    curr, ell, i = 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if ell:
                raise TorchRuntimeError(f"einsum(): found '.' for operand {curr} for which an ellipsis was already "
                                        "found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise TorchRuntimeError(f"einsum(): found '.' for operand {curr} that is not part of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise TorchRuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell = False
        elif c != " ":
            if not (c.isascii() and c.isalpha()):
                raise TorchRuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                        "subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_label(c))
        i += 1
    if curr != num_ops - 1:
        raise TorchRuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def _einsum_output(rhs, lhs_len, label_count, ell_num_dim, label_perm_index):
    """The explicit output's labels placed first in the permuted shape; returns (perm_index, ell_index, ell_in_output)."""
    perm_index, ell_index, ell_out, i = 0, 0, False, 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if ell_out:
                raise TorchRuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise TorchRuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            i += 2
            ell_index = perm_index
            perm_index += ell_num_dim
            ell_out = True
        elif c != " ":
            if not (c.isascii() and c.isalpha()):
                raise TorchRuntimeError(f"einsum(): invalid subscript given at index {lhs_len + 2 + i} in the equation "
                                        "string, subscripts must be in [a-zA-Z]")
            s = _label(c)
            if not (label_count[s] > 0 and label_perm_index[s] == -1):
                raise TorchRuntimeError(f"einsum(): output subscript {c}" + (
                    " appears more than once in the output" if label_perm_index[s] > -1
                    else " does not appear in the equation for any input operand"))
            label_perm_index[s] = perm_index
            perm_index += 1
        i += 1
    return perm_index, ell_index, ell_out


def _sublist_label(n):
    """torch.einsum's parse_subscript: a sublist's int as a letter, Ellipsis as '...'."""
    if n == Ellipsis:
        return "..."
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise TorchValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    """torch.einsum: the equation (or sublists) parsed, each operand's repeated labels turned into
    diagonals, missing ones unsqueezed, all permuted alike, then contracted left to right by
    sumproduct_pair, as PyTorch does (without opt_einsum: it is not installed with PyTorch)."""
    if len(args) < 2:
        raise TorchValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                              "operand and its subscripts list")
    if isinstance(args[0], TensorBase):
        try:                    # (Python code in PyTorch: its TypeErrors are Python's)
            equation = ",".join("".join(_sublist_label(s) for s in sl) for sl in args[1::2])
            if len(args) % 2 == 1:
                equation += "->" + "".join(_sublist_label(s) for s in args[-1])
        except TypeError as e:
            raise TorchTypeError(str(e)) from None
        operands = args[:-1:2] if len(args) % 2 == 1 else args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])          # (the old interface: PyTorch calls itself again)
    if not isinstance(equation, str):
        raise TorchTypeError(f"einsum(): argument 'equation' (position 1) must be str, not {_c_type_name(equation)}")
    _check_tensor_list(operands, 1)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _einsum_parse(lhs, len(operands))
    label_count = [0] * 52
    ell_num_dim = 0
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        nd, n = op._data.ndim, len(labels)
        has_ell = _ELLIPSIS in labels
        if has_ell:
            n -= 1
            ell_num_dim = _b.max(ell_num_dim, nd - n)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if not (n <= nd if has_ell else n == nd):
            raise TorchRuntimeError(f"einsum(): the number of subscripts in the equation ({n}) " + (
                f"is more than the number of dimensions ({nd}) for operand {i}" if has_ell else
                f"does not match the number of dimensions ({nd}) for operand {i} and no ellipsis was given"))
    label_perm_index = [-1] * 52
    if arrow < 0:                          # implicit output: the ellipsis, then the labels seen once
        perm_index, ell_index, ell_out = ell_num_dim, 0, True
        for s in range(52):
            if label_count[s] == 1:
                label_perm_index[s] = perm_index
                perm_index += 1
    else:
        perm_index, ell_index, ell_out = _einsum_output(equation[arrow + 2:], len(lhs), label_count, ell_num_dim,
                                                        label_perm_index)
    out_num_dim = perm_index
    if not ell_out:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(52):
        if label_count[s] > 0 and label_perm_index[s] == -1:
            label_perm_index[s] = perm_index
            perm_index += 1
    label_size, ell_sizes, dim_counts, ops = [1] * 52, [1] * ell_num_dim, [0] * perm_index, []
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                covered = operands[i]._data.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - covered, ell_num_dim):
                    n = op._data.shape[dim]
                    if n != 1:
                        if ell_sizes[j] not in (1, n):
                            raise TorchRuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {n} which does "
                                f"not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = n
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                n = op._data.shape[dim]
                if n != 1:
                    if label_size[s] not in (1, n):
                        raise TorchRuntimeError(f"einsum(): subscript {_char(s)} has size {n} for operand {i} which "
                                                f"does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = n
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:                          # a repeated label: its diagonal
                prev = permutation[label_perm_index[s]]
                if op._data.shape[dim] != op._data.shape[prev]:
                    raise TorchRuntimeError(f"einsum(): subscript {_char(s)} is repeated for operand {i} but the sizes "
                                            f"don't match, {op._data.shape[dim]} != {op._data.shape[prev]}")
                op = movedim(diagonal(op, 0, prev, dim), -1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(permute(op, tuple(permutation)))
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a._data.shape[dim] != 1 and b._data.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a._data.shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b._data.shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = sum(a, tuple(a_sum), keepdim=True)
        if b_sum:
            b = sum(b, tuple(b_sum), keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    if perm_index - out_num_dim > 0:
        if len(operands) > 1:
            return view(ops[0], ops[0]._data.shape[:out_num_dim])
        return sum(ops[0], tuple(range(out_num_dim, perm_index)))
    return ops[0]

# ----------------------------------------------------------------------------- tensordot, inner, matrix_power


def tensordot(a, b, dims=2, out=None):
    """torch.tensordot's Python code (dims as a count, two lists or a tensor, in its order of checks),
    then at::tensordot's argument parsing and computation."""
    if not isinstance(dims, (tuple, list, TensorBase, int)):
        raise TorchRuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                                f"containing two lists, but got dims={dims}")
    dims_a, dims_b = [], []
    if isinstance(dims, (tuple, list)):
        try:                                        # (Python's unpacking error, as PyTorch's code meets it)
            dims_a, dims_b = dims
        except ValueError as e:
            raise TorchValueError(str(e)) from None
    if isinstance(dims, TensorBase):
        if dims._data.size > 1:
            if dims._data.shape[0] != 2:
                raise E.TorchAssertionError(f"dims tensor must have size 2 in first dimension, got "
                                            f"{dims._data.shape[0]}")
            dims_a, dims_b = dims._data[0].tolist(), dims._data[1].tolist()
        else:
            n = int(dims.item())
            if n < 0:
                raise TorchRuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-n, 0)), list(range(n))
    if isinstance(dims, int):
        if dims < 0:
            raise TorchRuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        for t in (a, b):                            # (its Python code reads a.dim() and b.dim() here)
            if not isinstance(t, TensorBase):
                raise TorchAttributeError(f"'{type(t).__name__}' object has no attribute 'dim'")
        if dims > _b.min(a._data.ndim, b._data.ndim):
            raise TorchRuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    for k, (name, t) in enumerate((("self", a), ("other", b))):
        if not isinstance(t, TensorBase):
            raise TorchTypeError(f"tensordot(): argument '{name}' (position {k + 1}) must be Tensor, not "
                                 f"{_c_type_name(t)}")
    for k, (name, d) in enumerate((("dims_self", dims_a), ("dims_other", dims_b))):
        if not isinstance(d, (tuple, list)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in d):
            raise TorchTypeError(f"tensordot(): argument '{name}' (position {3 + k}) must be tuple of ints, not "
                                 f"{_c_type_name(d)}")
    if out is not None and not isinstance(out, TensorBase):
        raise TorchTypeError(f"tensordot(): argument 'out' must be Tensor, not {_c_type_name(out)}")
    result = _tensordot(a, b, list(dims_a), list(dims_b))
    return result if out is None else _into_out(result, out)


def _into_out(result, out):
    """tensordot_out: the result's dtype checked, out resized (PyTorch's warning when it had
    elements), then result copied in (CopyBackwards when it requires grad)."""
    if out._data.dtype != result._data.dtype:
        raise TorchRuntimeError(f"tensordot: Expected the output tensor to have dtype {_dtype_name(result)}, but got "
                                f"an output tensor with dtype {_dtype_name(out)}")
    if out._data.shape != result._data.shape:
        if out._base is not None:
            raise E.TorchNotImplementedError("gradcli does not implement resizing a view given as out= (yet)")
        if out._data.size:
            E.STATE.warn(f"An output with one or more elements was resized since it had shape "
                         f"{list(out._data.shape)}, which does not match the required output shape "
                         f"{list(result._data.shape)}. This behavior is deprecated, and in a future PyTorch release "
                         "outputs will not be resized unless they have zero elements. You can explicitly reuse an out "
                         "tensor t by resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally "
                         "at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:31.)")
        out._data = np.zeros(result._data.shape, out._data.dtype)
    return copy_(out, result)


def _tensordot(input1, input2, dims1, dims2):
    if len(dims1) != len(dims2):
        raise TorchRuntimeError("both dimension lists should have same length")
    if input1._data.dtype != input2._data.dtype:
        raise TorchRuntimeError("both inputs should have same dtype")
    csize, t1, t2 = 1, input1, input2
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = _size(input1, d1), _size(input2, d2)
        if s2 == 1:                       # a broadcast dimension is summed right away
            t1 = sum(t1, d1, keepdim=True)
        elif s1 == 1:
            t2 = sum(t2, d2, keepdim=True)
        elif s1 != s2:
            raise TorchRuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                    f"second has size {s2} in dim {d2}")
        else:
            csize *= s1
    c1 = {_norm_dim(d, input1._data.ndim) for d in dims1}
    c2 = {_norm_dim(d, input2._data.ndim) for d in dims2}
    free1 = [i for i in range(input1._data.ndim) if i not in c1]
    free2 = [i for i in range(input2._data.ndim) if i not in c2]
    rsizes = tuple(t1._data.shape[i] for i in free1) + tuple(t2._data.shape[i] for i in free2)
    size1 = _numel(tuple(t1._data.shape[i] for i in free1))
    size2 = _numel(tuple(t2._data.shape[i] for i in free2))
    t1 = permute(t1, tuple(free1 + dims1))
    t2 = permute(t2, tuple(dims2 + free2))
    if size1 == 1 and size2 == 1:         # vectors: at::dot
        return reshape(dot(_flat(t1), _flat(t2)), rsizes)
    return reshape(mm(reshape(t1, (size1, csize)), reshape(t2, (csize, size2))), rsizes)


def _flat(t):
    return t if t._data.ndim == 1 else reshape(t, (-1,))


def inner(input, other):
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise TorchRuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                                f"{list(input._data.shape)} and {list(other._data.shape)}")
    return _tensordot(input, other, [-1], [-1])


def matrix_power(input, n):
    """PyTorch's linalg_matrix_power: a clone for 1, products for 2 and 3, square-and-multiply beyond
    (of the inverse for a negative power)."""
    nd = input._data.ndim
    if nd < 2:
        raise TorchRuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    r, c = input._data.shape[-2:]
    if r != c:
        raise TorchRuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {r} by {c} "
                                "matrices")
    if n < 0:                                  # the powers of the inverse (itself for -1, not a clone)
        input, n = inverse(input), -n
        if n == 1:
            return input
    if n == 0:
        eye = CONFIG.tensor(np.broadcast_to(np.eye(r, dtype=input._data.dtype), input._data.shape))
        return copy_(_record(TABLE["clone"], _begin(input), input._data.copy(order="C"), (input,)), eye)
    if n == 1:
        return _record(TABLE["clone"], _begin(input), input._data.copy(order="C"), (input,))
    if n == 2:
        return matmul(input, input)
    if n == 3:
        return matmul(matmul(input, input), input)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = input if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result

# ----------------------------------------------------------------------------- inverse (session 9)


def _check_square(name, input):
    nd = input._data.ndim
    if nd < 2:
        raise TorchRuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    r, c = input._data.shape[-2:]
    if r != c:
        raise TorchRuntimeError(f"{name}: A must be batches of square matrices, but they are {r} by {c} matrices")


def _check_floating(name, input):
    dt = input._data.dtype
    if dt.kind != "f":
        raise TorchRuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                                f"Got {_SCALAR_NAME[dt.name]}")
    if dt.itemsize < 4:
        raise TorchRuntimeError(f"{name}: Low precision dtypes not supported. Got {_SCALAR_NAME[dt.name]}")


def _lu(a):
    """LAPACK getrf's partial-pivoting LU of one square matrix, in its dtype: (LU, 1-based pivots,
    1-based index of the first exactly zero pivot or 0 — getrf's `info`)."""
    lu = a.copy()
    n = lu.shape[0]
    piv = np.arange(1, n + 1, dtype=np.int32)
    info = 0
    for j in range(n):
        p = j + int(np.argmax(np.abs(lu[j:, j])))      # the first largest magnitude, as i?amax
        piv[j] = p + 1
        if lu[p, j] == 0:
            info = info or j + 1                       # getrf goes on past a zero pivot
            continue
        if p != j:
            lu[[j, p]] = lu[[p, j]]
        lu[j + 1:, j] /= lu[j, j]
        lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, piv, info


def _singular(name, data, what):
    """PyTorch's _LinAlgError for a batch that NumPy found singular: the first batch element
    whose LU has an exactly zero pivot, and that pivot (when rounding left none exactly zero:
    the element NumPy rejects, and its smallest pivot)."""
    mats = data.reshape((-1,) + data.shape[-2:])
    found = [_lu(a) for a in mats]
    if not any(f[2] for f in found):
        k = next(k for k, a in enumerate(mats) if _rejected(a))
        found[k] = (None, None, 1 + int(np.argmin(np.abs(np.diagonal(found[k][0])))))
    for k, (_, _, info) in enumerate(found):
        if info:
            batch = f"(Batch element {k}): " if data.ndim > 2 else ""
            raise E.TorchLinAlgError(f"{name}: {batch}The diagonal element {info} is zero, the {what} could not be "
                                     "completed because the input matrix is singular.")


def _rejected(a):
    try:
        np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return True
    return False


def _column_major(a):
    """`a` laid out as LAPACK returns it: each matrix of the batch column-major."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)


def inverse(input):
    """torch.inverse / torch.linalg.inv (linalg_inv_ex, then its error check)."""
    _check_square("linalg.inv", input)
    _check_floating("linalg.inv", input)
    seq = _begin(input)
    data = input._data
    try:
        out = np.linalg.inv(data)
    except np.linalg.LinAlgError:
        _singular("linalg.inv", data, "inversion")
    return _record(TABLE["linalg_inv"], seq, _column_major(out.astype(data.dtype, copy=False)), (input,))


# ----------------------------------------------------------------------------- det (session 9)


def _lu_batch(data):
    """getrf over a batch: LU (each matrix column-major, as LAPACK leaves it) and the int32 pivots."""
    if data.size == 0:
        return data.copy(), np.ones(data.shape[:-1], np.int32)
    mats = data.reshape((-1,) + data.shape[-2:])
    lus = [_lu(a) for a in mats]
    lu = np.array([f[0] for f in lus], data.dtype).reshape(data.shape)
    piv = np.array([f[1] for f in lus], np.int32).reshape(data.shape[:-1])
    return _column_major(lu), piv


def _det_from_lu(lu, piv):
    """PyTorch's det from getrf: the permutation's sign times the product of U's diagonal."""
    swaps = np.count_nonzero(piv != np.arange(1, piv.shape[-1] + 1, dtype=np.int32), axis=-1)
    sign = np.where(swaps % 2 == 1, -1, 1).astype(lu.dtype)
    return np.asarray(sign * np.prod(np.diagonal(lu, 0, -2, -1), axis=-1), lu.dtype)


def det(A):
    """torch.det / torch.linalg.det (_linalg_det: getrf, then the product of U's diagonal)."""
    _check_square("linalg.det", A)
    if A._data.dtype == np.float16:                # (no low-precision check here: LAPACK's getrf refuses it)
        raise E.TorchNotImplementedError("\"lu_cpu\" not implemented for 'Half'")
    _check_floating("linalg.det", A)
    seq = _begin(A)
    data = A._data
    # a row-major A is a column-major A.mT to LAPACK: PyTorch factorises that (det(A.mT) = det(A))
    lu, piv = _lu_batch(np.swapaxes(data, -1, -2) if data.flags.c_contiguous else data)
    extra = {"LU": CONFIG.tensor(lu), "pivots": CONFIG.tensor(piv)}
    return _record(TABLE["linalg_det"], seq, _det_from_lu(lu, piv), (A,), extra=extra)


def _det_backward_np(g, det, A, LU, pivots):
    """linalg_det_backward without create_graph: the solution G of A.mH G = det * grad * I, by the
    saved LU (of A.mT when A is row-major), its zero pivots replaced by eps (so the gradient at
    a singular matrix is det * ... = 0)."""
    if A.size == 0:
        return np.zeros_like(A)
    n = A.shape[-1]
    if n == 1:                                 # d det / dA = 1 for a 1x1 matrix: the gradient itself
        return np.broadcast_to(g[..., None, None], A.shape).copy()
    d = (g * det)[..., None, None] * np.eye(n, dtype=A.dtype)
    diag = np.diagonal(LU, 0, -2, -1)
    lu = LU + np.where(diag == 0, np.finfo(A.dtype).eps, 0).astype(A.dtype)[..., None] * np.eye(n, dtype=A.dtype)
    return _lu_solve(lu, pivots, d, adjoint=not A.flags.c_contiguous)


def _lu_solve(lu, pivots, b, adjoint):
    """linalg_lu_solve: X with P L U X = B, or (P L U).mH X = B when `adjoint`."""
    n, cols = lu.shape[-1], b.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    out = np.zeros(batch + (n, cols), lu.dtype)
    if out.size == 0:
        return out
    for k, (m, piv, rhs) in enumerate(zip(np.broadcast_to(lu, batch + (n, n)).reshape((-1, n, n)),
                                          np.broadcast_to(pivots, batch + (n,)).reshape((-1, n)),
                                          np.broadcast_to(b, out.shape).reshape((-1, n, cols)))):
        x = rhs.copy()
        if adjoint:                            # U.T w = B, L.T v = w, then the swaps, last first
            x = _substitute(m.T, _substitute(m.T, x, lower=True, unit=False), lower=False, unit=True)
            for j in reversed(range(n)):
                x[[j, piv[j] - 1]] = x[[piv[j] - 1, j]]
        else:                                  # the swaps, then L z = P.T B, U X = z
            for j in range(n):
                x[[j, piv[j] - 1]] = x[[piv[j] - 1, j]]
            x = _substitute(m, _substitute(m, x, lower=True, unit=True), lower=False, unit=False)
        out.reshape((-1, n, cols))[k] = x
    return out


def _substitute(t, b, lower, unit):
    """X with T X = B for the lower (or upper) triangle of T, its diagonal taken as ones if `unit`."""
    n = t.shape[0]
    x = b.copy()
    for i in (range(n) if lower else reversed(range(n))):
        done = slice(0, i) if lower else slice(i + 1, n)
        x[i] = b[i] - t[i, done] @ x[done]
        if not unit:
            x[i] /= t[i, i]
    return x


NUMPY_HELPERS = {"det_backward": _det_backward_np}


# ----------------------------------------------------------------------------- linalg norms (session 9)


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    from .reduction import _norm
    if isinstance(dim, (tuple, list)) and x._data.dtype.kind == "f":
        _dims(dim, x._data.ndim)               # (a dim given twice: PyTorch's reduction refuses it)
    return _norm(x, ord, dim, keepdim, dtype)


def _order_text(ord):
    """An order as PyTorch's C++ prints a double (3, 0.5, inf) or a string."""
    return ord if isinstance(ord, str) else "%g" % ord


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """linalg.matrix_norm: 'fro' is the vector 2-norm over both dims; ±1 and ±inf the max (min) of
    the column (row) sums of magnitudes. ('nuc' and ±2 need singular values: not in gradcli.)"""
    from .reduction import _norm, amax, amin
    if isinstance(ord, str):
        supported, needs_svd = ord in ("fro", "nuc"), ord == "nuc"
    else:
        supported, needs_svd = abs(ord) in (1, 2, float("inf")), abs(ord) == 2
    if not supported:
        raise TorchRuntimeError(f"linalg.matrix_norm: Order {_order_text(ord)} not supported.")
    if A._data.ndim < 2:
        raise TorchRuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise TorchRuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                                f"{_SCALAR_NAME[A._data.dtype.name]}")
    dim = list(dim) if isinstance(dim, (tuple, list)) else [dim]
    if len(dim) != 2:
        raise TorchRuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    dim = [_norm_dim(d, A._data.ndim) for d in dim]
    if dim[0] == dim[1]:
        raise TorchRuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if needs_svd:
        raise E.TorchNotImplementedError(f"gradcli does not implement torch.linalg.matrix_norm with ord={ord!r} (yet): "
                                         "it needs the singular values")
    if ord == "fro":
        return _norm(A, 2, tuple(dim), keepdim, dtype)
    if abs(ord) == float("inf"):                # the 1-norm of the transpose
        dim.reverse()
    if not keepdim and dim[0] < dim[1]:         # (the first reduction shifts the second dim)
        dim[1] -= 1
    return (amax if ord > 0 else amin)(_norm(A, 1.0, (dim[0],), keepdim, dtype), (dim[1],), keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, dtype=None):
    """linalg.norm: a matrix norm for a given order over two dims (or of a matrix), else a vector norm."""
    if dim is not None:
        dims = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        if len(dims) not in (1, 2):
            raise TorchRuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise TorchRuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                                f"Got {A._data.ndim}D.")
    if isinstance(ord, str) or ord is not None and (len(dims) == 2 if dim is not None else A._data.ndim == 2):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype)


# ----------------------------------------------------------------------------- solve (session 9)


def _vector_rhs(A, B):
    """linalg_solve_is_vector_rhs: B is a vector, or a batch of them with A's batch shape."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def solve(A, B, left=True):
    """torch.linalg.solve (_linalg_solve_ex): X with A X = B, by getrf of A and its triangular solves."""
    if not left:
        raise E.TorchNotImplementedError("gradcli does not implement torch.linalg.solve with left=False (yet)")
    a, b = A._data, B._data
    if a.ndim < 2:
        raise TorchRuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    r, c = a.shape[-2:]
    if r != c:
        raise TorchRuntimeError(f"linalg.solve: A must be batches of square matrices, but they are {r} by {c} matrices")
    if a.dtype == np.float16:
        raise E.TorchNotImplementedError("\"lu_cpu\" not implemented for 'Half'")
    _check_floating("linalg.solve", A)
    if b.dtype != a.dtype:
        raise TorchRuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                                f"{_SCALAR_NAME[a.dtype.name]} and B of type {_SCALAR_NAME[b.dtype.name]} instead")
    vector = _vector_rhs(a, b)
    b2 = b[..., None] if vector else b
    if b2.ndim < 2:
        raise TorchRuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if b2.shape[-2] != r:
        raise TorchRuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                                f"({r}x{c} and {b2.shape[-2]}x{b2.shape[-1]})")
    batch = broadcast_shapes(b2.shape[:-2], a.shape[:-2])     # (PyTorch's text names B's size first)
    seq = _begin(A, B)
    lu, piv = _lu_batch(a)
    ab = np.broadcast_to(a, batch + (r, r))
    try:
        zero = np.diagonal(lu, 0, -2, -1) == 0
        if zero.any():
            raise np.linalg.LinAlgError
        x = np.linalg.solve(ab, np.broadcast_to(b2, batch + b2.shape[-2:]))
    except np.linalg.LinAlgError:
        singular = np.broadcast_to(zero.any(-1), batch).reshape(-1)
        k = int(np.argmax(singular))
        prefix = f"(Batch element {k}): " if batch else ""
        raise E.TorchLinAlgError(f"torch.linalg.solve: {prefix}The solver failed because the input matrix is "
                                 "singular.") from None
    out = x[..., 0] if vector else _column_major(x)
    extra = {"LU": CONFIG.tensor(lu), "pivots": CONFIG.tensor(piv)}
    return _record(TABLE["linalg_solve"], seq, np.asarray(out, a.dtype), (A, B), extra=extra, attrs={"left": True})


def _solve_grad_B_np(g, A, LU, pivots, result):
    """linalg_solve_backward's gB = A^-H gX (by the saved LU), shaped as X."""
    vector = _vector_rhs(A, result)
    gb = _lu_solve(LU, pivots, g[..., None] if vector else g, adjoint=True)
    return gb[..., 0] if vector else gb


def _solve_grad_A_np(g, A, LU, pivots, result):
    """linalg_solve_backward's gA = -gB X^H."""
    vector = _vector_rhs(A, result)
    gb = _lu_solve(LU, pivots, g[..., None] if vector else g, adjoint=True)
    x = result[..., None] if vector else result
    return -(gb @ np.swapaxes(x, -1, -2))


def _solve_grad_B(g, A, LU, pivots, result):
    """gB under create_graph: a solve with A.mH, recorded (PyTorch recomputes the LU so that it differentiates)."""
    vector = _vector_rhs(A._data, result._data)
    gb = solve(transpose(A, -2, -1), unsqueeze(g, -1) if vector else g)
    return squeeze(gb, -1) if vector else gb


def _solve_grad_A(g, A, LU, pivots, result):
    vector = _vector_rhs(A._data, result._data)
    gb = solve(transpose(A, -2, -1), unsqueeze(g, -1) if vector else g)
    x = unsqueeze(result, -1) if vector else result
    return -matmul(gb, transpose(x, -2, -1))


def _det_backward(g, det, A, LU, pivots):
    """linalg_det_backward under create_graph: linalg.solve(A.mH, d), d the diagonal matrices of
    grad * det, recorded (a singular matrix's gradient goes through the SVD: not in gradcli)."""
    from .shape import diag_embed
    a = A._data
    if a.size == 0:
        return CONFIG.tensor(np.zeros_like(a))
    if a.shape[-1] == 1:
        return expand(unsqueeze(unsqueeze(g, -1), -1), a.shape)
    if (np.abs(det._data) < 100 * np.finfo(a.dtype).eps).any():
        raise E.TorchNotImplementedError("create_graph=True through the determinant of a (nearly) singular matrix "
                                         "is not supported by gradcli yet (PyTorch uses its SVD); first-order "
                                         "gradients (create_graph=False) work")
    d = transpose(diag_embed(expand(unsqueeze(g * det, -1), pivots._data.shape)), -2, -1)
    return solve(transpose(A, -2, -1), d)


NUMPY_HELPERS.update(solve_grad_A=_solve_grad_A_np, solve_grad_B=_solve_grad_B_np)
TENSOR_HELPERS = {"solve_grad_A": _solve_grad_A, "solve_grad_B": _solve_grad_B, "det_backward": _det_backward}


# ----------------------------------------------------------------------------- slogdet, logdet (session 9)


class _SlogdetResult(tuple):
    """torch.return_types.slogdet / linalg_slogdet (sign=..., logabsdet=...)."""

    def __new__(cls, name, sign, logabsdet):
        self = super().__new__(cls, (sign, logabsdet))
        self.name = name
        return self

    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.{self.name}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"

    __str__ = __repr__


def slogdet(A, name="linalg_slogdet"):
    """torch.linalg.slogdet / torch.slogdet (_linalg_slogdet): one node for the sign and log|det|,
    from getrf (of A.mT for a row-major A, as for det)."""
    _check_square("linalg.slogdet", A)
    _check_floating("linalg.slogdet", A)
    seq = _begin(A)
    data = A._data
    lu, piv = _lu_batch(np.swapaxes(data, -1, -2) if data.flags.c_contiguous else data)
    diag = np.diagonal(lu, 0, -2, -1)
    swaps = np.count_nonzero(piv != np.arange(1, piv.shape[-1] + 1, dtype=np.int32), axis=-1)
    sign = np.where(swaps % 2 == 1, -1, 1).astype(data.dtype) * np.prod(np.sign(diag), axis=-1)
    with np.errstate(divide="ignore"):
        logabsdet = np.log(np.abs(diag)).sum(axis=-1)
    extra = {"LU": CONFIG.tensor(lu), "pivots": CONFIG.tensor(piv), "sign": None}
    first = _record(TABLE["linalg_slogdet"], seq, np.asarray(sign, data.dtype), (A,), extra=extra)
    from .reduction import _two_outputs
    return _SlogdetResult(name, *_two_outputs(first, np.asarray(logabsdet, data.dtype), ("sign",)))


def torch_slogdet(input):
    """torch.slogdet: linalg.slogdet's values as a torch.return_types.slogdet."""
    return slogdet(input, "slogdet")


def logdet(A):
    """torch.logdet: slogdet's log|det|, nan where the sign is negative (a where, as PyTorch)."""
    from .pointwise import where
    _check_square("logdet", A)
    _check_floating("logdet", A)
    sign, logabsdet = slogdet(A)
    nan = CONFIG.tensor(np.asarray(np.nan, A._data.dtype))
    return where(CONFIG.tensor(sign._data == -1), nan, logabsdet)


def _slogdet_backward_np(g, A, sign, LU, pivots):
    """slogdet_backward (real): only log|det| has a gradient, A^-H times it, by the saved LU."""
    glogabsdet = g[1]
    if glogabsdet is None:
        return None
    if A.size == 0:
        return np.zeros_like(A)
    n = A.shape[-1]
    d = glogabsdet[..., None, None] * np.eye(n, dtype=A.dtype)
    return _lu_solve(LU, pivots, d, adjoint=not A.flags.c_contiguous)


def _slogdet_backward(g, A, sign, LU, pivots):
    from .shape import diag_embed
    glogabsdet = g[1]
    if glogabsdet is None:
        return None
    d = transpose(diag_embed(expand(unsqueeze(glogabsdet, -1), pivots._data.shape)), -2, -1)
    return solve(transpose(A, -2, -1), d)


NUMPY_HELPERS["slogdet_backward"] = _slogdet_backward_np
TENSOR_HELPERS["slogdet_backward"] = _slogdet_backward
