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

import builtins as _b
import math as _math
import operator as _operator
import sys as _sys
import time as _time
import weakref
from types import MappingProxyType

import numpy as np

# PyTorch never warns about overflow or nan in arithmetic; NumPy would print RuntimeWarnings.
np.seterr(all="ignore")

from . import engine as E
from .engine import vml
from .engine import STATE, OpDef, Saved, Tensor, result_type, Size
from .engine import TorchAttributeError, TorchRuntimeError, TorchTypeError, TorchIndexError, TorchValueError
from .engine import TorchNotImplementedError as TorchNotImplementedError_

_F32 = np.dtype(np.float32)

ALWAYS = "always"


def op(name, inputs=(), saved=(), attrs=(), doc="", cpp=False, multi=False, **formulas):
    """A table row. `saved` is a tuple of (slot, condition): the slot holds a tensor when
    `condition` is ALWAYS, or when the named input requires grad ("never": a slot that
    PyTorch has but leaves None here). A slot named `result` saves the output; any other
    slot saves the input or extra tensor of that name. `inputs=("tensors",)` marks a
    variadic op (cat, stack), whose backward is one function, the row's `variadic`."""
    rows = []
    for inp in inputs:
        f = formulas.get(inp)
        if f is None:
            continue
        names = f.__code__.co_varnames[2:f.__code__.co_argcount]
        rows.append((f, names))
    return OpDef(name, tuple(inputs), tuple(sorted(saved)), tuple(attrs), tuple(rows), doc, cpp, multi)


def _ndim(g):
    return g._data.ndim if isinstance(g, Tensor) else g.ndim


# -- backward formulas longer than a line, each PyTorch's function of that name in
# FunctionsManual.cpp written against `m`: the same nodes under create_graph, plain NumPy
# otherwise. Branches on values (zeros, ties) read the arrays, as PyTorch's code does.


def _dtype_of(v):
    return v._data.dtype if isinstance(v, Tensor) else v.dtype


def _unsqueeze_multiple(m, t, dim, ndim):
    if len(dim) == 1:
        return m.unsqueeze(t, dim[0])
    for d in sorted(x % ndim for x in dim):
        t = m.unsqueeze(t, d)
    return t


def _prod_backward(m, g, self, result, dim, keepdim):
    """grad * (result / self) when self holds no zero, else prod_safe_zeros_backward."""
    x = _arr_of(self)
    if x.ndim == 0:
        return g
    if dim is None:
        if not (x == 0).any():
            return g * (result / self)
        return m.reshape(_prod_safe_zeros_backward(m, g, m.reshape(self, (-1,)), 0), x.shape)
    dim = dim % x.ndim
    if not keepdim:
        g, result = m.unsqueeze(g, dim), m.unsqueeze(result, dim)
    if not (x == 0).any():
        return g * (result / self)
    return _prod_safe_zeros_backward(m, g, self, dim)


def _prod_safe_zeros_backward(m, g, inp, dim):
    """The product of all the other elements, as exclusive cumulative products from both ends."""
    shape = _arr_of(inp).shape
    n = shape[dim]
    if _arr_of(inp).size == 0:
        return m.expand(g, shape)
    if n == 1:
        return g
    ones = m.constant(np.ones(shape[:dim] + (1,) + shape[dim + 1:], _dtype_of(g)))
    exclusive_normal = m.cumprod(m.cat([ones, m.narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = m.flip(m.narrow(inp, dim, 1, n - 1), (dim,))
    exclusive_reverse = m.flip(m.cumprod(m.cat([ones, narrow_reverse], dim), dim), (dim,))
    return g * (exclusive_normal * exclusive_reverse)


def _norm_backward(m, g, self, result, ord, dim, keepdim):
    """linalg_vector_norm_backward, one branch per order p (p=0: no gradient at all)."""
    x = _arr_of(self)
    p = float(ord)
    if not keepdim and x.ndim and dim:
        g = _unsqueeze_multiple(m, g, dim, x.ndim)
        result = _unsqueeze_multiple(m, result, dim, x.ndim)
    norm = _arr_of(result)
    if p == 0:
        return None
    if p == 1:
        return m.sign(self) * g
    if p == 2:
        return g * m.masked_fill(self / result, norm == 0, 0)
    if np.isinf(p):                      # amax(abs(self)): ties share the gradient
        a = np.abs(x)
        mask = (a == norm) | np.isnan(a)
        count = mask.sum(axis=None if dim is None or not x.ndim else tuple(dim), keepdims=True).astype(_dtype_of(g))
        return m.sign(self) * ((g / m.constant(count)) * m.constant(mask))
    if p < 1:
        scaled = m.sign(self) * m.masked_fill(m.pow_(m.abs(self), p - 1), x == 0, 0)
        return scaled * g * m.pow_scalar(result, 1 - p)
    if p < 2:
        scaled = m.sign(self) * m.pow_(m.abs(self), p - 1)
    else:
        scaled = self * m.pow_(m.abs(self), p - 2)
    return scaled * m.masked_fill(g / m.pow_scalar(result, p - 1), norm == 0, 0)


def _pow_backward_self(m, g, self, exponent):
    zero = m.constant(np.zeros((), _dtype_of(g)))
    return m.where(_arr_of(exponent) == 0, zero, g * (exponent * m.pow(self, m.sub_scalar(exponent, 1))))


def _pow_backward_exponent(m, g, self, exponent, result):
    zero = m.constant(np.zeros((), _dtype_of(g)))
    cond = (_arr_of(self) == 0) & (_arr_of(exponent) >= 0)
    return g * m.where(cond, zero, result * m.log(m.to(self, _dtype_of(result))))


def _reversed_cumsum(m, w, dim):
    return m.flip(m.cumsum(m.flip(w, (dim,)), dim), (dim,))


def _cumsum_backward(m, g, dim):
    shape = _arr_of(g).shape
    if _arr_of(g).size <= 1 or shape[dim % len(shape)] == 1:
        return g
    return _reversed_cumsum(m, g, dim % len(shape))


def _cumprod_backward(m, g, self, dim, result):
    """sum over k >= i of g_k * result_k / self_i; with a zero in self, the exact products
    (an O(n) pass on arrays; under create_graph PyTorch's differentiable O(n^2) one)."""
    x = _arr_of(self)
    if x.size <= 1 or x.shape[dim % x.ndim] == 1:
        return g
    dim = dim % x.ndim
    if not (x == 0).any():
        return _reversed_cumsum(m, result * g, dim) / self
    return m.cumprod_backward_with_zeros(g, self, dim)


def _col_major(sizes, strides):
    """mm's backward keeps a column-major input's gradient column-major (a transposed mm)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def _clamp_min_mask(self, min, max):
    """clamp_backward_min_max: min gets the gradient where self < min (and min < max)."""
    mask = _arr_of(self) < _arr_of(min)
    return mask if max is None else mask & (_arr_of(min) < _arr_of(max))


def _clamp_max_mask(self, min, max):
    mask = _arr_of(self) > _arr_of(max)
    return mask if min is None else mask | (_arr_of(max) < _arr_of(min))


TABLE = {
    # -- arithmetic ---------------------------------------------------------------------
    "add": op("AddBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: g if alpha == 1 else m.mul_scalar(g, alpha),
              doc="saves only the number alpha: nothing to free"),
    "sub": op("SubBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: m.neg_g(g) if alpha == 1 else m.mul_scalar(g, -alpha),
              doc="saves only the number alpha: nothing to free"),
    "rsub": op("RsubBackward1", ("self",), attrs=("alpha",),
               self=lambda m, g, alpha: m.neg_g(g) if alpha == 1 else m.mul_scalar(g, -alpha),
               doc="number - tensor: saves only alpha"),
    "mul": op("MulBackward0", ("self", "other"), saved=(("other", "self"), ("self", "other")),
              self=lambda m, g, other: m.mul_g(g, other), other=lambda m, g, self: m.mul_g(g, self),
              doc="saves each operand when the other requires grad; a Python number is saved as a 0-d tensor"),
    "div": op("DivBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", "other")),
              self=lambda m, g, other: m.div_g(g, other),
              other=lambda m, g, self, other: m.div_tensor_other_backward(g, self, other),
              doc="always saves the divisor; saves the dividend when the divisor requires grad"),
    "neg": op("NegBackward0", ("self",), self=lambda m, g: m.neg_g(g), doc="saves nothing"),
    "pow": op("PowBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("exponent",),
              self=lambda m, g, self, exponent: m.zeros_like(g) if exponent == 0 else
              m.pow_backward(g, self, float(exponent)),
              doc="tensor ** number: saves the base"),
    "pow_tensor": op("PowBackward1", ("self", "exponent"),
                     saved=(("exponent", ALWAYS), ("result", ALWAYS), ("self", ALWAYS)),
                     self=_pow_backward_self, exponent=_pow_backward_exponent,
                     doc="tensor ** tensor: saves base, exponent and result whatever requires grad"),
    "pow_scalar_base": op("PowBackward2", ("exponent",), saved=(("exponent", ALWAYS), ("result", ALWAYS)),
                          attrs=("self",),
                          exponent=lambda m, g, result, self: g * m.mul_scalar(result, float(np.log(self))),
                          doc="number ** tensor: saves the exponent and the result"),
    # -- unary ----------------------------------------------------------------------------
    # m.mul_g(g, x) is g * x (m.div_g: g / x), written into a buffer the engine can spare
    "exp": op("ExpBackward0", ("self",), saved=(("result", ALWAYS),), self=lambda m, g, result: m.mul_g(g, result)),
    "log": op("LogBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: m.div_g(g, self)),
    # g * cos(self), g * -sin(self): NumPy writes the product into the temporary (mul_into)
    "sin": op("SinBackward0", ("self",), saved=(("self", ALWAYS),),
              self=lambda m, g, self: m.mul_into(g, m.cos(self))),
    "cos": op("CosBackward0", ("self",), saved=(("self", ALWAYS),),
              self=lambda m, g, self: m.mul_into(g, m.neg_into(m.sin(self)))),
    "tanh": op("TanhBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.tanh_backward(g, result)),
    "sigmoid": op("SigmoidBackward0", ("self",), saved=(("result", ALWAYS),),
                  self=lambda m, g, result: m.sigmoid_backward(g, result)),
    "relu": op("ReluBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.threshold_backward(g, result)),
    "sqrt": op("SqrtBackward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.div_into(g, m.mul_scalar(result, 2))),
    "rsqrt": op("RsqrtBackward0", ("self",), saved=(("result", ALWAYS),),
                self=lambda m, g, result: m.mul_into(m.mul_scalar(g, -0.5), m.pow_scalar(result, 3))),
    "abs": op("AbsBackward0", ("self",), saved=(("self", ALWAYS),),
              self=lambda m, g, self: m.mul_into(g, m.sign(self))),
    "reciprocal": op("ReciprocalBackward0", ("self",), saved=(("result", ALWAYS),),
                     self=lambda m, g, result: m.mul_into(-g, result * result)),
    "clone": op("CloneBackward0", ("self",), self=lambda m, g: g, doc="saves nothing"),
    # piecewise constant: a zero gradient, and nothing saved
    "floor": op("FloorBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "ceil": op("CeilBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "round": op("RoundBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "trunc": op("TruncBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "sign": op("SignBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "frac": op("FracBackward0", ("self",), self=lambda m, g: g, doc="x - trunc(x): the gradient passes through"),
    # -- reductions -------------------------------------------------------------------------
    "sum": op("SumBackward0", ("self",), attrs=("self_sym_sizes",),
              self=lambda m, g, self_sym_sizes: m.expand(g, self_sym_sizes), doc="saves only the input's sizes"),
    "sum_dim": op("SumBackward1", ("self",), attrs=("dim", "keepdim", "self_sym_sizes"),
                  self=lambda m, g, dim, keepdim, self_sym_sizes: m.expand(
                      g if keepdim else m.unsqueeze_dims(g, dim, len(self_sym_sizes)), self_sym_sizes),
                  doc="saves only dims and sizes"),
    "mean": op("MeanBackward0", ("self",), attrs=("self_sym_numel", "self_sym_sizes"),
               self=lambda m, g, self_sym_numel, self_sym_sizes: m.div_scalar(
                   m.expand(g, self_sym_sizes), self_sym_numel), doc="saves only the input's sizes"),
    "mean_dim": op("MeanBackward1", ("self",), attrs=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
                   # PyTorch's mean_backward: sum's backward (an expanded view), then divided
                   self=lambda m, g, dim, keepdim, self_sym_numel, self_sym_sizes: m.div_scalar(
                       m.expand(g if keepdim else m.unsqueeze_dims(g, dim, len(self_sym_sizes)), self_sym_sizes),
                       _count(self_sym_sizes, dim)),
                   doc="saves only dims and sizes"),
    # -- matrix products ----------------------------------------------------------------------
    "dot": op("DotBackward0", ("self", "tensor"), saved=(("self", "tensor"), ("tensor", "self")),
              self=lambda m, g, tensor: g * tensor, tensor=lambda m, g, self: g * self),
    "mv": op("MvBackward0", ("self", "vec"), saved=(("self", "vec"), ("vec", "self")),
             self=lambda m, g, vec: m.outer(g, vec), vec=lambda m, g, self: m.mv(m.t(self), g)),
    "mm": op("MmBackward0", ("self", "mat2"), saved=(("mat2", "self"), ("self", "mat2")),
             attrs=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"),
             self=lambda m, g, mat2, self_sym_sizes, self_sym_strides: m.t(m.mm(mat2, m.t(g))) if _col_major(
                 self_sym_sizes, self_sym_strides) else m.mm(g, m.t(mat2)),
             mat2=lambda m, g, self, mat2_sym_sizes, mat2_sym_strides: m.t(m.mm(m.t(g), self)) if _col_major(
                 mat2_sym_sizes, mat2_sym_strides) else m.mm(m.t(self), g)),
    # -- shapes (views: they save sizes, never tensors) ------------------------------------------
    "unsqueeze": op("UnsqueezeBackward0", ("self",), attrs=("dim",),
                    self=lambda m, g, dim: m.squeeze_dim(g, dim)),
    "squeeze_dim_": op("SqueezeBackward4", ("self",), attrs=("dim", "self_sym_sizes"),
                       self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "view": op("ViewBackward0", ("self",), attrs=("self_sym_sizes",),
               self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "unsafe_view": op("UnsafeViewBackward0", ("self",), attrs=("self_sym_sizes",),
                      self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "reshape_alias": op("ReshapeAliasBackward0", ("self",), attrs=("self_sym_sizes",),
                        self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes),
                        doc="reshape of a non-contiguous tensor that can still be a view"),
    "squeeze": op("SqueezeBackward0", ("self",), attrs=("self_sym_sizes",),
                  self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "squeeze_dim": op("SqueezeBackward1", ("self",), attrs=("dim", "self_sym_sizes"),
                      self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "squeeze_dims": op("SqueezeBackward2", ("self",), attrs=("dim", "self_sym_sizes"),
                       self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "squeeze_dims_": op("SqueezeBackward5", ("self",), attrs=("dim", "self_sym_sizes"),
                        self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "transpose": op("TransposeBackward0", ("self",), attrs=("dim0", "dim1"),
                    self=lambda m, g, dim0, dim1: m.swapaxes(g, dim0, dim1)),
    "t": op("TBackward0", ("self",), self=lambda m, g: m.t(g)),
    "permute": op("PermuteBackward0", ("self",), attrs=("dims",),
                  self=lambda m, g, dims: m.permute(g, _inverse_perm(dims))),
    "select": op("SelectBackward0", ("self",), attrs=("dim", "index", "self_sym_sizes"),
                 self=lambda m, g, dim, index, self_sym_sizes: m.select_backward(g, self_sym_sizes, dim, index)),
    "slice": op("SliceBackward0", ("self",), attrs=("dim", "end", "self_sym_sizes", "start", "step"),
                self=lambda m, g, dim, start, end, step, self_sym_sizes: m.slice_backward(
                    g, self_sym_sizes, dim, start, end, step)),
    "index": op("IndexBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("self_sym_sizes",),
                self=lambda m, g, _index, self_sym_sizes: m.index_backward(g, self_sym_sizes, _index),
                doc="saves the index tensors, so a second backward fails"),
    "alias": op("AliasBackward0", ("self",), self=lambda m, g: g),
    # -- the nodes backward formulas record under create_graph (higher-order gradients) ---------
    "mul_scalar": op("MulBackward1", ("self",), attrs=("other",), self=lambda m, g, other: m.mul_scalar(g, other),
                     doc="tensor * a C++ Scalar: saves the number, not a tensor"),
    "add_scalar": op("AddBackward1", ("self",), self=lambda m, g: g,
                     doc="tensor + a C++ Scalar: saves nothing"),
    "div_scalar": op("DivBackward1", ("self",), attrs=("other",), self=lambda m, g, other: m.div_scalar(g, other)),
    "tanh_backward": op("TanhBackwardBackward0", ("grad_output", "output"),
                        saved=(("grad_output", ALWAYS), ("output", ALWAYS)),
                        grad_output=lambda m, g, output: m.tanh_backward(g, output),
                        output=lambda m, g, grad_output, output: g * (m.mul_scalar(output, -2) * grad_output)),
    "sigmoid_backward": op("SigmoidBackwardBackward0", ("grad_output", "output"),
                           saved=(("grad_output", ALWAYS), ("output", ALWAYS)),
                           grad_output=lambda m, g, output: m.sigmoid_backward(g, output),
                           output=lambda m, g, grad_output, output: g * grad_output * m.add_scalar(
                               m.mul_scalar(output, -2), 1)),
    "threshold_backward": op("ThresholdBackwardBackward0", ("grad_output", "self"), saved=(("self", ALWAYS),),
                             attrs=("threshold",),
                             grad_output=lambda m, g, self, threshold: m.threshold_backward(g, self),
                             self=lambda m, g: m.zeros_like(g)),
    "sgn": op("SgnBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
              self=lambda m, g: m.zeros_like(g)),
    "cat": op("CatBackward0", ("tensors",), attrs=("dim",), doc="saves only dim"),
    "stack": op("StackBackward0", ("tensors",), attrs=("dim",), doc="saves only dim"),
    # -- one node for several outputs (views of the input): the gradient is a list, one per output
    "split": op("SplitBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_size"), multi=True,
                self=lambda m, g, dim, self_sym_sizes, split_size: _split_backward(
                    g, _split_sizes(self_sym_sizes[dim], split_size), dim, self_sym_sizes),
                doc="one node for every piece: the pieces' gradients side by side (zeros for a piece without)"),
    "split_with_sizes": op("SplitWithSizesBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_sizes"),
                           multi=True,
                           self=lambda m, g, dim, self_sym_sizes, split_sizes: _split_backward(
                               g, split_sizes, dim, self_sym_sizes),
                           doc="one node for every piece: the pieces' gradients side by side"),
    "unbind": op("UnbindBackward0", ("self",), attrs=("dim",), multi=True,
                 self=lambda m, g, dim: _unbind_backward(g, dim),
                 doc="one node for every slice: the slices' gradients stacked"),
    # -- reductions that save tensors -----------------------------------------------------
    "max": op("MaxBackward1", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
              self=lambda m, g, self, result: m.evenly_distribute(g, self, result)),
    "min": op("MinBackward1", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
              self=lambda m, g, self, result: m.evenly_distribute(g, self, result)),
    "max_dim": op("MaxBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "keepdim", "self_sym_sizes"),
                  self=lambda m, g, indices, dim, keepdim, self_sym_sizes: m.value_selecting(
                      g, dim, indices, self_sym_sizes, keepdim)),
    "min_dim": op("MinBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "keepdim", "self_sym_sizes"),
                  self=lambda m, g, indices, dim, keepdim, self_sym_sizes: m.value_selecting(
                      g, dim, indices, self_sym_sizes, keepdim)),
    "prod": op("ProdBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
               self=lambda m, g, self, result: _prod_backward(m, g, self, result, None, False)),
    "prod_dim": op("ProdBackward1", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim", "keepdim"),
                   self=_prod_backward),
    "norm": op("LinalgVectorNormBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
               attrs=("dim", "keepdim", "ord"),
               self=_norm_backward),
    "softmax": op("SoftmaxBackward0", ("self",), saved=(("result", ALWAYS),), attrs=("dim",),
                  self=lambda m, g, result, dim: m.softmax_backward(g, result, dim)),
    "log_softmax": op("LogSoftmaxBackward0", ("self",), saved=(("result", ALWAYS),), attrs=("dim",),
                      self=lambda m, g, result, dim: m.log_softmax_backward(g, result, dim)),
    # -- selection ----------------------------------------------------------------------
    "clamp": op("ClampBackward1", ("self",), saved=(("self", ALWAYS),), attrs=("max", "min"),
                self=lambda m, g, self, min, max: m.mask(g, _in_bounds(self, min, max))),
    "clamp_min": op("ClampMinBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("min",),
                    self=lambda m, g, self, min: m.mask(g, _in_bounds(self, min, None))),
    "clamp_tensor": op("ClampBackward0", ("self", "min", "max"),
                       saved=(("max", ALWAYS), ("min", ALWAYS), ("self", ALWAYS)),
                       self=lambda m, g, self, min, max: m.mask(g, _in_bounds(self, min, max)),
                       min=lambda m, g, self, min, max: m.mask(g, _clamp_min_mask(self, min, max)),
                       max=lambda m, g, self, min, max: m.mask(g, _clamp_max_mask(self, min, max))),
    "where": op("WhereBackward0", ("self", "other"), saved=(("condition", ALWAYS),),
                self=lambda m, g, condition: m.mask(g, _arr_of(condition)),
                other=lambda m, g, condition: m.mask(g, ~_arr_of(condition)),
                doc="saves the condition tensor, so a second backward fails"),
    "maximum": op("MaximumBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                  self=lambda m, g, self, other: m.tie_split(g, self, other),
                  other=lambda m, g, self, other: m.tie_split(g, other, self)),
    "minimum": op("MinimumBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                  self=lambda m, g, self, other: m.tie_split(g, other, self),
                  other=lambda m, g, self, other: m.tie_split(g, self, other)),
    # -- batched products ---------------------------------------------------------------
    "bmm": op("BmmBackward0", ("self", "mat2"), saved=(("mat2", "self"), ("self", "mat2")),
              self=lambda m, g, mat2: m.bmm(g, m.swapaxes(mat2, 1, 2)),
              mat2=lambda m, g, self: m.bmm(m.swapaxes(self, 1, 2), g)),
    # -- the nodes the backward formulas of prod, norm and pow record under create_graph -----
    "sub_scalar": op("SubBackward1", ("self",), self=lambda m, g: g, doc="tensor - a C++ Scalar: saves nothing"),
    "cumprod": op("CumprodBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim",),
                  self=lambda m, g, self, result, dim: _cumprod_backward(m, g, self, dim, result)),
    "cumsum": op("CumsumBackward0", ("self",), attrs=("dim",), self=lambda m, g, dim: _cumsum_backward(m, g, dim)),
    "flip": op("FlipBackward0", ("self",), attrs=("dims",), self=lambda m, g, dims: m.flip(g, dims)),
    "slice_backward": op("SliceBackwardBackward0", ("grad_output",), attrs=("dim", "end", "start", "step"),
                         grad_output=lambda m, g, dim, start, end, step: m.slice(g, dim, start, end, step)),
    "select_backward": op("SelectBackwardBackward0", ("grad_output",), attrs=("dim", "index"),
                          grad_output=lambda m, g, dim, index: m.select(g, dim, index)),
    # -- losses -------------------------------------------------------------------------
    "mse_loss": op("MseLossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                   attrs=("reduction",),
                   self=lambda m, g, self, target, reduction: m.mse_backward(g, self, target, reduction),
                   target=lambda m, g, self, target, reduction: m.mse_backward(g, target, self, reduction)),
    "nll_loss": op("NllLossBackward0", ("self",),
                   saved=(("self", ALWAYS), ("target", ALWAYS), ("total_weight", ALWAYS), ("weight", "never")),
                   attrs=("ignore_index", "reduction"),
                   self=lambda m, g, self, target, total_weight, ignore_index, reduction: m.nll_backward(
                       g, self, target, total_weight, ignore_index, reduction)),
    "bce_logits": op("BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
                     saved=(("pos_weight", "never"), ("self", ALWAYS), ("target", ALWAYS), ("weight", "never")),
                     attrs=("reduction",),
                     self=lambda m, g, self, target, reduction: _loss_mean(m, (m.sigmoid(self) - target) * g,
                                                                           self, reduction),
                     target=lambda m, g, self, reduction: _loss_mean(m, -self * g, self, reduction),
                     doc="its backward is plain arithmetic: under create_graph the gradient's grad_fn is a Mul or Div"),
    # -- the double-backward nodes of softmax, log_softmax and the losses (create_graph) --------
    "softmax_backward": op("SoftmaxBackwardDataBackward0", ("grad_output", "output"),
                           saved=(("grad_output", ALWAYS), ("output", ALWAYS)), attrs=("dim",),
                           grad_output=lambda m, g, output, dim: m.softmax_backward(g, output, dim),
                           output=lambda m, g, grad_output, output, dim: (
                               grad_output * g - m.sum_keepdim(output * grad_output, dim) * g
                               - grad_output * m.sum_keepdim(output * g, dim)),
                           doc="softmax's gradient under create_graph: saves the incoming gradient and softmax's output"),
    "log_softmax_backward": op("LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
                               saved=(("grad_output", ALWAYS), ("output", ALWAYS)), attrs=("dim",),
                               grad_output=lambda m, g, output, dim: g - m.sum_keepdim(g * m.exp(output), dim),
                               output=lambda m, g, grad_output, output, dim: (
                                   -m.sum_keepdim(grad_output, dim) * m.exp(output) * g),
                               doc="log_softmax's gradient under create_graph"),
    "mse_loss_backward": op("MseLossBackwardBackward0", ("grad_output", "self", "target"),
                            saved=(("grad_output", ALWAYS), ("self", ALWAYS), ("target", ALWAYS)),
                            attrs=("reduction",),
                            grad_output=lambda m, g, self, target, reduction: m.mse_backward(g, self, target, reduction),
                            self=lambda m, g, grad_output, self, reduction: _loss_mean(
                                m, m.mul_scalar(g * grad_output, 2), self, reduction),
                            target=lambda m, g, grad_output, target, reduction: -_loss_mean(
                                m, m.mul_scalar(g * grad_output, 2), target, reduction),
                            doc="mse_loss's gradient under create_graph: saves everything it was computed from"),
    "nll_loss_backward": op("NllLossBackwardBackward0", ("grad_output", "self"),
                            saved=(("target", ALWAYS), ("weight", "never")), attrs=("ignore_index", "reduction"),
                            grad_output=lambda m, g, target, ignore_index, reduction: m.nll_loss(
                                g, target, ignore_index, reduction),
                            self=lambda m, g: m.zeros_like(g),
                            doc="nll_loss's gradient under create_graph: linear in the incoming gradient, "
                                "constant in the log-probabilities"),
    # -- in place -----------------------------------------------------------------------
    "fill": op("FillBackward2", ("self",), self=lambda m, g: m.zeros_like(g)),
    "fill_tensor": op("FillBackward3", ("self", "value"), self=lambda m, g: m.zeros_like(g),
                      value=lambda m, g: m.sum_all(g)),
    "zero": op("ZeroBackward0", ("self",), self=lambda m, g: m.zeros_like(g)),
    "copy": op("CopyBackwards", ("self", "src"), self=lambda m, g: m.zeros_like(g), src=lambda m, g: g, cpp=True),
    "index_put": op("IndexPutBackward0", ("self", "values"), saved=(("indices", ALWAYS),), attrs=("accumulate",),
                    self=lambda m, g, _index: m.zero_at(g, _index),
                    values=lambda m, g, _index: m.take(g, _index)),
    "as_strided": op("AsStridedBackward0", ("self",), attrs=("size", "storage_offset", "stride"),
                     self=lambda m, g, _positions, _base_shape: m.as_strided_backward(g, _positions, _base_shape)),
    "masked_fill": op("MaskedFillBackward0", ("self",), saved=(("mask", ALWAYS),),
                      self=lambda m, g, mask: m.masked_fill(g, mask, 0), doc="saves the mask"),
    "masked_fill_tensor": op("MaskedFillBackward1", ("self", "value"), saved=(("mask", ALWAYS),),
                             self=lambda m, g, mask: m.masked_fill(g, mask, 0),
                             value=lambda m, g, mask: m.sum_all(m.mask(g, _arr_of(mask)))),
    "unsqueeze_": op("UnsqueezeBackward1", ("self",), attrs=("dim",), self=lambda m, g, dim: m.squeeze_dim(g, dim)),
    "squeeze_": op("SqueezeBackward3", ("self",), attrs=("self_sym_sizes",),
                   self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "t_": op("TBackward1", ("self",), self=lambda m, g: m.swapaxes(g, 0, -1) if _ndim(g) == 2 else g),
    "transpose_": op("TransposeBackward1", ("self",), attrs=("dim0", "dim1"),
                     self=lambda m, g, dim0, dim1: m.swapaxes(g, dim0, dim1)),
}

# ----------------------------------------------------------------------------- recording


def _begin(*operands):
    """A sequence number when this op will record a node (taken before computing: a
    forward that raises still uses one, as in PyTorch), else None."""
    if LIMITS.deadline is not None:
        _check_reads(*operands)
    if STATE.grad_enabled:
        for t in operands:
            if isinstance(t, Tensor) and t._rg:
                return STATE.next_seq()
    return None


def _plan(row):
    """How `_save` fills each saved slot of a row, worked out once per row: (slot, index
    of the input that supplies it or -1 for the output or None for an `extra` tensor,
    index of the input whose requires_grad decides it, or -1 always, or -2 never)."""
    plan = []
    for slot, cond in row.saved:
        src = -1 if slot == "result" else row.inputs.index(slot) if slot in row.inputs else None
        when = -1 if cond is ALWAYS else row.inputs.index(cond) if cond in row.inputs else -2
        plan.append((slot, src, when))
    row.plan = tuple(plan)
    return row.plan


_NUMBERS = E._NUMBERS
_NO_SAVED = MappingProxyType({})    # the `saved` of every node whose row saves nothing (read-only: shared)
_EMPTY = {}
_META = {}                          # (shape, dtype, ...) of a node's inputs -> its input_meta, shared


def _input_meta(key):
    """The input_meta tuple for a flat key (shape, dtype, shape, dtype, ...): nodes share one
    tuple per key, so recording an op allocates none (the cache is bounded: shapes vary)."""
    meta = _META.get(key)
    if meta is None:
        if len(_META) >= 1024:
            _META.clear()
        meta = _META[key] = tuple(zip(key[::2], key[1::2]))
    return meta


def _save(plan, t, inputs, extra):
    """The `saved` mapping of t's new node, filled as the row's plan says."""
    saved = {}
    for slot, src, when in plan:
        if when >= 0:
            v = inputs[when]
            if not (isinstance(v, Tensor) and v._rg):
                saved[slot] = None
                continue
        elif when == -2:
            saved[slot] = None
            continue
        if src == -1:                           # the output: compact while t has no version counter (Node)
            saved[slot] = t._data if t._vc is None else Saved(t, True)
            continue
        v = inputs[src] if src is not None else extra[slot]
        if isinstance(v, Tensor):
            saved[slot] = Saved(v)
        elif v is None or type(v) in _NUMBERS:  # a number is kept as itself until read (Node.saved)
            saved[slot] = v
        else:
            saved[slot] = Saved.number(v, _wrapped(v))
    return saved


def _compact_saver(row):
    """_save as a function (out, number) -> saved, for calls on a tensor that requires grad and
    at most a Python number (`tanh(z)`, `z * 0.5`): when the row saves nothing but that number
    or the output (both kept compactly, see Node), every node's dict is a copy of one template
    with at most that one value filled in. False for rows that save more."""
    template, fill, from_output = {}, None, False
    for slot, src, when in row.plan or _plan(row):
        template[slot] = None
        if when == -2 or when == 1:              # never, or only when the number requires grad
            continue
        if src not in (-1, 1) or fill is not None:
            row.compact = False
            return False
        fill, from_output = slot, src == -1
    if not template:
        def save(out, number):
            return _NO_SAVED
    elif fill is None:
        def save(out, number):
            return template.copy()
    else:
        def save(out, number):
            saved = template.copy()
            saved[fill] = out if from_output else number
            return saved
    row.compact = save
    return save


def _record(row, seq, out, inputs, extra=None, attrs=None, view_of=None):
    """Wrap `out` (an ndarray) as a Tensor; if seq is not None, also make its grad_fn.
    `inputs` holds, per table input, a Tensor or a Python number (no edge)."""
    if type(out) is not np.ndarray:             # a ufunc on a 0-d array gives a NumPy scalar
        out = np.asarray(out)
    if view_of is None:
        t = Tensor(out)
    else:
        t = Tensor(out, version=view_of._version_counter,
                   base=view_of._base if view_of._base is not None else view_of)
    if seq is None:
        return t
    edges = []
    key = []
    for v in inputs:
        if isinstance(v, Tensor):
            fn = v._fn
            if fn is None and v._rg:
                fn = v._acc or v._accumulator()
            edges.append(fn)
            d = v._data
            key += (d.shape, d.dtype)
        else:
            edges.append(None)
            key += ((), out.dtype)
    plan = row.plan
    if plan is None:
        plan = _plan(row)
    key = tuple(key)
    saved = _save(plan, t, inputs, extra) if plan else _NO_SAVED
    t._fn = row.node_class(row, tuple(edges), saved, attrs or _EMPTY, _META.get(key) or _input_meta(key), seq)
    t._rg = True
    return t


def _record_binary(row, seq, out, a, b, attrs):
    """_record without its lists, for a tensor and a tensor or Python number (the commonest call)."""
    t = Tensor(out)
    if seq is None:
        return t
    fa = a._fn
    if fa is None and a._rg:
        fa = a._acc or a._accumulator()
    da = a._data
    if isinstance(b, Tensor):
        fb = b._fn
        if fb is None and b._rg:
            fb = b._acc or b._accumulator()
        db = b._data
        key = (da.shape, da.dtype, db.shape, db.dtype)
    else:
        fb = None
        key = (da.shape, da.dtype, (), out.dtype)
    meta = _META.get(key) or _input_meta(key)
    plan = row.plan
    if plan is None:
        plan = _plan(row)
    saved = _save(plan, t, (a, b), None) if plan else _NO_SAVED
    t._fn = row.node_class(row, (fa, fb), saved, attrs or _EMPTY, meta, seq)
    t._rg = True
    return t


_wrapped = E.wrapped_number


def _arr(v, dt):
    """The NumPy operand for a tensor or a Python number, in the computation dtype."""
    if isinstance(v, Tensor):
        d = v._data
        return d if d.dtype == dt.np else d.astype(dt.np)
    return dt.np.type(v)


def _check_operand(v, what="other"):
    if type(v) is int and not -2 ** 63 <= v < 2 ** 63:
        from .engine import TorchOverflowError
        raise TorchOverflowError("int too big to convert")
    if isinstance(v, Tensor) or isinstance(v, (int, float, bool)):
        return
    raise TorchTypeError(f"unsupported operand type for tensor operation: '{type(v).__name__}'")


def broadcast_shapes(a, b):
    """PyTorch's infer_size, with its error text (dimensions compared right-aligned)."""
    if a == b:
        return a
    n = _b.max(len(a), len(b))
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
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if not ta:
        _check_operand(a)
    if not (tb or type(b) is float):          # (a float needs no check)
        _check_operand(b)
    if STATE.grad_enabled and ((ta and a._rg) or (tb and b._rg)):
        seq = STATE.seq                       # STATE.next_seq(), inlined: this is every binary op
        STATE.seq = seq + 1
    else:
        seq = None
    if ta and dt is None:
        da = a._data
        if tb:
            db = b._data
            if da.dtype == db.dtype:          # the common case: nothing to promote
                if da.shape != db.shape:
                    _check_broadcast(da.shape, db.shape, da.dtype.itemsize)
                elif da.size > 65535:
                    _check_numel(da.size, da.dtype.itemsize)
                out = ufunc(da, db)
                if type(out) is not np.ndarray:
                    out = np.asarray(out, da.dtype)
                return _record_binary(row, seq, out, a, b, extra_attrs)
        elif type(b) is float or type(b) is int:   # tensor with a Python number
            k = da.dtype.kind
            if k == "f" or (k in "iu" and type(b) is int):
                if da.size > 65535:
                    _check_numel(da.size, da.dtype.itemsize)
                c = _CONST32.get(b) if da.dtype is _F32 else None
                out = ufunc(da, c if c is not None else _number_operand(b, da.dtype))
                if type(out) is not np.ndarray:
                    out = np.asarray(out, da.dtype)
                return _record_binary(row, seq, out, a, b, extra_attrs)
    if dt is None:
        dt = result_type(a, b)
    sa = a._data.shape if ta else ()
    sb = b._data.shape if tb else ()
    if sa != sb:
        _check_broadcast(sa, sb, dt.np.itemsize)
    elif (a._data.size if ta else b._data.size) > 65535:
        _check_numel(a._data.size if ta else b._data.size, dt.np.itemsize)
    out = ufunc(_arr(a, dt), _arr(b, dt))
    if type(out) is not np.ndarray:
        out = np.asarray(out, dt.np)
    if ta:
        return _record_binary(row, seq, out, a, b, extra_attrs)
    return _record(row, seq, out, (a, b), attrs=extra_attrs)


# A Python number operand of a float32 tensor, as the 0-d array NumPy computes with
# (half the cost of converting it to a NumPy scalar on each op, which dominates ops on
# tiny tensors). Only values that convert exactly-as-rounded without a warning are kept:
# not 0 (0. == -0. as dict keys), nan (never equal to itself), nor overflowing floats.
_CONST32 = {}


def _number_operand(b, dtype):
    if dtype is _F32 and 1e-30 < _b.abs(b) < 1e30:
        if len(_CONST32) >= 4096:
            _CONST32.clear()
        c = _CONST32[b] = np.array(b, _F32)
        c.flags.writeable = False
        return c
    return dtype.type(b)


def _check_broadcast(sa, sb, itemsize):
    n = _numel(broadcast_shapes(sa, sb))
    if n > 65535:
        _check_numel(n, itemsize)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _check_size(out):
    _check_numel(out.size)


def _check_like(*shapes, itemsize=4):
    """Before an op whose result has the broadcast shape of `shapes` (an expanded view counts
    every element it shows: its result is that large)."""
    shape = shapes[0]
    try:
        for other in shapes[1:]:
            shape = broadcast_shapes(shape, other)
    except TorchRuntimeError:
        return                     # shapes that do not broadcast: the op raises its own error
    n = _numel(shape)
    if n > 65535:
        _check_numel(n, itemsize)


# The fastest a reduction reads elements and a matrix product does arithmetic here, with room
# to spare (about 10x what NumPy manages): work that cannot finish within the time limit even
# at these rates is refused before it starts.
ELEMENTS_PER_SECOND = 2e10
FLOPS_PER_SECOND = 5e11


def _check_reduced(data, dims):
    """Before a reduction over `dims` (a tuple of wrapped dims; None: all): its result's size."""
    if dims is not None and data.size > 65535:
        _check_numel(_numel(n for d, n in enumerate(data.shape) if d not in dims), data.itemsize)


def _check_reads(*operands):
    """Before an op that reads every element of its operands (an expanded view: all it shows)."""
    if LIMITS.deadline is not None:
        n = _b.sum(t._data.size for t in operands if type(t) is Tensor)
        _check_work(n, ELEMENTS_PER_SECOND, f"an operation that reads {n:,} elements")


def _check_work(amount, rate, what):
    deadline = LIMITS.deadline
    if deadline is None or amount < 1e8:
        return
    left = deadline - _time.monotonic()
    if amount / rate > left:
        from .engine import LimitError
        raise LimitError(f"{what} cannot finish within the time limit of {LIMITS.timeout:g} s "
                         f"(refused before it started; raise it with --timeout)")


def _check_numel(n, itemsize=4):
    """Refuse a tensor over the limits before allocating it: elements per tensor, and the
    process's resident memory plus this tensor against --max-memory (checked for large ones)."""
    limit = LIMITS.max_elements
    if limit is not None and n > limit:
        from .engine import LimitError
        raise LimitError(f"a tensor of {n:,} elements exceeds the limit of {limit:,} elements per tensor "
                         "(raise it with --max-elements)")
    cap = LIMITS.max_bytes
    if cap is not None and n >= 1024:
        need = n * itemsize
        if need + _MEMORY.live > cap or need + _resident_bytes() > cap:
            from .engine import LimitError
            raise LimitError(f"a tensor of {n:,} elements ({need / 2 ** 30:.2g} GiB) would take gradcli past its "
                             f"memory limit of {cap / 2 ** 30:g} GiB (raise it with --max-memory)")


class _Memory:
    """Bytes held by live tensor buffers of 1024 elements or more (counted when allocated,
    uncounted when freed), because untouched pages of a fresh buffer do not show as resident."""

    __slots__ = ("live",)

    def __init__(self):
        self.live = 0

    def track(self, arr):
        if arr.base is None:
            n = arr.nbytes
            self.live += n
            weakref.finalize(arr, self._release, n)

    def _release(self, n):
        self.live -= n


_MEMORY = _Memory()


def _resident_bytes():
    """The process's resident memory, less the freed heap that malloc keeps for reuse."""
    try:
        with open("/proc/self/statm") as f:
            resident = int(f.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return 0
    return resident - _MALLOC.free_bytes()


class _Malloc:
    """glibc's allocator. By default it hands large freed buffers back to the system, so the
    next tensor of that size page-faults on every first touch, which costs as much as the
    arithmetic: a script run asks it to keep them for reuse instead (keep_freed_memory)."""

    __slots__ = ("libc", "info")

    def __init__(self):
        self.libc = self.info = None

    def keep_freed_memory(self):
        if self.libc is not None or not _sys.platform.startswith("linux"):
            return
        try:
            import ctypes
            libc = ctypes.CDLL(None)
            mallopt = libc.mallopt
        except (OSError, AttributeError):         # not glibc (musl, ...): nothing to tune
            self.libc = False
            return
        mallopt(-3, 512 << 20)                     # M_MMAP_THRESHOLD: big buffers from the heap
        mallopt(-1, 1 << 30)                       # M_TRIM_THRESHOLD: keep up to 1 GiB of it
        self.libc = libc
        info = getattr(libc, "mallinfo2", None)   # glibc >= 2.33: the free heap, for --max-memory
        if info is not None:
            class MallInfo2(ctypes.Structure):
                _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                           "usmblks", "fsmblks", "uordblks", "fordblks",
                                                           "keepcost")]
            info.restype = MallInfo2
            self.info = info

    def free_bytes(self):
        return self.info().fordblks if self.info is not None else 0


_MALLOC = _Malloc()


class _Limits:
    __slots__ = ("max_elements", "max_bytes", "timeout", "deadline")

    def __init__(self):
        self.max_elements = None
        self.max_bytes = None
        self.timeout = None          # seconds, and the time.monotonic() when they are up
        self.deadline = None


LIMITS = _Limits()

# ----------------------------------------------------------------------------- arithmetic

_ADD, _SUB, _MUL, _DIV = TABLE["add"], TABLE["sub"], TABLE["mul"], TABLE["div"]


def _alpha(name, alpha):
    if isinstance(alpha, (int, float)) and not isinstance(alpha, bool):
        return alpha
    raise TorchTypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")


_ALPHA_1 = {"alpha": 1}      # the attrs of every add/sub node with the default alpha (nothing writes node attrs)


def _alpha_check(a, b, alpha):
    """PyTorch's alpha_check: a floating alpha cannot scale an integral result."""
    if isinstance(alpha, float) and result_type(a, b).np.kind in "iu":
        raise TorchRuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _deprecated_alpha_first(b, alpha):
    """PyTorch's deprecated overloads add/sub(Number alpha, Tensor other): a number, then a tensor."""
    return (alpha, b) if isinstance(alpha, Tensor) and not isinstance(b, Tensor) else (b, alpha)


def add(a, b, alpha=1):
    b, alpha = _deprecated_alpha_first(b, alpha)
    if not isinstance(a, Tensor):                  # 2 + x: PyTorch calls x.__radd__(2) = add(x, 2)
        a, b = b, a
    if type(alpha) is int and alpha == 1:
        return _binary(_ADD, np.add, a, b, None, _ALPHA_1)
    alpha = _alpha("add", alpha)
    _alpha_check(a, b, alpha)
    ufunc = np.add if alpha == 1 else (lambda x, y: x + y * np.asarray(alpha, np.result_type(y)))
    return _binary(_ADD, ufunc, a, b, extra_attrs={"alpha": alpha})


def sub(a, b, alpha=1):
    b, alpha = _deprecated_alpha_first(b, alpha)
    alpha = _alpha("sub", alpha)
    if not isinstance(a, Tensor):                  # 2 - x is rsub(x, 2)
        return rsub(b, a, alpha)
    if a._data.dtype == np.bool_ and (type(b) is bool or isinstance(b, Tensor) and b._data.dtype == np.bool_):
        raise TorchRuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                "Use the `^` or `logical_xor()` operator instead.")
    if a._data.dtype == np.bool_ or isinstance(b, Tensor) and b._data.dtype == np.bool_:
        raise TorchRuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if type(alpha) is int and alpha == 1:
        return _binary(_SUB, np.subtract, a, b, None, _ALPHA_1)
    _alpha_check(a, b, alpha)
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
    if not isinstance(a, Tensor):
        a, b = b, a
    return _binary(_MUL, np.multiply, a, b)


_NUMBER_META = {}      # shape -> input_meta of a float32 tensor of that shape and a Python float (bounded)


def _operator_method(row, ufunc, attrs, general):
    """Tensor.__add__ and __radd__, or __mul__ and __rmul__ (`t` is the tensor). A small float32
    tensor with a Python float (`z * 0.5`, `z + 1.`), the commonest op of a small script and
    W1's, runs here in one function; a tensor operand goes straight to _binary; an operand
    the op does not take gives NotImplemented, as Python's protocol wants."""
    def method(t, other):
        if isinstance(t, Tensor):
            if type(other) is float:
                da = t._data
                c = _CONST32.get(other)
                if c is None or da.dtype is not _F32 or da.size > 65535:
                    return _binary(row, ufunc, t, other, None, attrs)
                out = ufunc(da, c)
                if type(out) is not np.ndarray:         # a 0-d operand gives a NumPy scalar
                    out = np.asarray(out, _F32)
                r = Tensor(out)
                if not (t._rg and STATE.grad_enabled):
                    return r
                seq = STATE.seq
                STATE.seq = seq + 1
                fn = t._fn
                if fn is None:
                    fn = t._acc or t._accumulator()
                meta = _NUMBER_META.get(da.shape)
                if meta is None:
                    if len(_NUMBER_META) >= 1024:
                        _NUMBER_META.clear()
                    meta = _NUMBER_META[da.shape] = _input_meta((da.shape, _F32, (), _F32))
                save = row.compact
                if save is None:
                    save = _compact_saver(row)
                r._fn = row.node_class(row, (fn, None), save(out, other) if save else
                                           _save(row.plan, r, (t, other), None),
                                           attrs or _EMPTY, meta, seq)
                r._rg = True
                return r
            if isinstance(other, Tensor):
                return _binary(row, ufunc, t, other, None, attrs)
        if not (isinstance(other, Tensor) or isinstance(other, (int, float))):
            return NotImplemented
        return general(t, other)
    method.__name__ = general.__name__ + "_method"
    return method


add_method = _operator_method(_ADD, np.add, _ALPHA_1, add)
mul_method = _operator_method(_MUL, np.multiply, None, mul)


def div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        return floor_divide(a, b) if rounding_mode == "floor" else _nograd(np.trunc(true_div_data(a, b)))
    if not isinstance(a, Tensor):                  # 2 / x is reciprocal(x) * 2: two nodes
        return mul(reciprocal(b), a)
    dt = result_type(a, b)
    if dt.kind != E.FLOAT:
        dt = E.float32
    return _binary(_DIV, np.true_divide, a, b, dt=dt)


def true_div_data(a, b):
    dt = result_type(a, b)
    return np.true_divide(_arr(a, dt), _arr(b, dt))


def _check_shapes(a, b, dt):
    """Broadcasting two operands the way PyTorch does: its error text, and the size limit."""
    sa = a._data.shape if isinstance(a, Tensor) else ()
    sb = b._data.shape if isinstance(b, Tensor) else ()
    if sa != sb:
        _check_broadcast(sa, sb, dt.np.itemsize)
    else:
        _check_like(sa, itemsize=dt.np.itemsize)


def floor_divide(a, b):
    dt = result_type(a, b)
    _check_shapes(a, b, dt)
    with np.errstate(all="ignore"):
        return _nograd(np.asarray(np.floor_divide(_arr(a, dt), _arr(b, dt)), dt.np))


def remainder(a, b):
    dt = result_type(a, b)
    _check_shapes(a, b, dt)
    with np.errstate(all="ignore"):
        return _nograd(np.asarray(np.remainder(_arr(a, dt), _arr(b, dt)), dt.np))


def _nograd(out):
    return Tensor(out)


def neg(t):
    _check_like(t._data.shape)
    seq = _begin(t)
    if t._data.dtype == np.bool_:
        raise TorchRuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _record(TABLE["neg"], seq, np.negative(t._data), (t,))


def _power(a, b):
    """pow with a tensor exponent, as PyTorch computes it per element (std::pow): NumPy's
    float32 power is often an ulp off (0.57735026 ** -2 gives 3.0000002 where PyTorch gives 3.),
    so small float32 arrays are evaluated in float64 and rounded once, as in _rounded."""
    if a.dtype == np.float32 and b.dtype == np.float32 and _b.max(a.size, b.size) <= 65536:
        return np.power(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return np.power(a, b)


def pow(a, b):
    if not isinstance(a, Tensor):                  # number ** tensor
        _check_operand(a)
        _check_like(b._data.shape)
        seq = _begin(b)
        dt = result_type(a, b)
        with np.errstate(all="ignore"):
            out = np.asarray(_power(_arr(a, dt), _arr(b, dt)), dt.np)
        return _record(TABLE["pow_scalar_base"], seq, out, (b,), attrs={"self": a})
    if isinstance(b, Tensor):
        return _binary(TABLE["pow_tensor"], _power, a, b)
    _check_operand(b)
    dt = result_type(a, b)
    if dt.kind == E.INT and not isinstance(b, bool) and b < 0:
        raise TorchRuntimeError("Integers to negative integer powers are not allowed.")
    _check_like(a._data.shape, itemsize=dt.np.itemsize)
    seq = _begin(a)
    with np.errstate(all="ignore"):
        out = E._np_pow(_arr(a, dt), b)
    return _record(TABLE["pow"], seq, np.asarray(out, dt.np), (a,), attrs={"exponent": b})


def square(t):
    return pow(t, 2)


def _unary(name, fn, float_only=True):
    row = TABLE[name]

    def forward(t):
        if not isinstance(t, Tensor):
            raise TorchTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
        data = t._data
        dtype = data.dtype                      # (the input's, for input_meta: data may be cast below)
        if data.size > 65535:
            _check_numel(data.size, dtype.itemsize)
        if float_only and dtype.kind != "f":
            data = data.astype(np.float32)
        out = fn(data)
        if type(out) is not np.ndarray:         # a ufunc on a 0-d array gives a NumPy scalar
            out = np.asarray(out)
        r = Tensor(out)
        if not (t._rg and STATE.grad_enabled):
            return r
        seq = STATE.seq                         # _record, inlined for one tensor input
        STATE.seq = seq + 1
        edge = t._fn
        if edge is None:
            edge = t._acc or t._accumulator()
        key = (data.shape, dtype)
        save = row.compact
        if save is None:
            save = _compact_saver(row)
        r._fn = row.node_class(row, (edge,), save(out, None) if save else _save(row.plan, r, (t,), None),
                                   _EMPTY, _META.get(key) or _input_meta(key), seq)
        r._rg = True
        return r
    forward.__name__ = name
    return forward


def _sigmoid(a):
    return np.asarray(1 / (1 + np.exp(-a)), a.dtype)


def _rounded(fn, scalar=None):
    """Evaluate in float64 and round once, for small float32 arrays: NumPy's float32 kernels
    can be 1 ulp off the correctly rounded value PyTorch prints (exp(6.) gives 403.42877
    instead of 403.42880). Large arrays keep the fast float32 kernels. A one-element vector
    goes through `scalar` (the math module's float64 function, equal to NumPy's after the
    rounding): a third of the cost of three NumPy calls, which is most of a small op's."""
    def f(a):
        if scalar is not None and a.shape == (1,) and a.dtype is _F32:
            out = np.empty(1, _F32)                     # (then setting the element: the quickest 1-element array)
            try:
                out[0] = scalar(a.item())
                return out
            except (ValueError, OverflowError):         # outside the math domain: NumPy's nan/inf
                pass
        if a.dtype == np.float32 and a.size <= 65536:
            return fn(a.astype(np.float64)).astype(np.float32)
        return fn(a)
    f.__name__ = getattr(fn, "__name__", "f")
    return f


_exp, _log, _sin, _cos, _tanh = map(_rounded, (np.exp, np.log, np.sin, np.cos, np.tanh),
                                    (_math.exp, _math.log, _math.sin, _math.cos, _math.tanh))
exp = _unary("exp", _exp)
log = _unary("log", _log)
sin = _unary("sin", _sin)
cos = _unary("cos", _cos)
tanh = _unary("tanh", _tanh)
sigmoid = _unary("sigmoid", _rounded(_sigmoid))
# PyTorch keeps x unless x < 0: relu(-0.) is -0. and relu(nan) is nan (np.maximum would give +0.)
relu = _unary("relu", lambda a: np.where(a < 0, np.zeros((), a.dtype), a), float_only=False)
sqrt = _unary("sqrt", vml.sqrt)         # (MKL's float32 kernel, as PyTorch's)
rsqrt = _unary("rsqrt", _rounded(lambda a: np.asarray(1 / np.sqrt(a), a.dtype)))
abs = _unary("abs", np.abs, float_only=False)
reciprocal = _unary("reciprocal", lambda a: np.asarray(1 / a, a.dtype))
floor = _unary("floor", np.floor, float_only=False)
ceil = _unary("ceil", np.ceil, float_only=False)
round = _unary("round", np.round, float_only=False)          # half to even, as PyTorch
trunc = _unary("trunc", np.trunc, float_only=False)
sign = _unary("sign", lambda a: a.copy() if a.dtype == np.bool_ else np.sign(a), float_only=False)
frac = _unary("frac", lambda a: a - np.trunc(a))


def _arg_extreme(name, pick):
    def arg(t, dim=None, keepdim=False):
        _check_reads(t)
        data = t._data
        if dim is None:
            if data.size == 0:
                raise TorchIndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            out = np.asarray(pick(data.reshape(-1)), np.int64)
            if keepdim:
                out = out.reshape((1,) * data.ndim)
            return Tensor(out)
        d = _norm_dim(dim, _b.max(data.ndim, 1))
        if data.ndim == 0:
            return Tensor(np.asarray(0, np.int64))
        _check_reduced(data, (d,))
        out = np.asarray(pick(data, axis=d), np.int64)
        return Tensor(np.expand_dims(out, d) if keepdim else out)
    arg.__name__ = name
    return arg


argmax = _arg_extreme("argmax", np.argmax)
argmin = _arg_extreme("argmin", np.argmin)


def clone(t, memory_format=None):
    if t._data.size > 65535:
        _check_numel(t._data.size, t._data.itemsize)
    seq = _begin(t)
    # torch.preserve_format: a dense tensor (_dense, below) keeps its strides (a clone of x.t() is
    # not contiguous, so reshaping it copies); any other is cloned contiguous.
    return _record(TABLE["clone"], seq, t._data.copy(order="K" if _dense(t._data) else "C"), (t,))

# ----------------------------------------------------------------------------- reductions


def _dims(dim, ndim):
    """The reduced axes, wrapped; an empty list reduces every axis (None)."""
    if not isinstance(dim, (list, tuple)):
        dim = E._wrap_dim(dim, ndim)
        return (dim,) if ndim else None
    dims = tuple(E._wrap_dim(d, ndim) for d in dim)
    for k, d in enumerate(dims):
        if d in dims[:k]:
            raise TorchRuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims if dims and ndim else None


def _raw_dims(dim):
    """Dims as PyTorch saves them: as written (negative ones included), always a tuple."""
    return tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)


def _count(sizes, dim):
    n = 1
    for d in (dim if dim != () else range(len(sizes))) if isinstance(dim, tuple) else (dim,):
        n *= sizes[d % len(sizes)] if sizes else 1
    return n


def sum(t, dim=None, keepdim=False, dtype=None):
    seq = _begin(t)
    data = t._data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dtype is not None:
        out_dt = dtype.np
    if dim is None:
        out = np.asarray(data.sum(dtype=out_dt))
        return _record(TABLE["sum"], seq, out, (t,), attrs={"self_sym_sizes": tuple(data.shape)})
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    out = np.asarray(data.sum(axis=dims, keepdims=keepdim, dtype=out_dt))
    return _record(TABLE["sum_dim"], seq, out, (t,),
                   attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim), "self_sym_sizes": tuple(data.shape)})


def mean(t, dim=None, keepdim=False, dtype=None):
    data = t._data
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
                       attrs={"self_sym_numel": data.size, "self_sym_sizes": tuple(data.shape)})
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    out = np.asarray(data.mean(axis=dims, keepdims=keepdim, dtype=data.dtype))
    return _record(TABLE["mean_dim"], seq, out, (t,),
                   attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim), "self_sym_numel": data.size,
                          "self_sym_sizes": tuple(data.shape)})

# ----------------------------------------------------------------------------- matrix products


def _shape_str(s):
    return "x".join(map(str, s))


def matmul(a, b):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TorchTypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                             f"{type(b if isinstance(a, Tensor) else a).__name__}")
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


def _strides(t):
    d = t._data
    n = d.itemsize
    return tuple([s // n for s in d.strides])       # (a list, not a generator: half the cost)


_SCALAR_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _same_dtype(a, b, name):
    """The mixed-dtype errors of dot, mv and mm, each worded as PyTorch words it."""
    if a._data.dtype == b._data.dtype:
        return
    da, db = a._data.dtype.name, b._data.dtype.name
    if name == "dot":
        msg = (f"dot : expected both vectors to have same dtype, but found {_SCALAR_NAME[da]} and "
               f"{_SCALAR_NAME[db]}")
    elif name == "mv":
        msg = (f"addmv input tensors must have the same dtype, but got {_SCALAR_NAME[db]}, {_SCALAR_NAME[da]}, "
               f"and {_SCALAR_NAME[db]}")
    else:
        msg = f"expected m1 and m2 to have the same dtype, but got: {_C_NAME[da]} != {_C_NAME[db]}"
    raise TorchRuntimeError(msg)


# ----------------------------------------------------------------------------- shapes


def unsqueeze(t, dim):
    d = E._wrap_dim(dim, t._data.ndim + 1)
    seq = _begin(t)
    return _view(TABLE["unsqueeze"], seq, np.expand_dims(t._data, d), t, {"dim": dim})


def _squeeze0_(t):
    """In-place squeeze_(0) on a fresh result: PyTorch records SqueezeBackward4."""
    seq = _begin(t)
    return _view(TABLE["squeeze_dim_"], seq, t._data.reshape(t._data.shape[1:]), t,
                 {"dim": 0, "self_sym_sizes": tuple(t._data.shape)})


def _type_name(v):
    return "torch.dtype" if isinstance(v, E.DType) else type(v).__name__


def _infer_shape(shape, numel, op="reshape"):
    # a one-element integer tensor is an int to PyTorch's parser
    shape = [s.item() if isinstance(s, Tensor) and s._data.ndim == 0 and s._data.dtype.kind in "iu" else s
             for s in shape]
    for i, s in enumerate(shape):
        if isinstance(s, int) and s < -1:
            raise TorchRuntimeError(f"invalid shape dimension {s} at index {i} of shape [{', '.join(map(str, shape))}]")
        if not isinstance(s, int):
            if len(shape) == 1:
                raise TorchTypeError(f"{op}(): argument 'shape' (position 1) must be tuple of ints, not {_type_name(s)}")
            raise TorchTypeError(f"{op}(): argument 'shape' failed to unpack the object at pos {i + 1} with error "
                                 f"\"type must be tuple of ints,but got {_type_name(s)}\"")
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
        if not (isinstance(b, Tensor) or isinstance(b, (int, float, bool))):
            return NotImplemented
        _check_operand(b)
        dt = result_type(a, b)
        _check_shapes(a, b, dt)
        return Tensor(np.asarray(ufunc(_arr(a, dt), _arr(b, dt))))
    return f

# ----------------------------------------------------------------------------- in-place


_NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
                 "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                 "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                 "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
INVALID = E.INVALID
short_name = E.short_name


def _multi_view_error(t, modified):
    """PyTorch's error for an in-place change of a view that is one of several outputs of a node
    (split, unbind), or of a view of one, named by the view's own grad_fn and output number."""
    return (f"Output {t.output_nr} of {short_name(t._fn.op.name)} is a view and {modified} modified inplace. This view "
            "is the output of a function that returns multiple views. Such functions do not allow the output views "
            "to be modified inplace. You should replace the inplace operation by an out-of-place one.")


_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                    "single memory location. Please clone() the tensor before performing the operation.")
_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


class _ViewMeta:
    """What PyTorch keeps for a differentiable view (DifferentiableViewMeta): whether it was made
    under no_grad, and the version of the storage its grad_fn was made for."""

    __slots__ = ("ref", "version", "no_grad", "multi")     # multi: one of several views of one node


def _register_view(view, of, multi=False):
    """Remember a new view on its storage's version counter, so an in-place change of the
    base or of another view can rebuild its grad_fn (_refresh_views)."""
    ver = view._version_counter
    views = getattr(ver, "views", None)
    if views is None:
        views = ver.views = {}
    parent = _view_meta(of) if of._base is not None else None
    meta = _ViewMeta()
    key = id(view)

    def forget(ref):
        if views.get(key) is meta:
            del views[key]
    meta.ref = weakref.ref(view, forget)
    meta.version = ver.v
    meta.no_grad = not STATE.grad_enabled or (parent is not None and parent.no_grad)
    meta.multi = multi or (parent is not None and parent.multi)      # (a view of such a view is one too)
    views[key] = meta


def _view_meta(t):
    views = getattr(t._version_counter, "views", None)
    meta = views.get(id(t)) if views else None
    return meta if meta is not None and meta.ref() is t else None


def _view(row, seq, out, t, attrs):
    """Record a view op: the result shares t's storage, version counter and (root) base."""
    v = _record(row, seq, out, (t,), attrs=attrs, view_of=t)
    _register_view(v, t)
    return v


def _check_inplace(t, args):
    """PyTorch's check_inplace, before anything is written: in grad mode, when some input
    requires grad, a leaf that requires grad (or a view of one), or a view made under
    no_grad, may not be modified in place."""
    if not STATE.grad_enabled:
        return
    rg = t.requires_grad
    if not (rg or any(isinstance(a, Tensor) and a.requires_grad for a in args)):
        return
    if t._base is not None:
        meta = _view_meta(t)
        if meta is not None and meta.no_grad:
            raise TorchRuntimeError(_NO_GRAD_VIEW)
        if meta is not None and meta.multi:
            raise TorchRuntimeError(_multi_view_error(t, "is being"))
        if rg and t._base._fn is None:
            raise TorchRuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                                    "operation.")
    if rg and t._fn is None:
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _check_writable(t):
    if t._data.size and any(st == 0 and n > 1 for st, n in zip(t._data.strides, t._data.shape)):
        raise TorchRuntimeError(_OVERLAP)


def _inplace(t, compute, *args, name, cast=False):
    """An in-place op: `compute(t, *args)` runs it out of place (recording its node), the result
    is written into t, t's version is bumped, and the node becomes t's grad_fn; on a view, the
    base gets a CopySlices node instead and the view's grad_fn is rebuilt (PyTorch's
    rebase_history). `cast`: the result may be cast to t's dtype (copy_, fill_), else only
    within a dtype category, as PyTorch allows."""
    fresh_views((t,) + args)
    _check_inplace(t, args)
    _check_writable(t)
    for a in args:
        if isinstance(a, Tensor) and _partial_overlap(t._data, a._data):
            raise TorchRuntimeError(_PARTIAL_OVERLAP)
    if not cast and args and (isinstance(args[0], Tensor) or isinstance(args[0], (int, float))):
        # PyTorch checks the promoted type against t's before running the kernel
        promoted = result_type(t, args[0])
        if promoted.kind > E.dtype_of(t._data).kind:
            raise TorchRuntimeError(f"result type {_SCALAR_NAME[promoted.np.name]} can't be cast to the desired "
                                    f"output type {_SCALAR_NAME[t._data.dtype.name]}")
    result = compute(t, *args)
    out = result._data
    if out.shape != t._data.shape:
        raise TorchRuntimeError(f"output with shape [{', '.join(map(str, t._data.shape))}] doesn't match the "
                                f"broadcast shape [{', '.join(map(str, out.shape))}]")
    if not cast and out.dtype != t._data.dtype and E.dtype_of(out).kind > E.dtype_of(t._data).kind:
        raise TorchRuntimeError(f"result type {_SCALAR_NAME[out.dtype.name]} can't be cast to the desired output "
                                f"type {_SCALAR_NAME[t._data.dtype.name]}")
    node = result._fn
    if node is not None:
        s = node.saved.get("self")
        if s is not None and s.tensor is t:
            # the op needs t's value from before the change: PyTorch saves a clone of it
            # (recorded, so it reads `grad_fn=<CloneBackward0>`), made right after the node
            node.saved["self"] = Saved(_record(TABLE["clone"], _begin(t), t._data.copy(), (t,)))
    np.copyto(t._data, out, casting="unsafe")
    t._version_counter.bump()
    if node is not None:
        _set_history(t, node)
    _refresh_views(t)
    if node is not None:
        for slot, s in node.saved.items():
            if s is not None and s.is_output:          # the saved output is t itself, at its new version
                s = node.saved[slot] = Saved(t, is_output=True)
                if t._base is not None:                # E5 then names the view's grad_fn (AsStrided)
                    s.name_fn = t._fn
    return t


def _partial_overlap(a, b):
    """PyTorch's get_overlap_status(...) == Partial: both dense, their memory ranges meet, and
    they are not the very same elements in the same layout (TooHard, for a non-dense one, passes)."""
    if a is b or not a.size or not b.size or not (_dense(a) and _dense(b)):
        return False
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if a0 == b0 and a1 == b1:
        return a.strides != b.strides
    return a0 < b1 and b0 < a1


def _dense(a):
    """Non-overlapping and dense: the elements fill a block of memory exactly (any dim order)."""
    expected = a.itemsize
    for st, n in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def _set_history(t, node):
    """t's new grad_fn; on a view, the base's becomes CopySlices(base's old grad_fn, node)."""
    base = t._base
    if base is None:
        t._fn = node
        t._rg = True
        return
    edges = (base._edge(),) + node.edges[1:]
    meta = ((base._data.shape, base._data.dtype),) + node.input_meta[1:]
    attrs = {"_fn": node, "_positions": _geometry(t, base)["_positions"]}
    base._fn = COPY_SLICES.node_class(COPY_SLICES, edges, {}, attrs, meta, STATE.next_seq())
    base._rg = True


def _refresh_views(t):
    """After an in-place change of t's storage: t's own grad_fn is rebuilt now if t is a view
    (PyTorch's rebase_history); every other view of the storage is now stale, and is rebuilt
    when next read (fresh_view): the interpreter refreshes the ones its variables hold after
    each statement, as PyTorch rebuilds a view's grad_fn whenever it is read.

    While a script runs, the other live views are rebuilt at once, so that their nodes belong
    to the statement that changed them (what a user means by "made on line N")."""
    views = getattr(t._version_counter, "views", None)
    if not views:
        return
    if t._base is not None:
        fresh_view(t)
    if len(views) > (1 if id(t) in views else 0):
        if STATE.capture is None:
            STATE.stale = True
            return
        for meta in list(views.values()):
            v = meta.ref()
            if v is not None and v is not t:
                fresh_view(v)


def fresh_view(v):
    """A view whose storage changed in place since its grad_fn was made gets
    AsStridedBackward0 of its base (or <Invalid>, for a view made under no_grad)."""
    meta = _view_meta(v)
    if meta is None:
        return
    ver = v._version_counter.v
    if meta.version == ver:
        return
    base = v._base
    if v._fn is None and not base._rg:
        return
    meta.version = ver
    if meta.no_grad:                    # PyTorch refuses to read such a view's grad_fn
        v._fn = INVALID.node_class(INVALID, (), {}, {}, (), -1)
        return
    if meta.multi and v._fn is not None:    # nor one of several views: reading its grad_fn raises
        if v._fn.op is not INVALID:
            v._fn = INVALID.node_class(INVALID, (), {}, {"_error": _multi_view_error(v, "its base or another view of "
                                                                               "its base has been")}, (), -1)
        return
    row = TABLE["as_strided"]
    v._fn = row.node_class(row, (base._edge(),), {}, _geometry(v, base),
                               ((base._data.shape, base._data.dtype),), STATE.next_seq())
    v._rg = True


def fresh_views(values):
    """fresh_view for every view among values (and one container level inside them)."""
    for v in values:
        if isinstance(v, Tensor):
            if v._base is not None:
                fresh_view(v)
        elif isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, Tensor) and w._base is not None:
                    fresh_view(w)
        elif isinstance(v, dict):
            for w in v.values():
                if isinstance(w, Tensor) and w._base is not None:
                    fresh_view(w)


def _geometry(view, base):
    """AsStridedBackward0's attributes for a view of base (in elements), and `_positions`: the
    flat index in base of every element of the view, for the backward formulas."""
    a, b = view._data, base._data
    isz = b.itemsize
    b0 = b.__array_interface__["data"][0]
    va = _addresses(a)
    if b.flags.c_contiguous:
        pos = (va - b0) // isz
        inside = b.size > 0 and ((pos >= 0) & (pos < b.size)).all()
    else:
        ba = _addresses(b).reshape(-1)
        order = np.argsort(ba, kind="stable")
        k = np.minimum(np.searchsorted(ba[order], va.reshape(-1)), _b.max(b.size - 1, 0))
        pos = order[k].reshape(a.shape) if b.size else k.reshape(a.shape)
        inside = b.size > 0 and (ba[pos.reshape(-1)] == va.reshape(-1)).all()
    if a.size and (not inside or a.dtype != b.dtype):
        pos = None                      # the base's data was replaced: refused if a backward needs it
    return {"size": tuple(a.shape), "stride": tuple(st // isz for st in a.strides),
            "storage_offset": (a.__array_interface__["data"][0] - b0) // isz,
            "_positions": pos, "_base_shape": tuple(b.shape)}


def _check_positions(positions):
    if positions is None:
        raise TorchNotImplementedError_("gradcli cannot follow this view to its base any more (the base's data "
                                        "was replaced)")


def _addresses(a):
    """The memory address of every element of array a."""
    out = np.full(a.shape, a.__array_interface__["data"][0], np.int64)
    for ax, (n, st) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[ax] = n
        out = out + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return out


def _copy_slices_backward(node, g, create_graph):
    """CopySlices: the base's gradient passes through, except over the view's elements, where the
    wrapped op's backward decides (and gives the gradients of its other inputs)."""
    if node.attrs.get("_released"):          # a non-retaining backward ran it: E1, as in PyTorch
        raise E.BackwardTwiceError(node, "fn")
    fn = node.attrs["_fn"]
    pos = node.attrs["_positions"]
    _check_positions(pos)
    if create_graph:            # a constant incoming gradient only: the scatter below is not recorded
        if g._rg:
            raise TorchNotImplementedError_("create_graph=True through CopySlices is not supported by gradcli yet "
                                            "when its incoming gradient requires grad")
        g = g._data
    result = np.array(g, copy=True, order="C")        # C order: `flat` must be a view of it
    flat = result.reshape(-1)
    grad_slice = flat[pos]
    outs = E._apply(fn, Tensor(grad_slice) if create_graph else grad_slice, create_graph, None)
    first = outs[0]
    if create_graph and first is not None:
        if first._rg:
            raise TorchNotImplementedError_("create_graph=True through CopySlices is not supported by gradcli yet "
                                            "when the wrapped op's gradient requires grad")
        first = first._data
    flat[pos] = 0 if first is None else first
    return [Tensor(result) if create_graph else result] + list(outs[1:])


COPY_SLICES = OpDef("CopySlices", ("self", "src"), cpp=True, doc="an in-place op on a view, applied to its base",
                    apply=_copy_slices_backward)


def _inplace_view(t, out, row, attrs):
    """An in-place view op (t_, transpose_): t's metadata changes, its version is bumped, and in
    grad mode it gets the op's node (a view stays a view of its base)."""
    fresh_views((t,))
    _check_inplace(t, ())
    seq = _begin(t)
    edge, meta = t._edge(), (t._data.shape, t._data.dtype)
    t._data = out
    t._version_counter.bump()
    if seq is not None:
        t._fn = row.node_class(row, (edge,), {}, attrs, (meta,), seq)
        own = _view_meta(t) if t._base is not None else None
        if own is not None:
            own.version = t._version_counter.v
    _refresh_views(t)
    return t


def t_inplace(t):
    if t._data.ndim > 2:
        raise TorchRuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {t._data.ndim}D")
    return _inplace_view(t, t._data.T, TABLE["t_"], {})


def transpose_(t, dim0, dim1):
    nd = t._data.ndim
    a, b = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
    return _inplace_view(t, np.swapaxes(t._data, a, b), TABLE["transpose_"], {"dim0": dim0, "dim1": dim1})


def unsqueeze_(t, dim):
    d = E._wrap_dim(dim, t._data.ndim + 1)
    return _inplace_view(t, np.expand_dims(t._data, d), TABLE["unsqueeze_"], {"dim": d})


def squeeze_(t, dim=None):
    sizes = tuple(t._data.shape)
    if isinstance(dim, (tuple, list)):
        axes = _squeezed_dims(t, dim)
        out = np.squeeze(t._data, axes) if axes else t._data
        return _inplace_view(t, out, TABLE["squeeze_dims_"], {"dim": tuple(dim), "self_sym_sizes": sizes})
    if dim is None:
        return _inplace_view(t, np.squeeze(t._data) if t._data.ndim else t._data, TABLE["squeeze_"],
                             {"self_sym_sizes": sizes})
    d = _norm_dim(dim, t._data.ndim)
    out = np.squeeze(t._data, d) if t._data.ndim and sizes[d] == 1 else t._data
    return _inplace_view(t, out, TABLE["squeeze_dim_"], {"dim": dim, "self_sym_sizes": sizes})


def masked_fill(t, mask, value):
    if not isinstance(mask, Tensor):
        raise TorchTypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise TorchRuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                                f"{_C_NAME[mask._data.dtype.name]}")
    if isinstance(value, Tensor) and value._data.ndim:
        raise TorchRuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                f"{value._data.ndim} dimension(s).")
    if not isinstance(value, Tensor):
        _check_operand(value, "value")
    _check_like(broadcast_shapes(t._data.shape, mask._data.shape))
    fill = value._data if isinstance(value, Tensor) else value
    out = np.asarray(np.where(mask._data, fill, t._data)).astype(t._data.dtype, copy=False)
    if isinstance(value, Tensor):
        return _record(TABLE["masked_fill_tensor"], _begin(t, value), out, (t, value), extra={"mask": mask})
    return _record(TABLE["masked_fill"], _begin(t), out, (t,), extra={"mask": mask})


def masked_fill_(t, mask, value):
    return _inplace(t, lambda x, *v: masked_fill(x, mask, *v), value, name="masked_fill_", cast=True)


def zero_(t):
    return _inplace(t, lambda x: _record(TABLE["zero"], _begin(x), np.zeros_like(x._data), (x,)), name="zero_")


def fill_(t, value):
    if isinstance(value, Tensor):                  # FillBackward3: the value's gradient is the sum
        if value._data.ndim:
            raise TorchRuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                    f"{value._data.ndim} dimensions.")
        return _inplace(t, lambda x, v: _record(TABLE["fill_tensor"], _begin(x, v),
                                                np.full_like(x._data, v._data), (x, v)), value, name="fill_", cast=True)
    _check_operand(value, "value")
    return _inplace(t, lambda x: _record(TABLE["fill"], _begin(x), np.full_like(x._data, value), (x,)),
                    name="fill_", cast=True)


# ----------------------------------------------------------------------------- differentiable maths for create_graph


# Helpers whose other tensor arguments only select or place values (masks, indices): their
# result is a constant whenever the incoming gradient is.
_LINEAR_IN_GRAD = {"mask", "evenly_distribute", "value_selecting", "tie_split",
                   "slice_backward", "index_backward", "swapaxes", "permute", "zero_at", "take", "narrow",
                   "select", "as_strided_backward", "nll_backward"}


def _double_backward(name, *attr_names):
    """A backward kernel as a node of its own (TanhBackwardBackward0, SoftmaxBackwardDataBackward0,
    ...): its value is the NumPy helper of the same name, its inputs the incoming gradient and
    the forward output, both saved."""
    def record(g, output, *attrs):
        seq = _begin(g, output)
        out = getattr(NUMPY_MATH, name)(g._data, output._data, *attrs)
        return _record(TABLE[name], seq, out, (g, output), extra={"grad_output": g, "output": output},
                       attrs=dict(zip(attr_names, attrs)) if attrs else None)
    return staticmethod(record)


class _TensorMath:
    """The namespace backward formulas use under create_graph: the same operations as
    NUMPY_MATH, recorded as graph nodes so gradients can be differentiated."""

    def __getattr__(self, name):
        """A backward helper without a differentiable version of its own. When its result
        cannot require grad (the incoming gradient is a constant and the helper is linear in
        it, or every tensor it reads is constant), PyTorch's result has no grad_fn either: compute
        it with NumPy. Otherwise say so clearly: never a silently wrong higher-order gradient."""
        helper = getattr(NUMPY_MATH, name)

        def constant_or_refuse(*args):
            g = args[0]
            others = [a for a in args[1:] if isinstance(a, Tensor) and a._rg]
            if (isinstance(g, Tensor) and g._rg) or (others and name not in _LINEAR_IN_GRAD):
                raise TorchNotImplementedError_(
                    f"create_graph=True through this operation ({name}) is not supported by gradcli yet; "
                    "first-order gradients (create_graph=False) work")
            out = helper(*[a._data if isinstance(a, Tensor) else a for a in args])
            return Tensor(np.asarray(out))
        return constant_or_refuse

    exp, log, sin, cos, sqrt, tanh, abs = map(staticmethod, (exp, log, sin, cos, sqrt, tanh, abs))

    @staticmethod
    def sign(t):
        seq = _begin(t)
        return _record(TABLE["sgn"], seq, np.sign(t._data), (t,))

    @staticmethod
    def fit(g, shape, dtype):
        if g._data.shape != shape:
            g = _sum_to(g, shape)
        if g._data.dtype != dtype:
            g = to_dtype(g, dtype)
        return g

    matmul = staticmethod(lambda a, b: matmul(a, b))
    transpose = staticmethod(lambda a: a.t())
    outer = staticmethod(lambda a, b: reshape(a, (a._data.shape[0], 1)) * b)     # at::outer
    @staticmethod
    def mul_scalar(a, s):
        seq = _begin(a)
        return _record(TABLE["mul_scalar"], seq, a._data * np.asarray(s, a._data.dtype), (a,), attrs={"other": s})

    @staticmethod
    def add_scalar(a, s):
        seq = _begin(a)
        return _record(TABLE["add_scalar"], seq, a._data + np.asarray(s, a._data.dtype), (a,))

    @staticmethod
    def div_scalar(a, s):
        seq = _begin(a)
        return _record(TABLE["div_scalar"], seq, a._data / np.asarray(s, a._data.dtype), (a,), attrs={"other": s})

    pow_scalar = staticmethod(lambda a, e: pow(a, e))
    sum_all = staticmethod(lambda g: sum(g))
    # NumPy writes these into their temporary operand; here they are the plain ops
    mul_into = staticmethod(lambda a, t: a * t)
    div_into = staticmethod(lambda a, t: a / t)
    neg_into = staticmethod(lambda t: -t)
    mul_g = staticmethod(lambda g, x: g * x)
    div_g = staticmethod(lambda g, x: g / x)
    neg_g = staticmethod(lambda g: -g)
    div_tensor_other_backward = staticmethod(lambda g, self, other: -g * ((self / other) / other))
    pow_backward = staticmethod(lambda g, self, e: g * _TensorMath.mul_scalar(pow(self, e - 1), e))

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
        for d in sorted({x % ndim for x in dims} if ndim else ()):   # a 0-d input: nothing to restore
            g = unsqueeze(g, d)
        return g

    @staticmethod
    def squeeze_dim(g, dim):
        return squeeze(g, dim)

    # -- prod, norm, pow(tensor, tensor) and the matmul family: their formulas' building blocks
    t = staticmethod(lambda a: t_(a))
    swapaxes = staticmethod(lambda a, d0, d1: transpose(a, d0, d1))
    mm = staticmethod(lambda a, b: mm(a, b))
    mv = staticmethod(lambda a, b: mv(a, b))
    bmm = staticmethod(lambda a, b: bmm(a, b))
    unsqueeze = staticmethod(lambda a, d: unsqueeze(a, d))
    narrow = staticmethod(lambda a, d, start, n: _slice(a, d, slice(start, start + n)))
    cat = staticmethod(lambda ts, d: cat(ts, d))
    cumprod = staticmethod(lambda a, d: cumprod(a, d))
    cumsum = staticmethod(lambda a, d: cumsum(a, d))
    flip = staticmethod(lambda a, dims: flip(a, dims))
    masked_fill = staticmethod(lambda a, mask, v: masked_fill(a, mask if isinstance(mask, Tensor) else Tensor(np.asarray(mask)), v))
    sub_scalar = staticmethod(lambda a, s: _sub_scalar(a, s))
    pow = staticmethod(lambda a, b: pow(a, b))
    to = staticmethod(lambda a, dt: to_dtype(a, dt))
    constant = staticmethod(lambda a: Tensor(np.asarray(a)))
    mask = staticmethod(lambda g, keep: where(keep, g, Tensor(np.zeros((), g._data.dtype))))   # at::where(c, grad, 0)

    @staticmethod
    def slice(g, dim, start, end, step):
        out = g._data[(slice(None),) * dim + (slice(start, None if end in (None, _INT64_MAX) else end, step),)]
        return _view_result(TABLE["slice"], g, out, {"dim": dim, "end": end, "self_sym_sizes": tuple(g._data.shape),
                                                     "start": start, "step": step})

    @staticmethod
    def slice_backward(g, sizes, dim, start, end, step):
        seq = _begin(g)
        return _record(TABLE["slice_backward"], seq, NUMPY_MATH.slice_backward(g._data, sizes, dim, start, end, step),
                       (g,), attrs={"dim": dim, "end": end, "start": start, "step": step})

    @staticmethod
    def select_backward(g, sizes, dim, index):
        return _record(TABLE["select_backward"], _begin(g), NUMPY_MATH.select_backward(g._data, sizes, dim, index),
                       (g,), attrs={"dim": dim, "index": index})

    @staticmethod
    def cumprod_backward_with_zeros(g, self, dim):
        """PyTorch's grad-mode path (O(n^2), differentiable): each slice k of the gradient is
        sum_j g_j * prod(self[:k]) * prod(self[k+1:j+1]), copied into a zeros tensor."""
        shape = self._data.shape
        n = shape[dim]
        grad_input = Tensor(np.zeros(shape, g._data.dtype))
        for k in range(n):
            if k == 0:
                ones = Tensor(np.ones(shape[:dim] + (1,) + shape[dim + 1:], g._data.dtype))
                omitted = cat([ones, cumprod(_slice_from(self, dim, 1), dim)], dim)
            else:
                until_k = prod(_slice(self, dim, slice(0, k)), dim, keepdim=True)
                omitted = until_k
                if k < n - 1:
                    from_k1 = cumprod(_slice_from(self, dim, k + 1), dim)
                    omitted = cat([until_k, expand(until_k, from_k1._data.shape) * from_k1], dim)
            setitem(grad_input, (slice(None),) * dim + (k,), sum(_slice_from(g, dim, k) * omitted, dim))
        return grad_input

    @staticmethod
    def pow_(a, e):
        """In-place pow_ on a fresh result: PyTorch's PowBackward0 then saves a clone of the base
        (made first, so a CloneBackward0 node) while its edge goes to the base's grad_fn."""
        original = clone(a) if a._rg else None
        out = pow(a, e)
        if original is not None:
            out._fn.saved["self"] = Saved(original)
        return out

    @staticmethod
    def unsqueeze_to(g, dim, sizes):
        """squeeze's backward: unsqueeze where the input had a size-1 dim (PyTorch's unsqueeze_to)."""
        if not sizes:
            return g
        for d in sorted({d % len(sizes) for d in (dim if isinstance(dim, tuple) else (dim,))}):
            if sizes[d] == 1:                  # ascending, so each d is a position in the input
                g = unsqueeze(g, d)
        return g

    tanh_backward = _double_backward("tanh_backward")
    sigmoid_backward = _double_backward("sigmoid_backward")

    @staticmethod
    def threshold_backward(g, result):
        seq = _begin(g, result)
        out = np.where(result._data > 0, g._data, np.zeros((), g._data.dtype))
        return _record(TABLE["threshold_backward"], seq, out, (g, result), attrs={"threshold": 0})

    # softmax, log_softmax and the losses: their backward helpers record double-backward nodes
    sigmoid = staticmethod(sigmoid)

    @staticmethod
    def zeros_like(g):
        return Tensor(np.zeros_like(g._data))

    @staticmethod
    def sum_keepdim(a, dim):
        return sum(a, dim, keepdim=True)

    softmax_backward = _double_backward("softmax_backward", "dim")
    log_softmax_backward = _double_backward("log_softmax_backward", "dim")

    @staticmethod
    def mse_backward(g, self, target, reduction):
        seq = _begin(g, self, target)
        out = NUMPY_MATH.mse_backward(g._data, self._data, target._data, reduction)
        return _record(TABLE["mse_loss_backward"], seq, out, (g, self, target),
                       extra={"grad_output": g}, attrs={"reduction": reduction})

    @staticmethod
    def nll_backward(g, self, target, total_weight, ignore_index, reduction):
        seq = _begin(g, self)
        out = NUMPY_MATH.nll_backward(g._data, self._data, target._data, total_weight._data, ignore_index, reduction)
        return _record(TABLE["nll_loss_backward"], seq, out, (g, self),
                       extra={"target": target, "weight": None},
                       attrs={"ignore_index": ignore_index, "reduction": reduction})

    @staticmethod
    def nll_loss(g, target, ignore_index, reduction):
        return nll_loss(g, target, ignore_index=ignore_index, reduction=_REDUCTION_NAMES[reduction])


def _sum_to(t, shape):
    """PyTorch's at::sum_to, node for node: sum() to a 0-d shape, else sum(keepdim) then view."""
    if len(shape) == 0:
        return sum(t)
    lead = t._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and t._data.shape[i + lead] != 1)
    if dims:
        t = sum(t, dims, keepdim=True)
    if lead:
        t = view(t, tuple(shape))
    return t


def _type_str(t):
    """PyTorch's legacy type name of a CPU tensor: torch.FloatTensor, torch.LongTensor, ..."""
    return f"torch.{_SCALAR_NAME[t._data.dtype.name]}Tensor"


def _expand_shape(have, sizes, type_str):
    """PyTorch's inferExpandGeometry: the shape `have` expands to for `sizes` (-1 keeps a size),
    with its errors, checked from the last dimension."""
    sizes = tuple(sizes)
    nd, td = len(sizes), len(have)
    if td == 0:
        return sizes
    if nd < td:
        raise TorchRuntimeError(f"expand({type_str}{{{E._sizes(have)}}}, size={E._sizes(sizes)}): the number of "
                                f"sizes provided ({nd}) must be greater or equal to the number of dimensions in "
                                f"the tensor ({td})")
    out = list(sizes)
    for i in range(nd - 1, -1, -1):
        dim = td - nd + i
        size = have[dim] if dim >= 0 else 1
        if sizes[i] == -1:
            if dim < 0:
                raise TorchRuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                        f"non-existing dimension {i}")
            out[i] = size
        elif size != sizes[i] and size != 1:
            raise TorchRuntimeError(f"The expanded size of the tensor ({sizes[i]}) must match the existing size "
                                    f"({size}) at non-singleton dimension {i}.  Target sizes: {E._sizes(sizes)}.  "
                                    f"Tensor sizes: {E._sizes(have)}")
    return tuple(out)


def expand(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _expand_shape(t._data.shape, shape, _type_str(t))
    seq = _begin(t)
    return _view(TABLE["expand"], seq, _broadcast_view(t._data, shape), t, {"self_sym_sizes": tuple(t._data.shape)})


def _broadcast_view(a, shape):
    """np.broadcast_to, but writable like PyTorch's expand: only the elements that are not
    repeated may be written (in-place ops on the repeated ones raise _OVERLAP)."""
    b = np.broadcast_to(a, shape)
    return np.lib.stride_tricks.as_strided(a, shape=b.shape, strides=b.strides, writeable=a.flags.writeable)


TABLE["expand"] = op("ExpandBackward0", ("self",), attrs=("self_sym_sizes",),
                     self=lambda m, g, self_sym_sizes: m.fit(g, tuple(self_sym_sizes), g.dtype if not isinstance(g, Tensor) else g._data.dtype))
TABLE["to_copy"] = op("ToCopyBackward0", ("self",), self=lambda m, g: g, doc="saves nothing")


def to_dtype(t, dtype):
    dt = dtype.np if isinstance(dtype, E.DType) else np.dtype(dtype)
    if t._data.dtype == dt:
        return t
    _check_like(t._data.shape, itemsize=dt.itemsize)
    seq = _begin(t) if dt.kind == "f" else None
    return _record(TABLE["to_copy"], seq, t._data.astype(dt), (t,))


TENSOR_MATH = _TensorMath()

# ============================================================================= breadth: shapes, indexing,
# reductions that save tensors, selection, losses

_INT64_MAX = 2 ** 63 - 1


def _inverse_perm(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d % len(dims)] = i
    return tuple(inv)


def _arr_of(v):
    return v._data if isinstance(v, Tensor) else v


def _in_bounds(self, lo, hi):
    a = _arr_of(self)
    mask = np.ones(a.shape, bool)
    if lo is not None:
        mask = mask & (a >= _arr_of(lo))       # not &=: a tensor bound can broadcast self
    if hi is not None:
        mask = mask & (a <= _arr_of(hi))
    return mask


def _norm_dim(d, ndim):
    return E._wrap_dim(d, ndim)


def _rounds(a):
    """A _rounded function computes a's result in float64, or in another dtype than a's:
    it is then no candidate for writing into a saved or dead buffer."""
    return a.dtype.kind != "f" or (a.dtype == np.float32 and a.size <= 65536)


_mul_g = E._NumpyMath.mul_g


class _NumpyMath(E._NumpyMath):
    """Backward helpers on arrays, one per formula in the table that needs more than arithmetic."""

    exp, log, tanh = map(staticmethod, (_exp, _log, _tanh))

    @staticmethod
    def sin(a):
        return _sin(a) if _rounds(a) else np.sin(a, out=a if a is E.REUSE.spare_saved else E._fresh(a, a))

    @staticmethod
    def cos(a):
        return _cos(a) if _rounds(a) else np.cos(a, out=a if a is E.REUSE.spare_saved else E._fresh(a, a))

    div_scalar = staticmethod(lambda a, s: a / np.asarray(s, a.dtype))
    reshape = staticmethod(lambda g, shape: g.reshape(tuple(shape)))
    swapaxes = staticmethod(lambda g, a, b: np.swapaxes(g, a, b) if g.ndim else g)
    permute = staticmethod(lambda g, dims: np.transpose(g, dims))
    squeeze_dim = staticmethod(lambda g, dim: np.squeeze(g, dim))
    sigmoid_backward = staticmethod(lambda g, r: E._NumpyMath.mul_into(g, E._NumpyMath.mul_into(r, 1 - r)))
    threshold_backward = staticmethod(lambda g, r: np.where(r > 0, g, np.zeros((), g.dtype)))
    mask = staticmethod(lambda g, m: np.where(m, g, np.zeros((), g.dtype)))

    @staticmethod
    def mul_g(g, v):
        """g * v. A Python number as the cached 0-d array the forward multiplied by (cheaper
        for NumPy than the number, which dominates the cost on tiny tensors); a product with
        a number has no buffer to reuse (the engine's mul_g reuses arrays of g's shape)."""
        if type(v) is float and g.dtype is _F32:
            c = _CONST32.get(v)
            return g * (c if c is not None else _number_operand(v, _F32))
        return _mul_g(g, v)

    @staticmethod
    def tanh_backward(g, r):
        # PyTorch's kernel computes 1 - r*r with one rounding (a fused multiply-add); the
        # float64 emulation is kept to arrays small enough to print, as in _rounded.
        if r.shape == (1,) and g.shape == (1,) and r.dtype is _F32 and g.dtype is _F32:
            # in Python floats (float64), rounded to float32 after 1 - r*r and after the
            # product: the float64 product of two float32 numbers is exact, so that is
            # float32's own multiplication, at a third of the cost of four NumPy calls
            y = r.item()
            out = np.empty(1, _F32)
            out[0] = 1.0 - y * y                        # 1 - r*r, rounded to float32 as it is stored
            out[0] = g.item() * out.item()
            return out
        if r.dtype == np.float32 and r.size <= 65536:
            r64 = r.astype(np.float64)
            return E._NumpyMath.mul_into(g, (1 - r64 * r64).astype(np.float32))
        t = np.multiply(r, r, out=r if r is E.REUSE.spare_saved else E._fresh(r, r))
        if type(t) is np.ndarray:
            np.subtract(1, t, out=t)
        else:
            t = 1 - t
        return E._NumpyMath.mul_into(g, t)

    @staticmethod
    def pow_backward(g, self, e):
        """grad * (e * self.pow(e - 1)), PyTorch's pow_backward (e != 0), in one temporary
        (self.pow(1) is self itself: e * self is then the temporary)."""
        s = np.asarray(e, self.dtype)
        if e == 2:
            return E._NumpyMath.mul_into(g, NUMPY_MATH.mul_scalar(self, e))
        if e == 3 and self is E.REUSE.spare_saved:
            t = np.multiply(self, self, out=self)       # self.pow(2), as _np_pow, in the freed self
        else:
            t = E._np_pow(self, e - 1)
        return E._NumpyMath.mul_into(g, np.multiply(t, s, out=t) if type(t) is np.ndarray else t * s)

    @staticmethod
    def div_tensor_other_backward(g, self, other):
        """-grad * ((self / other) / other), PyTorch's div_tensor_other_backward; the
        quotient's temporary takes the second division and the product."""
        if self is E.REUSE.spare_saved:
            q = E._into(np.divide, self, other, self)
        else:
            q = np.divide(self, other, out=E._fresh(self, other))
        q = E._into(np.divide, q, other, q)
        return E._into(np.multiply, E._NumpyMath.neg_g(g), q, q)

    @staticmethod
    def unsqueeze_dims(g, dims, ndim):
        for d in sorted({x % ndim for x in dims} if ndim else ()):   # a 0-d input: nothing to restore
            g = np.expand_dims(g, d)
        return g

    t = staticmethod(lambda g: g.T)

    @staticmethod
    def select_backward(g, sizes, dim, index):
        z = np.zeros(tuple(sizes), g.dtype)
        z[(slice(None),) * (dim % len(sizes)) + (index,)] = g
        return z

    @staticmethod
    def slice_backward(g, sizes, dim, start, end, step):
        z = np.zeros(tuple(sizes), g.dtype)
        z[(slice(None),) * (dim % len(sizes)) + (slice(start, None if end in (None, _INT64_MAX) else end, step),)] = g
        return z

    @staticmethod
    def slice(g, dim, start, end, step):
        return g[(slice(None),) * dim + (slice(start, None if end in (None, _INT64_MAX) else end, step),)]

    @staticmethod
    def index_backward(g, sizes, indices):
        z = np.zeros(tuple(sizes), g.dtype)
        np.add.at(z, indices, g)
        return E.written(z, 1)          # PyTorch: zeros, then index_put_

    @staticmethod
    def evenly_distribute(g, self, result):
        mask = self == result
        return E.written(np.where(mask, g / mask.sum(), 0).astype(g.dtype), 1)     # PyTorch: a masked fill

    @staticmethod
    def value_selecting(g, dim, indices, sizes, keepdim):
        if not sizes:                       # max(0) of a 0-d tensor selected its only value
            return np.array(g)
        dim = dim % len(sizes)
        if not keepdim:
            g = np.expand_dims(g, dim)
            indices = np.expand_dims(indices, dim)
        z = np.zeros(tuple(sizes), g.dtype)
        np.put_along_axis(z, indices, g, axis=dim)
        return E.written(z, 2)          # PyTorch's value_selecting_reduction_backward writes twice

    @staticmethod
    def softmax_backward(g, result, dim):
        return result * (g - (g * result).sum(axis=dim, keepdims=True))

    @staticmethod
    def log_softmax_backward(g, result, dim):
        return g - np.exp(result) * g.sum(axis=dim, keepdims=True)

    @staticmethod
    def tie_split(g, a, b):
        # maximum/minimum: the winner takes the gradient, ties split it 50/50
        return np.where(a > b, g, np.where(a == b, g / 2, 0)).astype(g.dtype)

    @staticmethod
    def mse_backward(g, self, target, reduction):
        d = 2 * (self - target)
        if reduction == 1:
            d = d / self.size
        return (g * d).astype(self.dtype, copy=False)     # (g * d is a temporary: no copy of it)

    @staticmethod
    def nll_backward(g, self, target, total_weight, ignore_index, reduction):
        sizes = self.shape
        z = np.zeros(tuple(sizes), g.dtype)
        n = sizes[0] if len(sizes) > 1 else 1
        t = target.reshape(-1)
        keep = t != ignore_index
        scale = -g
        if reduction == 1:
            scale = scale / total_weight
        rows = np.arange(n)[keep] if len(sizes) > 1 else None
        if len(sizes) > 1:
            gz = scale if np.ndim(scale) == 0 else scale[keep]
            z[rows, t[keep]] = gz
        elif keep.all():
            z[t[0]] = scale
        return z

    @staticmethod
    def as_strided_backward(g, positions, base_shape):
        _check_positions(positions)
        z = np.zeros(_numel(base_shape), g.dtype)
        np.add.at(z, positions.reshape(-1), g.reshape(-1))
        return z.reshape(base_shape)

    @staticmethod
    def sum_all(g):
        return np.asarray(g.sum(), g.dtype)

    @staticmethod
    def zero_at(g, index):
        g = g.copy()
        g[index] = 0
        return g

    @staticmethod
    def take(g, index):
        return g[index]

    sigmoid = staticmethod(_rounded(_sigmoid))
    zeros_like = staticmethod(np.zeros_like)
    sum_keepdim = staticmethod(lambda a, dim: a.sum(axis=dim, keepdims=True))

    @staticmethod
    def nll_loss(g, target, ignore_index, reduction):
        return _nll_forward(g, target, ignore_index, reduction)[0]

    # -- prod, norm, pow(tensor, tensor) and the matmul family: their formulas' building blocks
    t = staticmethod(lambda a: a.T)
    mm = mv = bmm = staticmethod(np.matmul)
    unsqueeze = staticmethod(np.expand_dims)
    unsqueeze_to = staticmethod(lambda g, dim, sizes: g.reshape(tuple(sizes)))
    cat = staticmethod(lambda ts, d: np.concatenate(ts, axis=d))
    cumprod = staticmethod(lambda a, d: np.cumprod(a, axis=d))
    cumsum = staticmethod(lambda a, d: np.cumsum(a, axis=d))
    flip = staticmethod(lambda a, dims: np.flip(a, dims))
    masked_fill = staticmethod(lambda a, mask, v: np.where(mask, np.asarray(v, a.dtype), a))
    sub_scalar = staticmethod(lambda a, s: a - np.asarray(s, a.dtype))
    pow = staticmethod(_power)
    pow_ = staticmethod(lambda a, e: E._np_pow(a, e))
    to = staticmethod(lambda a, dt: a.astype(dt, copy=False))
    constant = staticmethod(lambda a: a)

    @staticmethod
    def cumprod_backward_with_zeros(g, self, dim):
        """prod(self[:i]) * s_i, where s_i = g_i + self_{i+1} * s_{i+1}: exact with zeros."""
        n = self.shape[dim]
        x = np.moveaxis(self, dim, -1)
        gm = np.moveaxis(np.broadcast_to(g, self.shape), dim, -1)
        before = np.cumprod(np.concatenate([np.ones_like(x[..., :1]), x[..., :-1]], -1), -1)
        s = np.empty(x.shape, np.result_type(g, self))
        s[..., -1] = gm[..., -1]
        for i in range(n - 2, -1, -1):
            s[..., i] = gm[..., i] + x[..., i + 1] * s[..., i + 1]
        return np.moveaxis(before * s, -1, dim)


NUMPY_MATH = _NumpyMath()


def _cat_backward(m, g, attrs, meta):
    dim = attrs["dim"] % _b.max(g.ndim if not isinstance(g, Tensor) else g._data.ndim, 1)
    out, start = [], 0
    for shape, _ in meta:
        if shape == (0,):                   # a skipped 1-D empty input: an empty gradient
            out.append(Tensor(np.zeros(0, g._data.dtype)) if isinstance(g, Tensor) else np.zeros(0, g.dtype))
            continue
        n = shape[dim] if len(shape) > dim else 0
        out.append(m.narrow(g, dim, start, n))
        start += n
    return out


def _stack_backward(m, g, attrs, meta):
    dim = attrs["dim"]
    return [m.select(g, dim, i) for i in range(len(meta))]


_NumpyMath.narrow = staticmethod(lambda g, dim, start, n: g[(slice(None),) * dim + (slice(start, start + n),)])
_NumpyMath.select = staticmethod(lambda g, dim, i: g[(slice(None),) * (dim % g.ndim) + (i,)])     # unbind: views
TABLE["cat"].variadic = _cat_backward
TABLE["stack"].variadic = _stack_backward
TABLE["mul"].twins = True       # g * other, g * self: for x * x one product, doubled (engine._twins)
E.configure(numpy_math=NUMPY_MATH, tensor_math=TENSOR_MATH, fresh_view=fresh_view)

# ----------------------------------------------------------------------------- shape ops


def _view_result(row, t, out, attrs):
    return _view(row, _begin(t), out, t, attrs)


def view(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _infer_shape(shape, t._data.size, "view")
    out = t._data.view()
    try:
        out.shape = shape
    except AttributeError:
        raise TorchRuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view_result(TABLE["view"], t, out, {"self_sym_sizes": tuple(t._data.shape)})


def reshape(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _infer_shape(shape, t._data.size)
    out = t._data.view()
    try:
        out.shape = shape
    except AttributeError:          # not viewable: PyTorch clones, then reshapes the copy
        return _unsafe_view(clone(t), shape)
    # viewable: a view of a contiguous tensor, else PyTorch's _reshape_alias
    row = TABLE["view"] if t._data.flags.c_contiguous else TABLE["reshape_alias"]
    return _view_result(row, t, out, {"self_sym_sizes": tuple(t._data.shape)})


def _unsafe_view(t, shape):
    seq = _begin(t)
    return _record(TABLE["unsafe_view"], seq, t._data.reshape(shape), (t,), attrs={"self_sym_sizes": tuple(t._data.shape)})


def flatten(t, start_dim=0, end_dim=-1):
    nd = t._data.ndim
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    if nd == 0:
        return reshape(t, 1)
    if s > e:
        raise TorchRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return t
    shape = t._data.shape[:s] + (-1,) + t._data.shape[e + 1:]
    return reshape(t, shape)


def transpose(t, dim0, dim1):
    nd = t._data.ndim
    a, b = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
    out = np.swapaxes(t._data, a, b) if nd else t._data.view()      # a 0-d tensor: a view of itself
    return _view_result(TABLE["transpose"], t, out, {"dim0": dim0, "dim1": dim1})


def t_(t):
    if t._data.ndim > 2:
        raise TorchRuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {t._data.ndim}D")
    return _view_result(TABLE["t"], t, t._data.T, {})


def permute(t, *dims):
    if not dims:
        raise TorchTypeError('permute() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    dims = tuple(int(d) if isinstance(d, bool) else d for d in dims)      # a bool in a list of ints is 0 or 1
    nd = t._data.ndim
    if len(dims) != nd:
        raise TorchRuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                                f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                                f"to len(dims) = {len(dims)}")
    norm = tuple(_norm_dim(d, nd) for d in dims)
    if len(set(norm)) != nd:
        raise TorchRuntimeError("permute(): duplicate dims are not allowed.")
    return _view_result(TABLE["permute"], t, np.transpose(t._data, norm), {"dims": tuple(dims)})


W_T = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
       "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
       "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered "
       "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")


def T_property(t):
    if t._data.ndim != 2:
        E.warn_once(W_T)
    return permute(t, tuple(range(t._data.ndim - 1, -1, -1)))


def mT_property(t):
    if t._data.ndim < 2:
        raise TorchRuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
                                if t._data.ndim == 1 else
                                "tensor.mT is only supported on matrices or batches of matrices. Got 0-D tensor.")
    return transpose(t, -2, -1)


def _squeezed_dims(t, dims):
    """The axes a tuple of dims removes (those of size 1), after PyTorch's checks of the dims."""
    nd = t._data.ndim
    wrapped = _dims(tuple(int(d) if isinstance(d, bool) else d for d in dims), nd) or ()
    return tuple(d for d in wrapped if nd and t._data.shape[d] == 1)


def squeeze(t, dim=None):
    if isinstance(dim, (tuple, list)):
        axes = _squeezed_dims(t, dim)
        out = np.squeeze(t._data, axes) if axes else t._data.view()
        return _view_result(TABLE["squeeze_dims"], t, out, {"dim": tuple(dim), "self_sym_sizes": tuple(t._data.shape)})
    if dim is None:
        return _view_result(TABLE["squeeze"], t, np.squeeze(t._data) if t._data.ndim else t._data.view(),
                            {"self_sym_sizes": tuple(t._data.shape)})
    nd = t._data.ndim
    d = _norm_dim(dim, nd)
    out = np.squeeze(t._data, d) if nd and t._data.shape[d] == 1 else t._data.view()
    return _view_result(TABLE["squeeze_dim"], t, out, {"dim": dim, "self_sym_sizes": tuple(t._data.shape)})


def select(t, dim, index):
    nd = t._data.ndim
    if nd == 0:
        raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _norm_dim(dim, nd)
    n = t._data.shape[d]
    if not -n <= index < n:
        raise TorchIndexError(f"select(): index {index} out of range for tensor of size {E._sizes(t._data.shape)} "
                              f"at dimension {d}")
    out = t._data[(slice(None),) * d + (index, Ellipsis)]      # Ellipsis: a 0-d view, not a copy
    return _view_result(TABLE["select"], t, out,          # the dim as given: PyTorch saves it unwrapped
                        {"dim": dim, "index": index, "self_sym_sizes": tuple(t._data.shape)})


def _slice(t, dim, sl, optimize=False):
    """PyTorch's applySlice. With `optimize` (any slice in a tuple index), a slice that keeps the
    whole dimension records nothing."""
    try:
        sl = slice(*(None if v is None else _operator.index(v) for v in (sl.start, sl.stop, sl.step)))
    except TypeError:
        raise TorchTypeError("slice indices must be integers or None or have an __index__ method") from None
    if sl.step == 0:
        raise TorchValueError("slice step cannot be zero")
    start = 0 if sl.start is None else sl.start
    end = _INT64_MAX if sl.stop is None else sl.stop
    step = 1 if sl.step is None else sl.step
    if step <= 0:
        raise TorchValueError("step must be greater than zero")
    if optimize and t._data.ndim and start == 0 and step == 1 and (
            end == _INT64_MAX or dim < t._data.ndim and end >= t._data.shape[dim]):
        return t
    _norm_dim(dim, t._data.ndim)
    out = t._data[(slice(None),) * dim + (slice(sl.start, sl.stop, step),)]
    return _view_result(TABLE["slice"], t, out, {"dim": dim, "end": end, "self_sym_sizes": tuple(t._data.shape),
                                                 "start": start, "step": step})


def _slice_from(t, dim, start):
    """PyTorch's C++ t.slice(dim, start): no end (None), unlike Python's t[start:]."""
    out = t._data[(slice(None),) * dim + (slice(start, None),)]
    return _view_result(TABLE["slice"], t, out, {"dim": dim, "end": None, "self_sym_sizes": tuple(t._data.shape),
                                                 "start": start, "step": 1})


def _is_advanced(i):
    return isinstance(i, Tensor) or isinstance(i, (list, np.ndarray)) or (isinstance(i, tuple) and False)


W_SEQUENCE_INDEX = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                    "tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                    "result (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                    "python_variable_indexing.cpp:{}.)")


def _index_tuple(index):
    """PyTorch's wrapTuple: a tuple stays; a list of fewer than 32 items holding a sequence,
    slice, tensor, None or ... is read as a tuple (deprecated, with a warning); anything else
    is a 1-tuple."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for i in index:
            if isinstance(i, Tensor) or isinstance(i, (list, tuple, slice)) or i is None or i is Ellipsis:
                E.warn_once(W_SEQUENCE_INDEX.format(359 if i is None or i is Ellipsis else 349))
                return tuple(index)
    return (index,)


def _is_mask(t):
    return t._data.dtype == np.bool_ or t._data.dtype == np.uint8


def _apply_select(t, dim, index, real_dim):
    """PyTorch's applySelect: x[i] checks i against the size here, naming the index's position."""
    sizes = t._data.shape
    if index == 0 and dim == 0 and not sizes:
        raise TorchIndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = sizes[dim] if dim < len(sizes) else 0
    if not -size <= index < size:
        raise TorchIndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return select(t, dim, index)


def _bool_index(value):
    """A boolean index adds a dimension of size 1, indexed by [0] (True) or [] (False)."""
    return Tensor(np.zeros(1 if value else 0, np.int64))


def _sequence_index(seq):
    """A list index as a tensor: bool stays a mask, any other number becomes int64."""
    try:
        arr = np.array(seq)
    except ValueError:
        if all(isinstance(s, list) for s in seq):
            n = len(seq[0])
            raise TorchValueError(f"expected sequence of length {n} at dim 1 (got "
                                  f"{next(len(s) for s in seq if len(s) != n)})") from None
        raise TorchTypeError("'list' object cannot be interpreted as an integer") from None
    if arr.dtype.kind not in "biuf":
        raise TorchTypeError(f"new(): invalid data type '{arr.dtype.name if arr.dtype.kind != 'U' else 'str'}'")
    return Tensor(arr if arr.dtype == np.bool_ else arr.astype(np.int64))


def getitem(t, index):
    """PyTorch's indexing (python_variable_indexing.cpp): a lone int, slice, None or ... is one
    view node; otherwise the basic indices become Select/Slice/Unsqueeze views applied left
    to right, and the tensor, list and mask indices one IndexBackward0 on the result."""
    if index is None:
        return unsqueeze(t, 0)
    if index is Ellipsis:
        return _view_result(TABLE["alias"], t, t._data.view(), {})
    if isinstance(index, bool):
        return _index(unsqueeze(t, 0), [_bool_index(index)])
    if isinstance(index, int):
        return _apply_select(t, 0, index, 0)
    if isinstance(index, slice):             # a lone slice always records a node, even `x[:]`
        if t._data.ndim == 0:
            if index.step == 0:
                raise TorchValueError("slice step cannot be zero")
            raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
        return _slice(t, 0, index)
    index = _index_tuple(index)
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, (int, slice, list, tuple)) or isinstance(i, Tensor)):
            raise TorchIndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                  "are valid indices (got " + type(i).__name__ + ")")
    index = tuple(_sequence_index(i) if isinstance(i, (list, tuple)) else i for i in index)
    nd = t._data.ndim
    specified = 0
    for i in index:
        if isinstance(i, Tensor):
            specified += i._data.ndim if _is_mask(i) else 1
        elif not (i is None or i is Ellipsis or isinstance(i, bool)):
            specified += 1
    if specified > nd:
        raise TorchIndexError(f"too many indices for tensor of dimension {nd}")
    result, dim, tensors = t, 0, []

    def record(x):                           # PyTorch's recordTensorIndex
        nonlocal dim
        if not tensors:
            tensors.extend([None] * dim)
        tensors.append(x)
        dim += x._data.ndim if _is_mask(x) else 1

    for real_dim, i in enumerate(index):
        if i is None:
            result = unsqueeze(result, dim)
            dim += 1
            if tensors:
                tensors.append(None)
        elif i is Ellipsis:
            dim += nd - specified
            if tensors:
                tensors.extend([None] * (nd - specified))
        elif isinstance(i, bool):
            result = unsqueeze(result, dim)
            record(_bool_index(i))
        elif isinstance(i, int):
            result = _apply_select(result, dim, i, real_dim)
        elif isinstance(i, slice):
            result = _slice(result, dim, i, optimize=True)
            dim += 1
            if tensors:
                tensors.append(None)
        elif i._data.ndim == 0 and i._data.dtype.kind in "biu":     # a 0-d integer tensor is an int
            if _is_mask(i):
                result = unsqueeze(result, dim)
                record(_bool_index(bool(i._data)))
            else:
                result = _apply_select(result, dim, int(i._data), real_dim)
        else:
            record(i)
    if tensors:
        return _index(result, tensors)
    if result is t:                         # x[:, :] or x[..., ...]: a view of the whole tensor
        return _view_result(TABLE["alias"], t, t._data.view(), {})
    return result


def _index(t, indices):
    """at::index: `indices` holds an index tensor or None (a whole dimension) per leading
    dimension of t. Masks expand to their nonzero positions; the rest broadcast together."""
    while indices and indices[-1] is None:
        indices.pop()
    if len(indices) > t._data.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t._data.ndim} (got {len(indices)})")
    for i in indices:
        if i is not None and i._data.dtype.kind not in "biu":
            raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
    sizes = t._data.shape
    idx = []
    for i in indices:
        if i is None:
            idx.append(slice(None))
        elif _is_mask(i):
            m = i._data
            for j in range(m.ndim):
                src = len(idx) + j
                if src >= len(sizes) or m.shape[j] != sizes[src]:
                    raise TorchIndexError(f"The shape of the mask {E._sizes(m.shape)} at index {j} does not match "
                                          f"the shape of the indexed tensor {E._sizes(sizes)} at index {src}")
            idx.extend(np.nonzero(m))
        else:
            idx.append(i._data.astype(np.int64, copy=False))
    arrays = [a for a in idx if not isinstance(a, slice)]
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise TorchIndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                              + ", ".join(E._sizes(a.shape) for a in arrays)) from None
    dims = [d for d, a in enumerate(idx) if not isinstance(a, slice)]
    _check_numel(_numel(arrays[0].shape if arrays else ()) * _numel(
        n for d, n in enumerate(sizes) if d not in dims), t._data.itemsize)
    bad = np.stack([(a < -sizes[d]) | (a >= sizes[d]) for a, d in zip(arrays, dims)], -1)
    if bad.any():                           # the first element, then the first of its indices
        at = np.argwhere(bad)[0]
        k = int(at[-1])
        raise TorchIndexError(f"index {int(arrays[k][tuple(at[:-1])])} is out of bounds for dimension {k} "
                              f"with size {sizes[dims[k]]}")
    out = t._data[tuple(idx)]
    seq = _begin(t)
    return _record(TABLE["index"], seq, np.ascontiguousarray(out), (t,), extra={"indices": SavedList(indices)},
                   attrs={"self_sym_sizes": tuple(t._data.shape), "_index": tuple(idx)})


class SavedList(Tensor):
    """IndexBackward0's `indices`: index tensors (None for a whole dimension) saved and freed
    together; reads as a tuple."""

    __slots__ = ("items",)

    def __init__(self, items):
        first = next((i for i in items if i is not None), None)
        super().__init__(first._data if first is not None else np.zeros(0, np.int64))
        self.items = tuple(items)


def setitem(t, index, value):
    """`t[index] = value`, as PyTorch runs it (set_item): the basic indices make a view of t
    (ints and 0-d integer tensors select, None unsqueezes, a slice that keeps a whole dimension
    is skipped); without tensor indices the value is copied into that view in place (fill_ for
    a number or 0-d tensor, else copy_), else it is index_put_ into it (IndexPutBackward0). So
    an assignment into a view of a tensor that takes part in autograd gives the base CopySlices."""
    # the index is read as getitem reads it: a list may be a tuple of indices, a list a tensor
    index = tuple(_sequence_index(i) if isinstance(i, (list, tuple)) else i for i in _index_tuple(index))
    fresh_views((t, value))
    sliced, advanced = _setitem_view(t, index)
    if not advanced:
        _copy_to(sliced, value)
        return
    if isinstance(value, Tensor):
        shape = _strip_leading_ones(value._data.shape)
        if shape != value._data.shape:
            value = view(value, shape)
    idx = tuple(advanced.get(d, slice(None)) for d in range(_b.max(advanced) + 1))
    _index_put(sliced, idx, value)


def _setitem_view(t, index):
    n_real = _b.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > t._data.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    if _b.sum(1 for i in index if i is Ellipsis) > 1:
        raise TorchIndexError("an index can only have a single ellipsis ('...')")
    result, dim, advanced = t, 0, {}
    for i in index:
        if isinstance(i, Tensor) and i._data.ndim == 0 and i._data.dtype.kind in "iu":
            i = int(i._data)
        if i is Ellipsis:
            dim += t._data.ndim - n_real
        elif i is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif isinstance(i, bool):
            raise TorchIndexError("boolean scalar indices are not supported")
        elif isinstance(i, int):
            result = select(result, dim, i)
        elif isinstance(i, slice):
            whole = (i.start in (None, 0) and i.step in (None, 1)
                     and (i.stop is None or i.stop >= result._data.shape[dim]))
            if not whole:
                result = _slice(result, dim, i)
            dim += 1
        elif isinstance(i, Tensor) or isinstance(i, list):
            arr = i._data if isinstance(i, Tensor) else np.array(i)
            if arr.dtype.kind not in "iub":
                raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
            advanced[dim] = arr
            dim += 1
        else:
            raise TorchIndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                  "are valid indices (got " + type(i).__name__ + ")")
    return result, advanced


def _strip_leading_ones(shape):
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _copy_to(dst, value):
    """PyTorch's copy_to for assignment: equal sizes copy_, a number or 0-d tensor fill_, else the
    value (leading 1s dropped by a view) is expanded to the target and copied."""
    if not isinstance(value, Tensor):
        _check_operand(value, "value")
        return fill_(dst, Tensor(np.asarray(value, dst._data.dtype)))
    if value._data.shape == dst._data.shape:
        return copy_(dst, value)
    if value._data.ndim == 0:
        return fill_(dst, value)
    shape = _strip_leading_ones(value._data.shape)
    src = view(value, shape)
    if shape != dst._data.shape:
        _check_expand(src, dst._data.shape)
        src = expand(src, dst._data.shape)
    return copy_(dst, src)


def _check_expand(t, size):
    """expand's errors (the sizes are compared right-aligned)."""
    shape = t._data.shape
    if len(shape) > len(size):
        raise TorchRuntimeError(f"expand(torch.{t.dtype.tensor_type}{{{_sizes_str(shape)}}}, size={_sizes_str(size)}): "
                                f"the number of sizes provided ({len(size)}) must be greater or equal to the number "
                                f"of dimensions in the tensor ({len(shape)})")
    lead = len(size) - len(shape)
    for i, n in enumerate(shape):
        if n != 1 and n != size[i + lead]:
            raise TorchRuntimeError(f"The expanded size of the tensor ({size[i + lead]}) must match the existing size "
                                    f"({n}) at non-singleton dimension {i + lead}.  Target sizes: "
                                    f"{_sizes_str(size)}.  Tensor sizes: {_sizes_str(shape)}")


def _sizes_str(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def _index_put(t, idx, value):

    def compute(x, v):
        seq = _begin(x, v)
        out = x._data.copy()
        src = v._data if isinstance(v, Tensor) else v
        try:
            out[idx] = src
        except IndexError as e:
            raise TorchIndexError(str(e).replace("axis", "dimension")) from None
        except ValueError:
            raise TorchRuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, np.shape(src)))}] "
                                    f"cannot be broadcast to indexing result of shape "
                                    f"[{', '.join(map(str, np.shape(x._data[idx])))}]") from None
        # PyTorch saves one entry per indexed dimension: None where the whole dimension is kept
        indices = SavedList([Tensor(np.asarray(i)) if isinstance(i, np.ndarray) else None for i in idx])
        return _record(TABLE["index_put"], seq, out, (x, v), extra={"indices": indices},
                       attrs={"accumulate": False, "_index": idx})
    if not isinstance(value, Tensor):
        _check_operand(value, "value")
    _inplace(t, compute, value, name="index_put_", cast=True)


def _tensor_list(tensors, name, empty_message):
    """cat/stack's argument: a non-empty sequence of tensors whose result fits the limits."""
    tensors = list(tensors)
    if not tensors:
        raise TorchRuntimeError(empty_message)
    if not all(isinstance(t, Tensor) for t in tensors):
        raise TorchTypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                             + type(next(t for t in tensors if not isinstance(t, Tensor))).__name__)
    _check_numel(_b.sum(t._data.size for t in tensors), tensors[0]._data.itemsize)
    return tensors


def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise TorchValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors = _tensor_list(tensors, "cat", "")
    seq = _begin(*tensors)
    for k, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise TorchRuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    # PyTorch skips 1-D empty tensors (legacy); the first other tensor sets dims and sizes
    skip = [t._data.ndim == 1 and t._data.size == 0 for t in tensors]
    ref = next((t for t, s in zip(tensors, skip) if not s), tensors[0])
    nd = ref._data.ndim
    d = _norm_dim(dim, nd)
    for k, t in enumerate(tensors):
        if skip[k]:
            continue
        if t._data.ndim != nd:
            raise TorchRuntimeError(f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}")
        for ax in range(nd):
            if ax != d and t._data.shape[ax] != ref._data.shape[ax]:
                raise TorchRuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                        f"{ref._data.shape[ax]} but got size {t._data.shape[ax]} for tensor number "
                                        f"{k} in the list.")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = E.promote_types(dt, t.dtype)
    parts = [t._data.astype(dt.np, copy=False) for t, s in zip(tensors, skip) if not s] or [ref._data.astype(dt.np)]
    return _record_variadic(TABLE["cat"], seq, _concatenate(parts, d), tensors, {"dim": dim})


def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack", "stack expects a non-empty TensorList")
    for k, t in enumerate(tensors[1:], 1):
        if t._data.shape != tensors[0]._data.shape:
            raise TorchRuntimeError(f"stack expects each tensor to be equal size, but got "
                                    f"{list(tensors[0]._data.shape)} at entry 0 and {list(t._data.shape)} at entry {k}")
    seq = _begin(*tensors)
    d = _norm_dim(dim, tensors[0]._data.ndim + 1)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = E.promote_types(dt, t.dtype)
    out = _concatenate([np.expand_dims(t._data.astype(dt.np, copy=False), d) for t in tensors], d)
    return _record_variadic(TABLE["stack"], seq, out, tensors, {"dim": dim})


def _concatenate(arrays, axis):
    """np.concatenate into a row-major result, as PyTorch's cat and stack make it (NumPy follows
    its inputs' layout: columns of transposed inputs give a column-major result)."""
    shape = list(arrays[0].shape)
    shape[axis] = _b.sum(a.shape[axis] for a in arrays)
    return np.concatenate(arrays, axis=axis, out=np.empty(shape, np.result_type(*arrays)))


def _split_sizes(size, split_size):
    """split's pieces: split_size each, the last one what remains (one empty piece of an empty dim)."""
    if size == 0:
        return [0]
    return [_b.min(split_size, size - start) for start in range(0, size, split_size)]


def _split_backward(grads, split_sizes, dim, sizes):
    """PyTorch's split_with_sizes_backward: zeros for a piece that got no gradient, then cat."""
    dim %= len(sizes)
    like = next((g for g in grads if g is not None), None)
    if like is None:                        # no piece got a gradient: none flows on
        return None
    tensor = type(like) is Tensor
    dt = like._data.dtype if tensor else like.dtype
    parts = []
    for g, n in zip(grads, split_sizes):
        if g is None:
            g = np.zeros(tuple(sizes[:dim]) + (n,) + tuple(sizes[dim + 1:]), dt)
            g = Tensor(g) if tensor else g
        parts.append(g)
    return cat(parts, dim) if tensor else _concatenate(parts, dim)


def _unbind_backward(grads, dim):
    """PyTorch's unbind_backward: zeros (one zero expanded) for a slice that got no gradient, then stack."""
    like = next((g for g in grads if g is not None), None)
    if like is None:
        return None
    tensor = type(like) is Tensor
    a = like._data if tensor else like
    zeros = np.broadcast_to(np.zeros((), a.dtype), a.shape)
    parts = [g if g is not None else Tensor(zeros) if tensor else zeros for g in grads]
    if tensor:
        return stack(parts, dim)
    d = dim % (a.ndim + 1)
    return _concatenate([np.expand_dims(p, d) for p in parts], d)


def _multi_output(row, t, arrays, attrs, view=True):
    """The outputs of one multi-output op over t: `view` (split, unbind), views of t sharing its
    version counter, which may not be modified in place; else (unsafe_split) plain tensors. In
    grad mode one node of `row` makes them all, each output holding its OutputEdge."""
    seq = _begin(t)
    if view:
        base = t._base if t._base is not None else t
        outs = tuple([Tensor(a, version=t._version_counter, base=base) for a in arrays])
    else:
        outs = tuple([Tensor(np.ascontiguousarray(a)) for a in arrays])
    if seq is not None:
        node = row.node_class(row, (t._edge(),), _NO_SAVED, attrs, ((t._data.shape, t._data.dtype),), seq)
        for out, edge in zip(outs, E.output_edges(node, len(outs))):
            out._fn = edge
            out._rg = True
    if view:
        for out in outs:
            _register_view(out, t, multi=True)
    return outs


def _pieces(t, d, sizes):
    """t's pieces along dim d, of the given sizes (views)."""
    out, start = [], 0
    for n in sizes:
        out.append(t._data[(slice(None),) * d + (slice(start, start + n),)])
        start += n
    return out


def split(tensor, split_size_or_sections, dim=0):
    """torch.split, PyTorch's Python function: the argument's own split method (a str's too)."""
    if type(tensor) is Tensor:
        return tensor.split(split_size_or_sections, dim)
    try:
        return tensor.split(split_size_or_sections, dim)
    except AttributeError as e:
        raise TorchAttributeError(str(e)) from None
    except TypeError as e:
        raise TorchTypeError(str(e)) from None


def split_method(t, split_size_or_sections, dim=0):
    """Tensor.split: a size per piece (SplitBackward0), or a list of sizes (SplitWithSizesBackward0);
    a tensor is read as an int where it holds one, as PyTorch's Python method does."""
    if type(split_size_or_sections) is Tensor:
        try:
            split_size_or_sections = int(split_size_or_sections)
        except ValueError:
            pass
    if not isinstance(split_size_or_sections, int):
        return split_with_sizes(t, split_size_or_sections, dim)
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dim(dim, nd)
    size, n = t._data.shape[d], split_size_or_sections
    if n < 0:
        raise TorchRuntimeError(f"split expects split_size be non-negative, but got split_size={n}")
    if n == 0 and size != 0:
        raise TorchRuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    return _multi_output(TABLE["split"], t, _pieces(t, d, _split_sizes(size, n or 1)),
                         {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_size": n})


def split_with_sizes(t, split_sizes, dim=0):
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dim(dim, nd)
    sizes = [int(n) for n in split_sizes]
    size = t._data.shape[d]
    for n in sizes:
        if n < 0:
            raise TorchRuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                                    f"split_sizes={_sizes_str(sizes)}")
    if _b.sum(sizes) != size:
        raise TorchRuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                                f"at dimension {d}), but got split_sizes={_sizes_str(sizes)}")
    return _multi_output(TABLE["split_with_sizes"], t, _pieces(t, d, sizes),
                         {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_sizes": tuple(sizes)})


def chunk(t, chunks, dim=0):
    """torch.chunk: split by ceil(size / chunks); an empty dim gives `chunks` empty pieces."""
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = _operator.index(chunks)
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = t._data.shape[_norm_dim(dim, nd)]
    split_size = -(-size // chunks)
    if split_size == 0 and size == 0:
        return split_with_sizes(t, [0] * chunks, dim)
    return split(t, split_size, dim)


def unbind(t, dim=0):
    nd = t._data.ndim
    if nd == 0:
        raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _norm_dim(dim, nd)
    arrays = [t._data[(slice(None),) * d + (i, Ellipsis)] for i in range(t._data.shape[d])]
    return _multi_output(TABLE["unbind"], t, arrays, {"dim": dim})


def tensor_iter(t):
    """Tensor.__iter__: the slices of unbind(0), as PyTorch's Python method makes them."""
    if t._data.ndim == 0:
        raise TorchTypeError("iteration over a 0-d tensor")
    return iter(unbind(t, 0))


def tensor_split(t, indices_or_sections, dim=0):
    """PyTorch's tensor_split: one slice (SliceBackward0) per piece, by a number of sections or
    by indices (a list, or an int64 tensor of them)."""
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _norm_dim(dim, nd)
    size = t._data.shape[d]
    if type(indices_or_sections) is Tensor:
        v = indices_or_sections._data
        if v.dtype != np.int64:
            raise TorchRuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                                    + _SCALAR_NAME[v.dtype.name])
        if v.ndim > 1:
            raise TorchRuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                    f"one-dimensional tensor, but got a tensor with {v.ndim} dims")
        indices_or_sections = int(v) if v.ndim == 0 else [int(i) for i in v]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        _check_operand(n)                   # (an int64, as PyTorch parses it: not 10**20 empty pieces)
        if n <= 0:
            raise TorchRuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            end = start + small + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    else:
        bounds, start = [], 0
        for end in indices_or_sections:
            bounds.append((start, int(end)))
            start = int(end)
        bounds.append((start, size))
    return tuple(_slice(t, d, slice(a, b)) for a, b in bounds)


def _split_like(name, dim, min_dims):
    """hsplit / vsplit / dsplit: tensor_split along one dim, a number of sections dividing it exactly."""
    def f(t, indices_or_sections):
        nd = t._data.ndim
        if nd < min_dims:
            raise TorchRuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                                    f"tensor with {nd} dimensions!")
        d = 0 if name == "hsplit" and nd == 1 else dim
        if isinstance(indices_or_sections, int):
            size = t._data.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise TorchRuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                        f"dimension {size} is not divisible by the split_size "
                                        f"{indices_or_sections}!")
        return tensor_split(t, indices_or_sections, d)
    f.__name__ = name
    return f


hsplit, vsplit, dsplit = _split_like("hsplit", 1, 1), _split_like("vsplit", 0, 2), _split_like("dsplit", 2, 3)


def split_like_method(f):
    """Tensor.hsplit/vsplit/dsplit: the indices may come one by one (x.hsplit(1, 2)); none at all is
    the missing argument PyTorch's parser reports (the signature check words it)."""
    def method(t, *indices_or_sections):
        if not indices_or_sections:
            raise TorchTypeError(f"{f.__name__}() missing its sections or indices")
        return f(t, indices_or_sections[0] if len(indices_or_sections) == 1 else list(indices_or_sections))
    method.__name__ = f.__name__
    return method


def _record_variadic(row, seq, out, tensors, attrs):
    t = Tensor(out)
    if seq is None:
        return t
    edges = tuple(x._edge() for x in tensors)
    meta = tuple((x._data.shape, x._data.dtype) for x in tensors)
    t._fn = row.node_class(row, edges, {}, attrs, meta, seq)
    t._rg = True
    return t

# ----------------------------------------------------------------------------- reductions


def _reduce_all(row, t, out, extra=None):
    seq = _begin(t)
    return _record(row, seq, np.asarray(out, t._data.dtype), (t,), extra=extra)


ReturnType = None


def _return_type(name, values, indices):
    return _ReturnTypes(name, values, indices)


class _ReturnTypes(tuple):
    """torch.return_types.max(values=..., indices=...)."""

    def __new__(cls, name, values, indices):
        self = super().__new__(cls, (values, indices))
        self.name = name
        return self

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"torch.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


ReturnType = _ReturnTypes


def _minmax(t, name, dim, keepdim, other=None):
    if other is not None and isinstance(other, Tensor):
        return (maximum if name == "max" else minimum)(t, other)
    _check_reads(t)
    if dim is None:
        if t._data.size == 0:
            raise TorchRuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                    "Specify the reduction dim with the 'dim' argument.")
        out = t._data.max() if name == "max" else t._data.min()
        return _reduce_all(TABLE[name], t, out)
    nd = t._data.ndim
    d = _norm_dim(dim, nd)
    _check_reduced(t._data, (d,))
    if nd == 0:
        idx = np.zeros((), np.int64)
        values = t._data.copy()
    else:
        idx = (np.argmax if name == "max" else np.argmin)(t._data, axis=d)
        values = np.take_along_axis(t._data, np.expand_dims(idx, d), axis=d).squeeze(d)
        if keepdim:
            idx, values = np.expand_dims(idx, d), np.expand_dims(values, d)
    indices = Tensor(np.asarray(idx, np.int64))
    seq = _begin(t)
    v = _record(TABLE[name + "_dim"], seq, np.array(values, order="C"), (t,), extra={"indices": indices},
                attrs={"dim": dim, "keepdim": bool(keepdim), "self_sym_sizes": tuple(t._data.shape)})
    return _return_type(name, v, indices)


def max(t, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        return maximum(t, dim)
    return _minmax(t, "max", dim, keepdim)


def min(t, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        return minimum(t, dim)
    return _minmax(t, "min", dim, keepdim)


def prod(t, dim=None, keepdim=False, dtype=None):
    data = t._data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dim is None:
        seq = _begin(t)
        return _record(TABLE["prod"], seq, np.asarray(data.prod(dtype=out_dt)), (t,))
    d = _norm_dim(dim, data.ndim)
    _check_reduced(data, (d,))
    seq = _begin(t)
    out = np.asarray(data.prod(axis=d if data.ndim else None, keepdims=keepdim, dtype=out_dt))
    return _record(TABLE["prod_dim"], seq, out, (t,), attrs={"dim": dim, "keepdim": bool(keepdim)})


def norm(t, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(p, Tensor):
        p = p.item()
    if p == "fro" or p is None:
        p = 2
    elif isinstance(p, str):
        raise TorchRuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if t._data.dtype.kind != "f":
        raise TorchRuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                                f"{_SCALAR_NAME[t._data.dtype.name]}")
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    data = t._data
    axes = None if dim is None else tuple(_norm_dim(d, data.ndim) for d in dim)
    if data.ndim == 0:
        axes = None                            # dim 0 or -1 of a 0-d tensor: the element itself
    _check_like(data.shape, itemsize=data.itemsize)          # |x| is computed whole
    a = np.abs(data)
    if p == 2:
        out = np.sqrt((a * a).sum(axis=axes, keepdims=keepdim))
    elif p == 1:
        out = a.sum(axis=axes, keepdims=keepdim)
    elif p == float("inf"):
        out = a.max(axis=axes, keepdims=keepdim)
    elif p == -float("inf"):
        out = a.min(axis=axes, keepdims=keepdim)
    elif p == 0:
        out = (a != 0).sum(axis=axes, keepdims=keepdim)
    else:
        out = (a ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)
    seq = _begin(t)
    return _record(TABLE["norm"], seq, np.asarray(out, data.dtype), (t,),
                   attrs={"dim": None if dim is None else tuple(dim), "keepdim": bool(keepdim), "ord": p})


def _softmax_dim(name, t, dim):
    """torch.nn.functional's implicit dim for dim=None (deprecated there, with a warning)."""
    if dim is not None:
        return dim
    E.STATE.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                 "as an argument.")
    return 0 if t._data.ndim in (0, 1, 3) else 1


def _softmax_input(name, t, dim):
    """The array and the wrapped dim; a non-float input has no kernel in PyTorch."""
    d = _norm_dim(dim, t._data.ndim)
    if t._data.dtype.kind != "f":
        kernel = "lastdim_kernel_impl" if d == _b.max(t._data.ndim - 1, 0) else "kernel_impl"
        raise TorchNotImplementedError_(f'"{name}_{kernel}" not implemented for \'{_SCALAR_NAME[t._data.dtype.name]}\'')
    return t._data, d


def softmax(t, dim=None, dtype=None, _stacklevel=3):
    dim = _softmax_dim("softmax", t, dim)
    x, d = _softmax_input("softmax", t, dim)
    _check_like(x.shape)
    e = np.exp(x - x.max(axis=d, keepdims=True)) if x.ndim and x.size else np.ones_like(x)
    out = e / e.sum(axis=d, keepdims=True) if x.ndim and x.size else e
    seq = _begin(t)
    return _record(TABLE["softmax"], seq, out.astype(x.dtype), (t,), attrs={"dim": dim})


def log_softmax(t, dim=None, dtype=None, _stacklevel=3):
    dim = _softmax_dim("log_softmax", t, dim)
    x, d = _softmax_input("log_softmax", t, dim)
    _check_like(x.shape)
    if x.ndim and x.size:
        shifted = x - x.max(axis=d, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=d, keepdims=True))
    else:
        out = np.zeros_like(x)
    seq = _begin(t)
    return _record(TABLE["log_softmax"], seq, out.astype(x.dtype), (t,), attrs={"dim": dim})

# ----------------------------------------------------------------------------- selection


def _max_keep(a, b):
    """PyTorch's max as std::max: where a == b it is a (max(-0., 0.) is -0.); nan propagates."""
    return np.where(a == b, a, np.maximum(a, b))


def _min_keep(a, b):
    return np.where(a == b, a, np.minimum(a, b))


def clamp(t, min=None, max=None):
    if min is None and max is None:
        raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_like(t._data.shape, *(v._data.shape for v in (min, max) if isinstance(v, Tensor)))
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = min._data if isinstance(min, Tensor) else min
        hi = max._data if isinstance(max, Tensor) else max
        out = t._data
        if lo is not None:
            out = _max_keep(out, lo)
        if hi is not None:
            out = _min_keep(out, hi)
        seq = _begin(t, *(v for v in (min, max) if isinstance(v, Tensor)))
        return _record(TABLE["clamp_tensor"], seq, np.asarray(out, t._data.dtype),
                       (t, min if isinstance(min, Tensor) else None, max if isinstance(max, Tensor) else None),
                       extra={"min": min, "max": max})
    out = t._data
    if min is not None:
        out = _max_keep(out, out.dtype.type(min))
    if max is not None:
        out = _min_keep(out, out.dtype.type(max))
    seq = _begin(t)
    return _record(TABLE["clamp"], seq, np.asarray(out, t._data.dtype), (t,), attrs={"max": max, "min": min})


def clamp_min(t, min):
    _check_like(t._data.shape)
    seq = _begin(t)
    return _record(TABLE["clamp_min"], seq, _max_keep(t._data, t._data.dtype.type(min)), (t,), attrs={"min": min})


W_WHERE_UINT8 = ("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                 "future version of PyTorch. Use a boolean condition instead. (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/TensorCompare.cpp:621.)")


def where(condition, input, other):
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    dt = result_type(input, other)
    seq = _begin(input, other)
    if cond.dtype == np.uint8:
        E.warn_once(W_WHERE_UINT8)
        cond = cond.astype(np.bool_)
    if cond.dtype != np.bool_:
        raise TorchRuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                f"{_SCALAR_NAME[cond.dtype.name]}")
    shape = cond.shape                      # broadcast condition, input, other in that order
    for v in (input, other):
        shape = broadcast_shapes(shape, v._data.shape if isinstance(v, Tensor) else ())
    _check_numel(_numel(shape), dt.np.itemsize)
    out = np.where(cond, _arr(input, dt), _arr(other, dt)).astype(dt.np, copy=False)
    cond_t = condition if isinstance(condition, Tensor) else Tensor(cond)
    return _record(TABLE["where"], seq, out, (input, other), extra={"condition": cond_t})


def maximum(a, b):
    return _binary(TABLE["maximum"], _max_keep, a, b)


def minimum(a, b):
    return _binary(TABLE["minimum"], _min_keep, a, b)

# ----------------------------------------------------------------------------- products


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

# ----------------------------------------------------------------------------- nodes only backward formulas record


def flip(t, dims):
    seq = _begin(t)
    out = np.flip(t._data, tuple(_norm_dim(d, t._data.ndim) for d in dims)).copy()
    return _record(TABLE["flip"], seq, out, (t,), attrs={"dims": tuple(dims)})


def _cumulative(name, fn):
    def forward(t, dim):
        _check_like(t._data.shape, itemsize=8)
        seq = _begin(t)
        d = _norm_dim(dim, t._data.ndim)
        out = fn(t._data, axis=d) if t._data.ndim else t._data.copy()
        if name == "cumsum" and out.dtype.kind == "f":
            out = out + 0.0                 # PyTorch's running sum starts at +0: cumsum([-0.]) is 0.
        dt = np.int64 if t._data.dtype.kind in "biu" else t._data.dtype      # integers and bools sum as int64
        return _record(TABLE[name], seq, np.asarray(out, dt), (t,), attrs={"dim": dim})
    forward.__name__ = name
    return forward


cumsum = _cumulative("cumsum", np.cumsum)
cumprod = _cumulative("cumprod", np.cumprod)


def _sub_scalar(t, s):
    seq = _begin(t)
    return _record(TABLE["sub_scalar"], seq, t._data - np.asarray(s, t._data.dtype), (t,))

# ----------------------------------------------------------------------------- losses

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


_REDUCTION_NAMES = {v: k for k, v in _REDUCTIONS.items()}


def _loss_mean(m, grad, input, reduction):
    """The last step of a loss's backward formula: divide by the input's numel for 'mean'."""
    return m.div_scalar(grad, _arr_of(input).size) if reduction == 1 else grad


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _check_like(input._data.shape, target._data.shape)
    if input._data.shape != target._data.shape:     # F.mse_loss warns, then broadcasts both operands
        STATE.warn(f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
                   f"({Size(input._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size.")
        shape = broadcast_shapes(input._data.shape, target._data.shape)
        if input._data.shape != shape:
            input = expand(input, shape)
        if target._data.shape != shape:
            target = expand(target, shape)
    r = _reduction(reduction)
    sq = np.asarray(input._data - target._data)     # (a 0-d difference is a NumPy scalar)
    np.multiply(sq, sq, out=sq)
    if r == 1 and sq.dtype.char in "fd":        # sq.mean() without its Python wrapper: the same sum and division
        out = np.asarray(np.add.reduce(sq, axis=None) / np.intp(sq.size), sq.dtype)
    else:
        out = sq if r == 0 else np.asarray(sq.mean() if r == 1 else sq.sum(), sq.dtype)
    seq = _begin(input, target)
    return _record(TABLE["mse_loss"], seq, out, (input, target), attrs={"reduction": r})


def _nll_check(x, t):
    """The argument checks of PyTorch's nll_loss, in its order."""
    if x.ndim < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    batch = t.shape[0] if t.ndim else 0            # (PyTorch reads a 0-d target's size as 0)
    if x.ndim != 1 and x.shape[0] != batch:
        raise TorchValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({batch}).")
    if t.ndim > 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
        raise TorchValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
    if t.dtype.kind not in "iu" or t.dtype.itemsize not in (1, 8):
        raise TorchRuntimeError(f"expected target dtype to be Long or Byte, but got {_SCALAR_NAME[t.dtype.name]}")
    if x.dtype.kind != "f":
        raise TorchNotImplementedError_(f"\"nll_loss_out_frame\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'")
    classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
    bad = t[(t < 0) | (t >= classes)] if t.size else t
    if bad.size:
        raise TorchIndexError(f"Target {bad.flat[0]} is out of bounds.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    r = _reduction(reduction)
    _nll_check(input._data, np.where(target._data == ignore_index, 0, target._data) if target._data.dtype.kind in "iu"
               else target._data)
    out, total = _nll_forward(input._data, target._data, ignore_index, r)
    seq = _begin(input)
    return _record(TABLE["nll_loss"], seq, out, (input,),
                   extra={"target": target, "total_weight": Tensor(total), "weight": None},
                   attrs={"ignore_index": ignore_index, "reduction": r})


def _nll_forward(x, target, ignore_index, r):
    """nll_loss on arrays: (loss, total_weight). A 2-D input with reduction 'none' reports a
    total weight of 0, as PyTorch's kernel does (it never sums the weights then)."""
    t = target.astype(np.int64)
    if x.ndim == 1:
        picked = x[t] if t.ndim == 0 else x[t[0]]
        keep = t != ignore_index
        out = -picked if keep.all() else np.zeros((), x.dtype)
        total = np.asarray(1.0 if keep.all() else 0.0, x.dtype)
    else:
        keep = t != ignore_index
        safe = np.where(keep, t, 0)
        if (safe < 0).any() or (safe >= x.shape[1]).any():
            bad = safe[(safe < 0) | (safe >= x.shape[1])][0]
            raise TorchIndexError(f"Target {bad} is out of bounds.")
        picked = np.where(keep, -x[np.arange(x.shape[0]), safe], 0)
        total = np.asarray(keep.sum() if r else 0, x.dtype)
        out = picked if r == 0 else np.asarray(picked.sum() / total if r == 1 else picked.sum(), x.dtype)
    return np.asarray(out, x.dtype), total


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        return _cross_entropy_probabilities(input, target, class_dim, _reduction(reduction))
    return nll_loss(log_softmax(input, class_dim), target, ignore_index=ignore_index, reduction=reduction)


def _cross_entropy_probabilities(input, target, class_dim, r):
    """A target of class probabilities (the input's shape): -(log_softmax(input) * target), summed over
    the classes, composed of the same ops as PyTorch's cross_entropy_loss_prob_target."""
    if target._data.dtype.kind != "f":
        raise TorchRuntimeError("Expected floating point type for target with class probabilities, got "
                                f"{_SCALAR_NAME[target._data.dtype.name]}")
    prod = mul(log_softmax(input, class_dim), target)
    if r == 0:
        return neg(sum(prod, class_dim))
    if r == 2:
        return neg(sum(prod))
    classes = input._data.shape[class_dim]
    return _TensorMath.div_scalar(neg(sum(prod)), input._data.size // classes if classes else 0)   # 0/0: nan


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    r = _reduction(reduction)
    x, y = input._data, target._data
    if x.shape != y.shape:
        raise TorchValueError(f"Target size (torch.Size({list(y.shape)})) must be the same as input size "
                              f"(torch.Size({list(x.shape)}))")
    if x.dtype.kind != "f":
        raise TorchNotImplementedError_(f"\"log_sigmoid_cpu\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'")
    loss = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
    out = loss if r == 0 else np.asarray(loss.mean() if r == 1 else loss.sum(), x.dtype)
    seq = _begin(input, target)
    return _record(TABLE["bce_logits"], seq, np.asarray(out, x.dtype), (input, target),
                   extra={"pos_weight": None, "weight": None}, attrs={"reduction": r})

# ----------------------------------------------------------------------------- in place, continued


def copy_(t, src, non_blocking=False):
    if not isinstance(src, Tensor):
        _check_operand(src, "src")
        src = Tensor(np.asarray(src))

    def compute(x, s):
        shape = broadcast_shapes(x._data.shape, s._data.shape)
        if shape != x._data.shape:
            raise TorchRuntimeError(f"output with shape {_sizes_str(x._data.shape)} doesn't match the broadcast "
                                    f"shape {_sizes_str(shape)}")
        out = np.array(np.broadcast_to(s._data, x._data.shape), dtype=x._data.dtype)
        return _record(TABLE["copy"], _begin(x, s), out, (x, s))
    return _inplace(t, compute, src, name="copy_", cast=True)


def clamp_(t, min=None, max=None):
    return _inplace(t, lambda x: clamp(x, min, max), name="clamp_")

# ----------------------------------------------------------------------------- logical and bitwise (no grad)


def _bitwise(name, ufunc):
    """`&`, `|`, `^` and torch.bitwise_*: integer and bool tensors only (PyTorch's promotion)."""
    def f(a, b):
        if not (isinstance(b, Tensor) or isinstance(b, (int, float, bool))):
            return NotImplemented
        if type(b) is int and not -2 ** 63 <= b < 2 ** 64:       # past what a Scalar holds
            from .engine import TorchOverflowError
            raise TorchOverflowError("int too big to convert")
        if type(b) is int and b >= 2 ** 63:           # held as uint64, it wraps into int64 as in PyTorch
            if isinstance(a, Tensor) and a._data.dtype == np.bool_:
                raise TorchRuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted "
                                        "to promote Bool and UInt64")
            b -= 2 ** 64
        dt = result_type(a, b)
        _check_shapes(a, b, dt)
        if dt.kind == E.FLOAT:
            raise TorchNotImplementedError_(f'"{name}_cpu" not implemented for \'{_SCALAR_NAME[dt.np.name]}\'')
        sa = a._data.shape if isinstance(a, Tensor) else ()
        sb = b._data.shape if isinstance(b, Tensor) else ()
        if sa != sb:
            _check_broadcast(sa, sb, dt.np.itemsize)
        return Tensor(np.asarray(ufunc(_arr(a, dt), _arr(b, dt)), dt.np))
    f.__name__ = name
    return f


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def bitwise_not(t):
    if t._data.dtype.kind == "f":
        raise TorchNotImplementedError_(f'"bitwise_not_cpu" not implemented for \'{_SCALAR_NAME[t._data.dtype.name]}\'')
    return Tensor(np.invert(t._data))


def invert(t):
    """`~t`: logical not of a bool tensor, bitwise not of an integer one."""
    if t._data.dtype.kind == "f":
        raise TorchTypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor(np.invert(t._data))


def _logical(ufunc):
    def f(a, b):
        if not isinstance(b, Tensor):
            raise TorchTypeError(f"{ufunc.__name__}(): argument 'other' (position 2) must be Tensor, not "
                                 f"{type(b).__name__}")
        if a._data.shape != b._data.shape:
            _check_broadcast(a._data.shape, b._data.shape, 1)
        else:
            _check_like(a._data.shape, itemsize=1)
        return Tensor(np.asarray(ufunc(a._data != 0, b._data != 0)))
    f.__name__ = ufunc.__name__
    return f


logical_and, logical_or, logical_xor = _logical(np.logical_and), _logical(np.logical_or), _logical(np.logical_xor)


def logical_not(t):
    return Tensor(np.asarray(t._data == 0))


def _reduce_bool(fn, t, dim, keepdim):
    _check_reads(t)
    data = t._data
    out_dt = np.uint8 if data.dtype == np.uint8 else np.bool_
    if dim is None:
        return Tensor(np.asarray(fn(data), out_dt))
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    axis = dims if data.ndim else None
    return Tensor(np.asarray(fn(data, axis=axis, keepdims=bool(keepdim) and data.ndim > 0), out_dt))


def tensor_all(t, dim=None, keepdim=False):       # (not `all`/`any`: this module uses the builtins)
    return _reduce_bool(np.all, t, dim, keepdim)


def tensor_any(t, dim=None, keepdim=False):
    return _reduce_bool(np.any, t, dim, keepdim)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: a Python bool; same dtype required, shapes broadcast."""
    for k, v in ((1, a), (2, b)):
        if not isinstance(v, Tensor):
            raise TorchTypeError(f"allclose(): argument '{'input' if k == 1 else 'other'}' (position {k}) must be "
                                 f"Tensor, not {type(v).__name__}")
    x, y = a._data, b._data
    if x.dtype != y.dtype:
        raise TorchRuntimeError(f"{_SCALAR_NAME[x.dtype.name]} did not match {_SCALAR_NAME[y.dtype.name]}")
    broadcast_shapes(x.shape, y.shape)
    if x.dtype.kind == "b":
        return bool(np.all(x == y))
    if x.dtype.kind != "f":
        x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(x - y)
        close = (x == y) | (np.isfinite(err) & (err <= atol + np.abs(rtol * y)))
        if equal_nan:
            close |= np.isnan(x) & np.isnan(y)
    return bool(np.all(close))
