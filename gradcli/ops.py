"""The op table, and the forward functions that record into it.

Like PyTorch's derivatives.yaml, every differentiable op is one row of `TABLE`:
its grad_fn name, its inputs (the order of next_functions), the tensors it saves
and under which condition each slot holds a tensor, its non-tensor attributes,
and one backward formula per input. A formula is `lambda m, g, <slots...>`: `g`
is the incoming gradient, the other parameters name saved slots or attributes,
and `m` is the maths namespace (NumPy arrays normally, differentiable tensors
under create_graph). The engine, explanations, graph views and the exporter read
this table; nothing else repeats per-op knowledge.
"""
from __future__ import annotations

import numpy as np

from . import engine as E
from .engine import STATE, OpDef, Node, Saved, Tensor, result_type, Size
from .errors import TorchRuntimeError, TorchTypeError, TorchIndexError, TorchValueError

ALWAYS = "always"


def op(name, inputs=(), saved=(), attrs=(), doc="", **formulas):
    """A table row. `saved` is a tuple of (slot, condition): the slot holds a tensor when
    `condition` is ALWAYS, or when the named input requires grad. A slot named `result`
    saves the output; any other slot saves the input or extra tensor of that name."""
    rows = []
    for inp in inputs:
        f = formulas[inp]
        names = f.__code__.co_varnames[2:f.__code__.co_argcount]
        rows.append((f, names))
    return OpDef(name, tuple(inputs), tuple(sorted(saved)), tuple(attrs), tuple(rows), doc)


def _where_nonzero(m, cond, value):
    return m.where(cond, value, 0 * value)


TABLE = {
    # -- arithmetic ---------------------------------------------------------------------
    "add": op("AddBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: g if alpha == 1 else m.mul_scalar(g, alpha),
              doc="saves only the number alpha: nothing to free"),
    "sub": op("SubBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: -g if alpha == 1 else m.mul_scalar(g, -alpha),
              doc="saves only the number alpha: nothing to free"),
    "rsub": op("RsubBackward1", ("self",), attrs=("alpha",),
               self=lambda m, g, alpha: -g if alpha == 1 else m.mul_scalar(g, -alpha),
               doc="number - tensor: saves only alpha"),
    "mul": op("MulBackward0", ("self", "other"), saved=(("other", "self"), ("self", "other")),
              self=lambda m, g, other: g * other, other=lambda m, g, self: g * self,
              doc="saves each operand when the other requires grad; a Python number is saved as a 0-d tensor"),
    "div": op("DivBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", "other")),
              self=lambda m, g, other: g / other, other=lambda m, g, self, other: -g * self / (other * other),
              doc="always saves the divisor; saves the dividend when the divisor requires grad"),
    "neg": op("NegBackward0", ("self",), self=lambda m, g: -g, doc="saves nothing"),
    "pow": op("PowBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("exponent",),
              self=lambda m, g, self, exponent: 0 * g if exponent == 0 else
              g * m.mul_scalar(m.pow_scalar(self, exponent - 1), exponent),
              doc="tensor ** number: saves the base"),
    "pow_tensor": op("PowBackward1", ("self", "exponent"),
                     saved=(("exponent", ALWAYS), ("result", ALWAYS), ("self", ALWAYS)),
                     self=lambda m, g, self, exponent: g * _where_nonzero(m, exponent != 0, exponent * self ** (exponent - 1)),
                     exponent=lambda m, g, self, exponent, result: g * _where_nonzero(
                         m, (self != 0) | (exponent < 0), result * m.log(self)),
                     doc="tensor ** tensor: saves base, exponent and result whatever requires grad"),
    "pow_scalar_base": op("PowBackward2", ("exponent",), saved=(("exponent", ALWAYS), ("result", ALWAYS)),
                          attrs=("self",),
                          exponent=lambda m, g, result, self: g * m.mul_scalar(result, float(np.log(self))),
                          doc="number ** tensor: saves the exponent and the result"),
    # -- unary ----------------------------------------------------------------------------
    "exp": op("ExpBackward0", ("self",), saved=(("result", ALWAYS),), self=lambda m, g, result: g * result),
    "log": op("LogBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: g / self),
    "sin": op("SinBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: g * m.cos(self)),
    "cos": op("CosBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: g * -m.sin(self)),
    "tanh": op("TanhBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.tanh_backward(g, result)),
    "sigmoid": op("SigmoidBackward0", ("self",), saved=(("result", ALWAYS),),
                  self=lambda m, g, result: m.sigmoid_backward(g, result)),
    "relu": op("ReluBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.threshold_backward(g, result)),
    "sqrt": op("SqrtBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: g / (2 * result)),
    "rsqrt": op("RsqrtBackward0", ("self",), saved=(("result", ALWAYS),),
                self=lambda m, g, result: m.mul_scalar(g * result * result * result, -0.5)),
    "abs": op("AbsBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: g * m.sign(self)),
    "reciprocal": op("ReciprocalBackward0", ("self",), saved=(("result", ALWAYS),),
                     self=lambda m, g, result: -g * (result * result)),
    "clone": op("CloneBackward0", ("self",), self=lambda m, g: g, doc="saves nothing"),
    # -- reductions -------------------------------------------------------------------------
    "sum": op("SumBackward0", ("self",), attrs=("self_sym_sizes",),
              self=lambda m, g, self_sym_sizes: m.expand(g, self_sym_sizes), doc="saves only the input's sizes"),
    "sum_dim": op("SumBackward1", ("self",), attrs=("dim", "keepdim", "self_sym_sizes"),
                  self=lambda m, g, dim, keepdim, self_sym_sizes: m.expand(
                      g if keepdim else m.unsqueeze_dims(g, dim, len(self_sym_sizes)), self_sym_sizes),
                  doc="saves only dims and sizes"),
    "mean": op("MeanBackward0", ("self",), attrs=("self_sym_numel", "self_sym_sizes"),
               self=lambda m, g, self_sym_numel, self_sym_sizes: m.expand(
                   m.div_scalar(g, self_sym_numel), self_sym_sizes), doc="saves only the input's sizes"),
    "mean_dim": op("MeanBackward1", ("self",), attrs=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
                   self=lambda m, g, dim, keepdim, self_sym_numel, self_sym_sizes: m.expand(
                       m.div_scalar(g if keepdim else m.unsqueeze_dims(g, dim, len(self_sym_sizes)),
                                    _count(self_sym_sizes, dim)), self_sym_sizes),
                   doc="saves only dims and sizes"),
    # -- matrix products ----------------------------------------------------------------------
    "dot": op("DotBackward0", ("self", "tensor"), saved=(("self", "tensor"), ("tensor", "self")),
              self=lambda m, g, tensor: g * tensor, tensor=lambda m, g, self: g * self),
    "mv": op("MvBackward0", ("self", "vec"), saved=(("self", "vec"), ("vec", "self")),
             self=lambda m, g, vec: m.outer(g, vec), vec=lambda m, g, self: m.matmul(m.transpose(self), g)),
    "mm": op("MmBackward0", ("self", "mat2"), saved=(("mat2", "self"), ("self", "mat2")),
             attrs=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"),
             self=lambda m, g, mat2: m.matmul(g, m.transpose(mat2)),
             mat2=lambda m, g, self: m.matmul(m.transpose(self), g)),
    # -- shapes (views: they save sizes, never tensors) ------------------------------------------
    "unsqueeze": op("UnsqueezeBackward0", ("self",), attrs=("dim",),
                    self=lambda m, g, dim: m.squeeze_dim(g, dim)),
    "squeeze_dim_": op("SqueezeBackward4", ("self",), attrs=("dim", "self_sym_sizes"),
                       self=lambda m, g, dim, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "view": op("ViewBackward0", ("self",), attrs=("self_sym_sizes",),
               self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
}

# ----------------------------------------------------------------------------- recording


def _begin(*operands):
    """A sequence number when this op will record a node (taken before computing: a
    forward that raises still uses one, as in PyTorch), else None."""
    if STATE.grad_enabled:
        for t in operands:
            if type(t) is Tensor and t.requires_grad:
                return STATE.next_seq()
    return None


def _record(row, seq, out, inputs, extra=None, attrs=None, view_of=None):
    """Wrap `out` (an ndarray) as a Tensor; if seq is not None, also make its grad_fn.
    `inputs` holds, per table input, a Tensor or a Python number (no edge)."""
    if view_of is not None:
        t = Tensor(out, version=view_of._version_counter, base=view_of._base or view_of)
    else:
        t = Tensor(out)
    if seq is None:
        return t
    nexts = []
    meta = []
    req = {}
    for name, v in zip(row.inputs, inputs):
        if type(v) is Tensor:
            nexts.append((v._edge(), 0))
            meta.append((v.data.shape, v.data.dtype))
            req[name] = v.requires_grad
        else:
            nexts.append((None, 0))
            meta.append(((), out.dtype))
            req[name] = False
    saved = {}
    if row.saved:
        values = dict(zip(row.inputs, inputs))
        if extra:
            values.update(extra)
        for slot, cond in row.saved:
            if cond is ALWAYS or req.get(cond):
                if slot == "result":
                    saved[slot] = None        # filled below, once the output tensor exists
                    continue
                v = values[slot]
                saved[slot] = Saved(v) if type(v) is Tensor else Saved(_wrap_scalar(v), constant=v)
            else:
                saved[slot] = None
    node = Node(row, tuple(nexts), saved, attrs or {}, tuple(meta), seq)
    t.grad_fn = node
    object.__setattr__(t, "requires_grad", True)
    if "result" in saved and any(c is ALWAYS or req.get(c) for s, c in row.saved if s == "result"):
        saved["result"] = Saved(t, is_output=True)
    return t


def _wrap_scalar(v):
    """A Python number as PyTorch wraps it: int -> int64, float -> float64, bool -> bool."""
    if isinstance(v, bool):
        return Tensor(np.array(v, np.bool_))
    if isinstance(v, int):
        return Tensor(np.array(v, np.int64))
    return Tensor(np.array(v, np.float64))


def _arr(v, dt):
    """The NumPy operand for a tensor or a Python number, in the computation dtype."""
    if type(v) is Tensor:
        d = v.data
        return d if d.dtype == dt.np else d.astype(dt.np)
    return dt.np.type(v)


def _check_operand(v, what="other"):
    if type(v) is Tensor or isinstance(v, (int, float, bool)):
        return
    raise TorchTypeError(f"unsupported operand type for tensor operation: '{type(v).__name__}'")


def broadcast_shapes(a, b):
    """PyTorch's infer_size, with its error text (dimensions compared right-aligned)."""
    if a == b:
        return a
    n = max(len(a), len(b))
    out = [0] * n
    for i in range(n - 1, -1, -1):
        ia, ib = i - n + len(a), i - n + len(b)
        da = a[ia] if ia >= 0 else 1
        db = b[ib] if ib >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise TorchRuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                                    f"at non-singleton dimension {i}")
        out[i] = da if db == 1 else db
    return tuple(out)


def _binary(row, ufunc, a, b, dt=None, extra_attrs=None):
    _check_operand(a)
    _check_operand(b)
    seq = _begin(a, b)
    if dt is None:
        dt = result_type(a, b)
    sa = a.data.shape if type(a) is Tensor else ()
    sb = b.data.shape if type(b) is Tensor else ()
    if sa != sb:
        broadcast_shapes(sa, sb)
    with np.errstate(all="ignore"):
        out = ufunc(_arr(a, dt), _arr(b, dt))
    if type(out) is not np.ndarray:
        out = np.asarray(out, dt.np)
    _check_size(out)
    return _record(row, seq, out, (a, b), attrs=extra_attrs)


def _check_size(out):
    _check_numel(out.size)


def _check_numel(n):
    """Refuse a tensor larger than the configured limit, before allocating it."""
    limit = LIMITS.max_elements
    if limit is not None and n > limit:
        from .errors import LimitError
        raise LimitError(f"a tensor of {n:,} elements exceeds the limit of {limit:,} elements per tensor "
                         "(raise it with --max-elements)")


class _Limits:
    __slots__ = ("max_elements",)

    def __init__(self):
        self.max_elements = None


LIMITS = _Limits()

# ----------------------------------------------------------------------------- arithmetic

_ADD, _SUB, _MUL, _DIV = TABLE["add"], TABLE["sub"], TABLE["mul"], TABLE["div"]


def add(a, b, alpha=1):
    if type(a) is not Tensor:                  # 2 + x: PyTorch calls x.__radd__(2) = add(x, 2)
        a, b = b, a
    ufunc = np.add if alpha == 1 else (lambda x, y: x + y * np.asarray(alpha, np.result_type(y)))
    return _binary(_ADD, ufunc, a, b, extra_attrs={"alpha": alpha})


def sub(a, b, alpha=1):
    if type(a) is not Tensor:                  # 2 - x is rsub(x, 2)
        return rsub(b, a, alpha)
    if a.data.dtype == np.bool_ and type(b) is Tensor and b.data.dtype == np.bool_:
        raise TorchRuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                "Use the `^` or `logical_xor()` operator instead.")
    ufunc = np.subtract if alpha == 1 else (lambda x, y: x - y * np.asarray(alpha, np.result_type(y)))
    return _binary(_SUB, ufunc, a, b, extra_attrs={"alpha": alpha})


def rsub(t, number, alpha=1):
    _check_operand(number)
    seq = _begin(t)
    dt = result_type(t, number)
    with np.errstate(all="ignore"):
        out = np.asarray(np.subtract(_arr(number, dt), _arr(t, dt)), dt.np)
    return _record(TABLE["rsub"], seq, out, (t,), attrs={"alpha": alpha})


def mul(a, b):
    if type(a) is not Tensor:
        a, b = b, a
    return _binary(_MUL, np.multiply, a, b)


def div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        return floor_divide(a, b) if rounding_mode == "floor" else _nograd(np.trunc(true_div_data(a, b)))
    if type(a) is not Tensor:                  # 2 / x is reciprocal(x) * 2: two nodes
        return mul(reciprocal(b), a)
    dt = result_type(a, b)
    if dt.kind != E.FLOAT:
        dt = E.float32
    return _binary(_DIV, np.true_divide, a, b, dt=dt)


def true_div_data(a, b):
    dt = result_type(a, b)
    return np.true_divide(_arr(a, dt), _arr(b, dt))


def floor_divide(a, b):
    dt = result_type(a, b)
    with np.errstate(all="ignore"):
        return _nograd(np.asarray(np.floor_divide(_arr(a, dt), _arr(b, dt)), dt.np))


def remainder(a, b):
    dt = result_type(a, b)
    with np.errstate(all="ignore"):
        return _nograd(np.asarray(np.remainder(_arr(a, dt), _arr(b, dt)), dt.np))


def _nograd(out):
    return Tensor(out)


def neg(t):
    seq = _begin(t)
    if t.data.dtype == np.bool_:
        raise TorchRuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _record(TABLE["neg"], seq, np.negative(t.data), (t,))


def pow(a, b):
    if type(a) is not Tensor:                  # number ** tensor
        _check_operand(a)
        seq = _begin(b)
        dt = result_type(a, b)
        with np.errstate(all="ignore"):
            out = np.asarray(np.power(_arr(a, dt), _arr(b, dt)), dt.np)
        return _record(TABLE["pow_scalar_base"], seq, out, (b,), attrs={"self": a})
    if type(b) is Tensor:
        return _binary(TABLE["pow_tensor"], np.power, a, b)
    _check_operand(b)
    dt = result_type(a, b)
    if dt.kind == E.INT and not isinstance(b, bool) and b < 0:
        raise TorchRuntimeError("Integers to negative integer powers are not allowed.")
    seq = _begin(a)
    with np.errstate(all="ignore"):
        out = E._np_pow(_arr(a, dt), b)
    return _record(TABLE["pow"], seq, np.asarray(out, dt.np), (a,), attrs={"exponent": b})


def square(t):
    return pow(t, 2)


def _unary(name, fn, float_only=True):
    row = TABLE[name]

    def forward(t):
        if type(t) is not Tensor:
            raise TorchTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
        seq = _begin(t)
        data = t.data
        if float_only and data.dtype.kind != "f":
            data = data.astype(np.float32)
        with np.errstate(all="ignore"):
            out = fn(data)
        return _record(row, seq, out, (t,))
    forward.__name__ = name
    return forward


def _sigmoid(a):
    return np.asarray(1 / (1 + np.exp(-a)), a.dtype)


exp = _unary("exp", np.exp)
log = _unary("log", np.log)
sin = _unary("sin", np.sin)
cos = _unary("cos", np.cos)
tanh = _unary("tanh", np.tanh)
sigmoid = _unary("sigmoid", _sigmoid)
relu = _unary("relu", lambda a: np.maximum(a, 0).astype(a.dtype, copy=False), float_only=False)
sqrt = _unary("sqrt", np.sqrt)
rsqrt = _unary("rsqrt", lambda a: np.asarray(1 / np.sqrt(a), a.dtype))
abs = _unary("abs", np.abs, float_only=False)
reciprocal = _unary("reciprocal", lambda a: np.asarray(1 / a, a.dtype))


def clone(t, memory_format=None):
    seq = _begin(t)
    return _record(TABLE["clone"], seq, t.data.copy(), (t,))

# ----------------------------------------------------------------------------- reductions


def _dims(dim, ndim):
    if isinstance(dim, (list, tuple)):
        return tuple(E._wrap_dim(d, ndim) for d in dim)
    return (E._wrap_dim(dim, ndim),)


def _count(sizes, dim):
    n = 1
    for d in (dim if isinstance(dim, tuple) else (dim,)):
        n *= sizes[d % len(sizes)] if sizes else 1
    return n


def sum(t, dim=None, keepdim=False, dtype=None):
    seq = _begin(t)
    data = t.data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dtype is not None:
        out_dt = dtype.np
    if dim is None:
        out = np.asarray(data.sum(dtype=out_dt))
        return _record(TABLE["sum"], seq, out, (t,), attrs={"self_sym_sizes": Size(data.shape)})
    dims = _dims(dim, data.ndim)
    out = np.asarray(data.sum(axis=dims if data.ndim else None, keepdims=keepdim, dtype=out_dt))
    return _record(TABLE["sum_dim"], seq, out, (t,),
                   attrs={"dim": dims, "keepdim": bool(keepdim), "self_sym_sizes": Size(data.shape)})


def mean(t, dim=None, keepdim=False, dtype=None):
    data = t.data
    if data.dtype.kind != "f" and dtype is None:
        name = {"i": "Long", "b": "Bool", "u": "Byte"}.get(data.dtype.kind, "Long")
        if data.dtype == np.int32:
            name = "Int"
        raise TorchRuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                                f"point or complex dtype. Got: {name}")
    seq = _begin(t)
    if dim is None:
        out = np.asarray(data.mean(dtype=data.dtype))
        return _record(TABLE["mean"], seq, out, (t,),
                       attrs={"self_sym_numel": data.size, "self_sym_sizes": Size(data.shape)})
    dims = _dims(dim, data.ndim)
    out = np.asarray(data.mean(axis=dims if data.ndim else None, keepdims=keepdim, dtype=data.dtype))
    return _record(TABLE["mean_dim"], seq, out, (t,),
                   attrs={"dim": dims, "keepdim": bool(keepdim), "self_sym_numel": data.size,
                          "self_sym_sizes": Size(data.shape)})

# ----------------------------------------------------------------------------- matrix products


def _shape_str(s):
    return "x".join(map(str, s))


def matmul(a, b):
    if type(a) is not Tensor or type(b) is not Tensor:
        raise TorchTypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                             f"{type(b if type(a) is Tensor else a).__name__}")
    da, db = a.data.ndim, b.data.ndim
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
    raise TorchRuntimeError("batched matmul (3-D and more) is not supported yet")


def dot(a, b):
    if a.data.ndim != 1 or b.data.ndim != 1:
        raise TorchRuntimeError(f"1D tensors expected, but got {a.data.ndim}D and {b.data.ndim}D tensors")
    if a.data.shape[0] != b.data.shape[0]:
        na, nb = a.data.shape[0], b.data.shape[0]
        raise TorchRuntimeError(f"inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the "
                                f"same number of elements, but got {na} and {nb} elements respectively")
    _same_dtype(a, b, "dot")
    seq = _begin(a, b)
    return _record(TABLE["dot"], seq, np.asarray(np.dot(a.data, b.data)), (a, b), extra={"tensor": b})


def mv(a, v):
    if a.data.shape[1] != v.data.shape[0]:
        raise TorchRuntimeError(f"size mismatch, got input ({a.data.shape[0]}), mat ({_shape_str(a.data.shape)}), "
                                f"vec ({v.data.shape[0]})")
    _same_dtype(a, v, "mv")
    seq = _begin(a, v)
    return _record(TABLE["mv"], seq, a.data @ v.data, (a, v), extra={"vec": v})


def mm(a, b):
    if b.data.ndim != 2:
        raise TorchRuntimeError("mat2 must be a matrix")
    if a.data.ndim != 2:
        raise TorchRuntimeError("self must be a matrix")
    if a.data.shape[1] != b.data.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.data.shape)} and "
                                f"{_shape_str(b.data.shape)})")
    _same_dtype(a, b, "mm")
    seq = _begin(a, b)
    ra, rb = a.requires_grad, b.requires_grad
    attrs = {"mat2_sym_sizes": Size(b.data.shape), "mat2_sym_strides": _strides(b) if rb else (),
             "self_sym_sizes": Size(a.data.shape), "self_sym_strides": _strides(a) if ra else ()}
    return _record(TABLE["mm"], seq, a.data @ b.data, (a, b), extra={"mat2": b}, attrs=attrs)


def _strides(t):
    return tuple(s // t.data.itemsize for s in t.data.strides)


def _same_dtype(a, b, name):
    if a.data.dtype != b.data.dtype:
        raise TorchRuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != {b.dtype.name}"
                                if name == "mm" else
                                f"expected both vectors to have same dtype, but found {a.dtype.name} and {b.dtype.name}"
                                if name == "dot" else
                                f"expected scalar type {a.dtype.name} but found {b.dtype.name}")

# ----------------------------------------------------------------------------- shapes


def unsqueeze(t, dim):
    d = E._wrap_dim(dim, t.data.ndim + 1)
    seq = _begin(t)
    return _record(TABLE["unsqueeze"], seq, np.expand_dims(t.data, d), (t,), attrs={"dim": d}, view_of=t)


def _squeeze0_(t):
    """In-place squeeze_(0) on a fresh result: PyTorch records SqueezeBackward4."""
    seq = _begin(t)
    return _record(TABLE["squeeze_dim_"], seq, t.data.reshape(t.data.shape[1:]), (t,),
                   attrs={"dim": 0, "self_sym_sizes": Size(t.data.shape)}, view_of=t)


def reshape(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _infer_shape(shape, t.data.size)
    seq = _begin(t)
    return _record(TABLE["view"], seq, t.data.reshape(shape), (t,),
                   attrs={"self_sym_sizes": Size(t.data.shape)}, view_of=t)


def _infer_shape(shape, numel):
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise TorchRuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise TorchRuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise TorchRuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)

# ----------------------------------------------------------------------------- comparisons (no grad)


def _compare(ufunc):
    def f(a, b):
        if not (type(b) is Tensor or isinstance(b, (int, float, bool))):
            return NotImplemented
        dt = result_type(a, b)
        return Tensor(np.asarray(ufunc(_arr(a, dt), _arr(b, dt))))
    return f

# ----------------------------------------------------------------------------- in-place


def _inplace(t, compute, *args, name):
    """Run `compute(t, *args)` out of place, write the result into t, bump t's version,
    and make the result's node t's new grad_fn (PyTorch's in-place semantics)."""
    if STATE.grad_enabled and t.requires_grad and t.grad_fn is None:
        if t._base is not None:
            raise TorchRuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    result = compute(t, *args)
    if result.data.shape != t.data.shape:
        raise TorchRuntimeError(f"output with shape [{', '.join(map(str, t.data.shape))}] doesn't match the "
                                f"broadcast shape [{', '.join(map(str, result.data.shape))}]")
    np.copyto(t.data, result.data, casting="unsafe")
    t._version_counter.bump()
    node = result.grad_fn
    if node is not None:
        object.__setattr__(t, "grad_fn", node)
        object.__setattr__(t, "requires_grad", True)
        s = node.saved.get("result")
        if s is not None:                      # the saved output is t itself, at its new version
            node.saved["result"] = Saved(t, is_output=True)
    return t


def zero_(t):
    return _fill(t, 0)


def fill_(t, value):
    return _fill(t, value.item() if type(value) is Tensor else value)


def _fill(t, value):
    if STATE.grad_enabled and t.requires_grad and t.grad_fn is None:
        raise TorchRuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation."
                                if t._base is not None else
                                "a leaf Variable that requires grad is being used in an in-place operation.")
    t.data[...] = value
    t._version_counter.bump()
    if t.requires_grad and STATE.grad_enabled:
        seq = STATE.next_seq()
        node = Node(ZERO if value == 0 else FILL, ((t.grad_fn, 0),), {}, {}, ((t.data.shape, t.data.dtype),), seq)
        object.__setattr__(t, "grad_fn", node)
    return t


ZERO = OpDef("ZeroBackward0", ("self",), formulas=((lambda m, g: 0 * g, ()),))
FILL = OpDef("FillBackward0", ("self",), formulas=((lambda m, g: 0 * g, ()),))

# ----------------------------------------------------------------------------- differentiable maths for create_graph


class _TensorMath:
    """The namespace backward formulas use under create_graph: the same operations as
    engine.NUMPY_MATH, recorded as graph nodes so gradients can be differentiated."""

    exp, log, sin, cos, sqrt, tanh, abs = exp, log, sin, cos, sqrt, tanh, abs

    @staticmethod
    def sign(t):
        return Tensor(np.sign(t.data))

    @staticmethod
    def fit(g, shape, dtype):
        if g.data.shape != shape:
            g = _sum_to(g, shape)
        if g.data.dtype != dtype:
            g = to_dtype(g, dtype)
        return g

    matmul = staticmethod(lambda a, b: matmul(a, b))
    transpose = staticmethod(lambda a: a.t())
    outer = staticmethod(lambda a, b: mm(unsqueeze(a, 1), unsqueeze(b, 0)))
    mul_scalar = staticmethod(lambda a, s: mul(a, s))
    div_scalar = staticmethod(lambda a, s: div(a, s))
    pow_scalar = staticmethod(lambda a, e: pow(a, e))

    @staticmethod
    def where(c, a, b):
        from .torch import where
        return where(c, a, b)

    @staticmethod
    def expand(g, shape):
        return expand(g, shape)

    @staticmethod
    def reshape(g, shape):
        return reshape(g, tuple(shape))

    @staticmethod
    def unsqueeze_dims(g, dims, ndim):
        for d in sorted(dims):
            g = unsqueeze(g, d)
        return g

    @staticmethod
    def squeeze_dim(g, dim):
        return reshape(g, g.data.shape[:dim] + g.data.shape[dim + 1:])

    @staticmethod
    def tanh_backward(g, result):
        return g * (1 - result * result)

    @staticmethod
    def sigmoid_backward(g, result):
        return g * (result * (1 - result))

    @staticmethod
    def threshold_backward(g, result):
        return g * Tensor((result.data > 0).astype(result.data.dtype))


def _np_unsqueeze_dims(g, dims, ndim):
    for d in sorted(dims):
        g = np.expand_dims(g, d)
    return g


E._NumpyMath.div_scalar = staticmethod(lambda a, s: a / np.asarray(s, a.dtype))
E._NumpyMath.reshape = staticmethod(lambda g, shape: g.reshape(shape))
E._NumpyMath.unsqueeze_dims = staticmethod(_np_unsqueeze_dims)
E._NumpyMath.squeeze_dim = staticmethod(lambda g, dim: np.squeeze(g, dim))
E._NumpyMath.tanh_backward = staticmethod(lambda g, r: g * (1 - r * r))
E._NumpyMath.sigmoid_backward = staticmethod(lambda g, r: g * (r * (1 - r)))
E._NumpyMath.threshold_backward = staticmethod(lambda g, r: np.where(r > 0, g, np.zeros((), g.dtype)))


def _sum_to(t, shape):
    lead = t.data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and t.data.shape[i + lead] != 1)
    if dims:
        t = sum(t, dims, keepdim=True)
    if lead:
        t = reshape(t, tuple(shape))
    return t


def expand(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(t.data.shape[i - len(shape) + t.data.ndim] if s == -1 else s for i, s in enumerate(shape))
    seq = _begin(t)
    return _record(TABLE["expand"], seq, np.broadcast_to(t.data, shape), (t,),
                   attrs={"self_sym_sizes": Size(t.data.shape)}, view_of=t)


TABLE["expand"] = op("ExpandBackward0", ("self",), attrs=("self_sym_sizes",),
                     self=lambda m, g, self_sym_sizes: m.fit(g, tuple(self_sym_sizes), g.dtype if not isinstance(g, Tensor) else g.data.dtype))
TABLE["to_copy"] = op("ToCopyBackward0", ("self",), attrs=("self_sym_sizes",),
                      self=lambda m, g, self_sym_sizes: g)


def to_dtype(t, dtype):
    dt = dtype.np if isinstance(dtype, E.DType) else np.dtype(dtype)
    if t.data.dtype == dt:
        return t
    seq = _begin(t) if dt.kind == "f" else None
    return _record(TABLE["to_copy"], seq, t.data.astype(dt), (t,), attrs={"self_sym_sizes": Size(t.data.shape)})


E.TENSOR_MATH = _TensorMath()
