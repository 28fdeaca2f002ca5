"""The op table. Like PyTorch's tools/autograd/derivatives.yaml, every differentiable op is one
row: its grad_fn name, its inputs (the order of next_functions), the tensors it saves and under
which condition each slot holds a tensor, its non-tensor attributes, and one backward formula per
input. A formula is `lambda m, g, <slots...>`: `g` is the incoming gradient, the other parameters
name saved slots or attributes, and `m` is the maths namespace (NumPy arrays normally,
differentiable tensors under create_graph: maths.py). One-line formulas are written here; longer
ones are functions of formulas.py. The engine, explanations, graph views and the exporter read
this table; nothing else repeats per-op knowledge.

Adding an op: its row here, its forward in its family's module, one line in
gradcli/torch/_api.py, and a case in the op tests (tests/test_api_table.py checks they agree).
"""
from __future__ import annotations

import numpy as np

from ..engine import TensorBase
from .numeric import _arr_of, _col_major, _count, _in_bounds, _inverse_perm, _split_sizes
from .record import ALWAYS, op
from .formulas import (_bce_logits_self, _bce_logits_target, _bn_second, _cat_backward, _clamp_max_mask,
                       _clamp_min_mask, _cumprod_backward, _cumsum_backward, _ln_second, _loss_mean, _ndim,
                       _norm_backward, _pow_backward_exponent, _pow_backward_self, _prod_backward, _scaled,
                       _stack_backward)
from .formulas import (_aminmax_backward, _amax_backward, _evenly_distribute_backward,  # (session 9)
                       _logsumexp_backward, _nansum_backward, _std_backward, _std_mean_backward, _var_backward,
                       _var_mean_backward)

TABLE = {
    # -- shape ops and matrix products (session 9)
    "repeat": op("RepeatBackward0", ("self",), attrs=("repeats", "self_sym_sizes"),
                 self=lambda m, g, repeats, self_sym_sizes: m.repeat_backward(g, repeats, self_sym_sizes),
                 doc="tile too: the repeats summed back onto the input"),
    "roll": op("RollBackward0", ("self",), attrs=("dims", "shifts"),
               self=lambda m, g, shifts, dims: m.roll(g, tuple(-s for s in shifts), dims)),
    "rot90": op("Rot90Backward0", ("self",), attrs=("dims", "k"), self=lambda m, g, k, dims: m.rot90(g, -k, dims)),
    "tril": op("TrilBackward0", ("self",), attrs=("diagonal",), self=lambda m, g, diagonal: m.tril(g, diagonal)),
    "triu": op("TriuBackward0", ("self",), attrs=("diagonal",), self=lambda m, g, diagonal: m.triu(g, diagonal)),
    "diagonal": op("DiagonalBackward0", ("self",), attrs=("dim1", "dim2", "offset", "self_sym_sizes"),
                   self=lambda m, g, self_sym_sizes, offset, dim1, dim2: m.diagonal_backward(
                       g, self_sym_sizes, offset, dim1, dim2), doc="a view: saves sizes only"),
    "diagonal_copy": op("DiagonalBackward0_copy", ("self",), attrs=("dim1", "dim2", "offset", "self_sym_sizes"),
                        self=lambda m, g, self_sym_sizes, offset, dim1, dim2: m.diagonal_backward(
                            g, self_sym_sizes, offset, dim1, dim2), doc="torch.diag of a matrix: a copy"),
    "diagonal_backward": op("DiagonalBackwardBackward0", ("grad_output",), attrs=("dim1", "dim2", "offset"),
                            grad_output=lambda m, g, offset, dim1, dim2: m.diagonal(g, offset, dim1, dim2),
                            doc="diagonal's gradient under create_graph"),
    "diag_embed": op("DiagEmbedBackward0", ("self",), attrs=("dim1", "dim2", "offset"),
                     self=lambda m, g, offset, dim1, dim2: m.diagonal(g, offset, dim1, dim2)),
    "trace": op("TraceBackward0", ("self",), attrs=("self_sym_sizes",),
                self=lambda m, g, self_sym_sizes: m.trace_backward(g, self_sym_sizes)),
    "addmv": op("AddmvBackward0", ("self", "mat", "vec"), saved=(("mat", "vec"), ("vec", "mat")),
                attrs=("alpha", "beta"),
                self=lambda m, g, beta: _scaled(m, g, beta),
                mat=lambda m, g, vec, alpha: _scaled(m, m.outer(g, vec), alpha),
                vec=lambda m, g, mat, alpha: _scaled(m, m.mv(m.t(mat), g), alpha)),
    "addr": op("AddrBackward0", ("self", "vec1", "vec2"), saved=(("vec1", "vec2"), ("vec2", "vec1")),
               attrs=("alpha", "beta"),
               self=lambda m, g, beta: _scaled(m, g, beta),
               vec1=lambda m, g, vec2, alpha: _scaled(m, m.mv(g, vec2), alpha),
               vec2=lambda m, g, vec1, alpha: _scaled(m, m.mv(m.t(g), vec1), alpha)),
    "baddbmm": op("BaddbmmBackward0", ("self", "batch1", "batch2"), saved=(("batch1", "batch2"), ("batch2", "batch1")),
                  attrs=("alpha", "beta"),
                  self=lambda m, g, beta: _scaled(m, g, beta),
                  batch1=lambda m, g, batch2, alpha: _scaled(m, m.bmm(g, m.swapaxes(batch2, 1, 2)), alpha),
                  batch2=lambda m, g, batch1, alpha: _scaled(m, m.bmm(m.swapaxes(batch1, 1, 2), g), alpha)),
    "addbmm": op("AddbmmBackward0", ("self", "batch1", "batch2"), saved=(("batch1", "batch2"), ("batch2", "batch1")),
                 attrs=("alpha", "batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2_sym_argsize_2", "beta"),
                 self=lambda m, g, beta: _scaled(m, g, beta),
                 batch1=lambda m, g, batch2, alpha, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2:
                 _scaled(m, m.bmm(m.expand(m.unsqueeze(g, 0), (batch1_sym_argsize_0, batch1_sym_argsize_1,
                                                                batch2_sym_argsize_2)), m.swapaxes(batch2, 1, 2)), alpha),
                 batch2=lambda m, g, batch1, alpha, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2:
                 _scaled(m, m.bmm(m.swapaxes(batch1, 1, 2), m.expand(m.unsqueeze(g, 0), (
                     batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2))), alpha)),
    "vdot": op("VdotBackward0", ("self", "other"), saved=(("other", "self"), ("self", "other")),
               self=lambda m, g, other: m.mul_g(g, other), other=lambda m, g, self: m.mul_g(g, self)),
    "dist": op("DistBackward0", ("self", "other"), saved=(("other", ALWAYS), ("result", ALWAYS), ("self", ALWAYS)),
               attrs=("p",),
               self=lambda m, g, self, other, result, p: _norm_backward(m, g, self - other, result, p, None, False),
               other=lambda m, g, self, other, result, p: m.neg_defined(
                   _norm_backward(m, g, self - other, result, p, None, False))),
    "linalg_cross": op("LinalgCrossBackward0", ("self", "other"), saved=(("other", "self"), ("self", "other")),
                       attrs=("dim",),
                       self=lambda m, g, other, dim: m.cross(other, g, dim),
                       other=lambda m, g, self, dim: m.cross(g, self, dim)),
    # -- arithmetic (a C++ Scalar operand: the *_scalar rows, which backward formulas record under create_graph)
    "add": op("AddBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: g if alpha == 1 else m.mul_scalar(g, alpha),
              doc="saves only the number alpha: nothing to free"),
    "sub": op("SubBackward0", ("self", "other"), attrs=("alpha",),
              self=lambda m, g: g, other=lambda m, g, alpha: m.neg_g(g) if alpha == 1 else m.mul_scalar(g, -alpha),
              doc="saves only the number alpha: nothing to free"),
    "rsub": op("RsubBackward1", ("self",), attrs=("alpha",),
               self=lambda m, g, alpha: m.neg_g(g) if alpha == 1 else m.mul_scalar(g, -alpha),
               doc="number - tensor: saves only alpha"),
    "remainder": op("RemainderBackward0", ("self",), self=lambda m, g: g, doc="tensor % a number: saves nothing"),
    "remainder_tensor": op("RemainderBackward1", ("self", "other"), saved=(("other", "other"), ("self", "other")),
                           self=lambda m, g: g,
                           other=lambda m, g, self, other: m.mul_g(m.neg_g(g), m.floor_divide(self, other)),
                           doc="saves both operands when other requires grad (its gradient is -g * (self // other))"),
    "div_floor": op("DivBackward2", ("self", "other"), saved=(("other", ALWAYS), ("self", "other")),
                    attrs=("rounding_mode",), self=lambda m, g: m.zeros_like(g), other=lambda m, g: m.zeros_like(g),
                    doc="div(rounding_mode='floor'), recorded by remainder's gradient under create_graph: "
                        "its gradients are zeros"),
    "mul": op("MulBackward0", ("self", "other"), twins=True, saved=(("other", "self"), ("self", "other")),
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
    "add_scalar": op("AddBackward1", ("self",), self=lambda m, g: g,
                     doc="tensor + a C++ Scalar: saves nothing"),
    "sub_scalar": op("SubBackward1", ("self",), self=lambda m, g: g, doc="tensor - a C++ Scalar: saves nothing"),
    "mul_scalar": op("MulBackward1", ("self",), attrs=("other",), self=lambda m, g, other: m.mul_scalar(g, other),
                     doc="tensor * a C++ Scalar: saves the number, not a tensor"),
    "div_scalar": op("DivBackward1", ("self",), attrs=("other",), self=lambda m, g, other: m.div_scalar(g, other)),
    # -- unary -------------------------------------------------------------------------------------
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
    # piecewise constant: a zero gradient, and nothing saved
    "floor": op("FloorBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "ceil": op("CeilBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "round": op("RoundBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "trunc": op("TruncBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "sign": op("SignBackward0", ("self",), self=lambda m, g: m.zeros_like(g), doc="its gradient is zero"),
    "sgn": op("SgnBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
              self=lambda m, g: m.zeros_like(g)),
    "frac": op("FracBackward0", ("self",), self=lambda m, g: g, doc="x - trunc(x): the gradient passes through"),
    "clone": op("CloneBackward0", ("self",), self=lambda m, g: g, doc="saves nothing"),
    "to_copy": op("ToCopyBackward0", ("self",), self=lambda m, g: g, doc="saves nothing"),
    # -- pointwise maths (session 9): PyTorch's derivatives.yaml formulas, operation for operation
    "log1p": op("Log1PBackward0", ("self",), saved=(("self", ALWAYS),),
                self=lambda m, g, self: m.div_g(g, m.add_scalar(self, 1))),
    "expm1": op("Expm1Backward0", ("self",), saved=(("result", ALWAYS),),
                self=lambda m, g, result: m.mul_g(g, m.add_scalar(result, 1))),
    "log2": op("Log2Backward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.div_g(g, m.mul_scalar(self, 0.6931471805599453))),
    "log10": op("Log10Backward0", ("self",), saved=(("self", ALWAYS),),
                self=lambda m, g, self: m.div_g(g, m.mul_scalar(self, 2.302585092994046))),
    "exp2": op("Exp2Backward0", ("self",), saved=(("result", ALWAYS),),
               self=lambda m, g, result: m.mul_scalar(g * result, 0.6931471805599453)),
    "tan": op("TanBackward0", ("self",), saved=(("result", ALWAYS),),
              self=lambda m, g, result: m.mul_g(g, m.add_scalar(m.pow_scalar(result, 2), 1))),
    "asin": op("AsinBackward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.mul_g(g, m.rsqrt(m.add_scalar(-self * self, 1)))),
    "acos": op("AcosBackward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.mul_g(g, -m.rsqrt(m.add_scalar(-self * self, 1)))),
    "atan": op("AtanBackward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.div_g(g, m.add_scalar(self * self, 1))),
    "sinh": op("SinhBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: m.mul_g(g, m.cosh(self))),
    "cosh": op("CoshBackward0", ("self",), saved=(("self", ALWAYS),), self=lambda m, g, self: m.mul_g(g, m.sinh(self))),
    "asinh": op("AsinhBackward0", ("self",), saved=(("self", ALWAYS),),
                self=lambda m, g, self: m.mul_g(g, m.rsqrt(m.add_scalar(m.pow_scalar(self, 2), 1)))),
    "acosh": op("AcoshBackward0", ("self",), saved=(("self", ALWAYS),),
                self=lambda m, g, self: m.mul_g(g, m.rsqrt(m.sub_scalar(self * self, 1)))),
    "atanh": op("AtanhBackward0", ("self",), saved=(("self", ALWAYS),),
                self=lambda m, g, self: m.div_g(m.mul_scalar(g, 1), m.rsub_scalar(m.pow_scalar(self, 2), 1))),
    # their in-place versions have no derivative in PyTorch: the backward raises
    "asinh_": op("AsinhBackward1", ("self",), self=lambda m, g: m.not_implemented("inplace version of asinh")),
    "acosh_": op("AcoshBackward1", ("self",), self=lambda m, g: m.not_implemented("inplace version of acosh")),
    "atanh_": op("AtanhBackward1", ("self",), self=lambda m, g: m.not_implemented("inplace version of atanh")),
    # 2 / sqrt(pi) * exp(-(self ** 2)) * grad; erfinv: sqrt(pi) / 2 * exp(erfinv(self) ** 2) * grad
    "erf": op("ErfBackward0", ("self",), saved=(("self", ALWAYS),),
              self=lambda m, g, self: m.mul_scalar(m.exp(-m.pow_scalar(self, 2)), 1.1283791670955126) * g),
    "erfc": op("ErfcBackward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.mul_scalar(m.exp(-m.pow_scalar(self, 2)), -1.1283791670955126) * g),
    "erfinv": op("ErfinvBackward0", ("self",), saved=(("self", ALWAYS),),
                 self=lambda m, g, self: m.mul_scalar(m.exp(m.pow_scalar(m.erfinv(self), 2)), 0.886226925452758) * g),
    "sinc": op("SincBackward0", ("self",), saved=(("self", ALWAYS),),
               self=lambda m, g, self: m.sinc_backward(g, self)),
    "deg2rad": op("Deg2RadBackward0", ("self",), self=lambda m, g: m.mul_scalar(g, 0.017453292519943295),
                  doc="saves nothing"),
    "rad2deg": op("Rad2DegBackward0", ("self",), self=lambda m, g: m.mul_scalar(g, 57.29577951308232),
                  doc="saves nothing"),
    "nan_to_num": op("NanToNumBackward0", ("self",), saved=(("self", ALWAYS),),
                     self=lambda m, g, self: g * m.isfinite(self)),
    "logit": op("LogitBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("eps",),
                self=lambda m, g, self, eps: m.logit_backward(g, self, eps)),
    "atan2": op("Atan2Backward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                self=lambda m, g, self, other: m.atan2_backward(g, self, other, True),
                other=lambda m, g, self, other: m.atan2_backward(g, self, other, False)),
    "hypot": op("HypotBackward0", ("self", "other"), saved=(("other", "other"), ("result", ALWAYS), ("self", "self")),
                self=lambda m, g, self, result: g * self / result,
                other=lambda m, g, other, result: g * other / result),
    "fmod": op("FmodBackward0", ("self",), self=lambda m, g: g, doc="tensor fmod a number: saves nothing"),
    "fmod_tensor": op("FmodBackward1", ("self", "other"), saved=(("other", "other"), ("self", "other")),
                      self=lambda m, g: g,
                      other=lambda m, g, self, other: m.fmod_backward_other(g, self, other)),
    # xlogy(grad, other), 0 where self == 0 and other <= 0
    "xlogy": op("XlogyBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                self=lambda m, g, self, other: m.masked_fill(m.xlogy(g, other),
                                                             (_arr_of(self) == 0) & (_arr_of(other) <= 0), 0),
                other=lambda m, g, self, other: g * self / other),
    "xlogy_scalar_self": op("XlogyBackward1", ("other",), saved=(("other", ALWAYS),), attrs=("self",),
                            other=lambda m, g, self, other: m.div_g(m.mul_scalar(g, self), other),
                            doc="a number times log(tensor)"),
    "xlogy_scalar_other": op("XlogyBackward2", ("self",), saved=(("self", ALWAYS),), attrs=("other",),
                             self=lambda m, g, self, other: m.xlogy(g, other) if other > 0 else
                             m.masked_fill(m.xlogy(g, other), _arr_of(self) == 0, 0),
                             doc="tensor times log(a number)"),
    "copysign": op("CopysignBackward0", ("self", "other"), saved=(("result", ALWAYS), ("self", "self")),
                   self=lambda m, g, self, result: m.copysign_self_backward(g, self, result),
                   other=lambda m, g: m.zeros_like(g)),
    "copysign_scalar": op("CopysignBackward1", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
                          self=lambda m, g, self, result: m.copysign_self_backward(g, self, result)),
    "logaddexp": op("LogaddexpBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                    self=lambda m, g, self, other: g / m.add_scalar(m.exp(other - self), 1),
                    other=lambda m, g, self, other: g / m.add_scalar(m.exp(self - other), 1)),
    "logaddexp2": op("Logaddexp2Backward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
                     self=lambda m, g, self, other: g / m.add_scalar(m.exp2(other - self), 1),
                     other=lambda m, g, self, other: g / m.add_scalar(m.exp2(self - other), 1)),
    # grad where the operand is taken (self on ties), else 0: grad.masked_fill(mask, 0)
    "fmax": op("FmaxBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
               self=lambda m, g, self, other: m.masked_fill(g, ~m.fmax_taken(self, other, np.greater_equal), 0),
               other=lambda m, g, self, other: m.masked_fill(g, m.fmax_taken(self, other, np.greater_equal), 0)),
    "fmin": op("FminBackward0", ("self", "other"), saved=(("other", ALWAYS), ("self", ALWAYS)),
               self=lambda m, g, self, other: m.masked_fill(g, ~m.fmax_taken(self, other, np.less_equal), 0),
               other=lambda m, g, self, other: m.masked_fill(g, m.fmax_taken(self, other, np.less_equal), 0)),
    "lerp": op("LerpBackward0", ("self", "end"), attrs=("weight",),
               self=lambda m, g, weight: m.mul_scalar(g, 1 - float(weight)),
               end=lambda m, g, weight: m.mul_scalar(g, weight)),
    "lerp_tensor": op("LerpBackward1", ("self", "end", "weight"),
                      saved=(("end", "weight"), ("self", "weight"), ("weight", ALWAYS)),
                      self=lambda m, g, weight: g * m.rsub_scalar(weight, 1),
                      end=lambda m, g, weight: g * weight,
                      weight=lambda m, g, self, end, weight: g * (end - self)),
    "addcmul": op("AddcmulBackward0", ("self", "tensor1", "tensor2"),
                  saved=(("tensor1", "tensor2"), ("tensor2", "tensor1")), attrs=("value",),
                  self=lambda m, g: g,
                  tensor1=lambda m, g, tensor2, value: g * m.mul_scalar(tensor2, value),
                  tensor2=lambda m, g, tensor1, value: g * m.mul_scalar(tensor1, value)),
    "addcdiv": op("AddcdivBackward0", ("self", "tensor1", "tensor2"),
                  saved=(("tensor1", "tensor2"), ("tensor2", ALWAYS)), attrs=("value",),
                  self=lambda m, g: g,
                  tensor1=lambda m, g, tensor2, value: g * m.rdiv_scalar(tensor2, value),
                  tensor2=lambda m, g, tensor1, tensor2, value: m.addcdiv_backward_tensor2(g, tensor1, tensor2,
                                                                                           value)),

    # -- sorting, selection and index ops (session 9)
    "gather": op("GatherBackward0", ("self",), saved=(("index", ALWAYS), ("self", ALWAYS)), attrs=("dim", "sparse_grad"),
                 self=lambda m, g, self, index, dim: m.gather_backward(g, self, dim, index),
                 doc="saves the input (for its sizes) and the index: the gradient is added back at the index"),
    "scatter": op("ScatterBackward0", ("self", "src"), saved=(("index", ALWAYS),), attrs=("dim",),
                  self=lambda m, g, index, dim: m.scatter_zero(g, dim, index),
                  src=lambda m, g, index, dim, _src_sizes: m.scatter_src_backward(
                      g, dim, index, _src_sizes, "ScatterBackward0")),
    "scatter_value": op("ScatterBackward1", ("self",), saved=(("index", ALWAYS),), attrs=("dim",),
                        self=lambda m, g, index, dim: m.scatter_zero(g, dim, index)),
    "scatter_reduce_src": op("NotImplemented", ("self", "src"), cpp=True,
                             self=lambda m, g, _op: m.derivative_error(g, _op),
                             src=lambda m, g, _op: m.derivative_error(g, _op),
                             doc="scatter(..., reduce=): PyTorch has no derivative for it"),
    "scatter_reduce_value": op("NotImplemented", ("self",), cpp=True,
                               self=lambda m, g, _op: m.derivative_error(g, _op),
                               doc="scatter(..., reduce=) with one operand that requires grad: no derivative"),
    "scatter_add": op("ScatterAddBackward0", ("self", "src"), saved=(("index", "src"),), attrs=("dim",),
                      self=lambda m, g: g, src=lambda m, g, index, dim, _src_sizes: m.scatter_src_backward(
                          g, dim, index, _src_sizes, "ScatterAddBackward0")),
    "index_select": op("IndexSelectBackward0", ("self",), saved=(("index", ALWAYS),), attrs=("dim", "self_sym_sizes"),
                       self=lambda m, g, index, dim, self_sym_sizes: m.index_select_backward(
                           g, self_sym_sizes, dim, index)),
    "take": op("TakeBackward0", ("self",), saved=(("index", ALWAYS), ("self", ALWAYS)),
               self=lambda m, g, self, index: m.take_backward(g, self, index)),
    "masked_select": op("MaskedSelectBackward0", ("self",), saved=(("mask", ALWAYS), ("self", ALWAYS)),
                        self=lambda m, g, self, mask: m.masked_select_backward(g, self, mask)),
    "index_add": op("IndexAddBackward0", ("self", "source"), saved=(("index", "source"), ("source", "source")),
                    attrs=("alpha", "dim", "source_dim"), self=lambda m, g: g,
                    source=lambda m, g, index, source, dim, alpha: m.index_source_backward(g, dim, index, source,
                                                                                           alpha)),
    "index_copy": op("IndexCopyBackward0", ("self", "source"), saved=(("index", ALWAYS), ("source", "source")),
                     attrs=("dim", "source_dim"), self=lambda m, g, index, dim: m.index_fill_zero(g, dim, index),
                     source=lambda m, g, index, source, dim: m.index_source_backward(g, dim, index, source, 1)),
    "index_fill": op("IndexFillBackward0", ("self",), saved=(("index", ALWAYS),), attrs=("dim",),
                     self=lambda m, g, index, dim: m.index_fill_zero(g, dim, index)),
    "index_fill_tensor": op("IndexFillBackward1", ("self", "value"), saved=(("index", ALWAYS),), attrs=("dim",),
                            self=lambda m, g, index, dim: m.index_fill_zero(g, dim, index),
                            value=lambda m, g, index, dim: m.index_fill_value_backward(g, dim, index)),
    "put": op("PutBackward0", ("self", "source"), saved=(("index", ALWAYS), ("source", ALWAYS)), attrs=("accumulate",),
              self=lambda m, g, index, source, accumulate: g if accumulate else m.put_zero(g, index, source),
              source=lambda m, g, index, source: m.take_reshaped(g, index, source),
              doc="take's gradient under create_graph (zeros put_ the gradient at the index, accumulating)"),
    "masked_scatter": op("MaskedScatterBackward0", ("self", "source"), saved=(("mask", ALWAYS),),
                         attrs=("source_sym_sizes",), self=lambda m, g, mask: m.masked_fill(g, mask, 0),
                         source=lambda m, g, mask, source_sym_sizes: m.masked_scatter_backward(g, mask, source_sym_sizes),
                         doc="masked_select's gradient under create_graph (zeros masked_scatter_ the gradient)"),
    "bincount": op("NotImplemented", ("weights",), cpp=True, weights=lambda m, g, _op: m.derivative_error(g, _op),
                   doc="bincount's weights: PyTorch has no derivative for them"),
    "sort": op("SortBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "self_sym_sizes"),
               self=lambda m, g, indices, dim, self_sym_sizes: m.value_selecting(g, dim, indices, self_sym_sizes, True)),
    "sort_stable": op("SortBackward1", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "self_sym_sizes"),
                      self=lambda m, g, indices, dim, self_sym_sizes: m.value_selecting(
                          g, dim, indices, self_sym_sizes, True)),
    "topk": op("TopkBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "self_sym_sizes"),
               self=lambda m, g, indices, dim, self_sym_sizes: m.value_selecting(g, dim, indices, self_sym_sizes, True)),
    "kthvalue": op("KthvalueBackward0", ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "keepdim", "self_sym_sizes"),
                   self=lambda m, g, indices, dim, keepdim, self_sym_sizes: m.value_selecting(
                       g, dim, indices, self_sym_sizes, keepdim)),
    "cummax": op("CummaxBackward0", ("self",), saved=(("indices", ALWAYS), ("self", ALWAYS)), attrs=("dim",),
                 self=lambda m, g, self, indices, dim: m.cummaxmin_backward(g, self, indices, dim)),
    "cummin": op("CumminBackward0", ("self",), saved=(("indices", ALWAYS), ("self", ALWAYS)), attrs=("dim",),
                 self=lambda m, g, self, indices, dim: m.cummaxmin_backward(g, self, indices, dim)),
    "unique": op("Unique2Backward0", ("self",), self=lambda m, g: m.derivative_not_implemented(g, "_unique2"),
                 doc="PyTorch has no derivative for unique: its backward raises"),
    "unique_dim": op("UniqueDimBackward0", ("self",), self=lambda m, g: m.derivative_not_implemented(g, "unique_dim")),
    "unique_consecutive": op("UniqueConsecutiveBackward0", ("self",),
                             self=lambda m, g: m.derivative_not_implemented(g, "unique_consecutive")),
    # -- selection ---------------------------------------------------------------------------------
    "clamp": op("ClampBackward1", ("self",), saved=(("self", ALWAYS),), attrs=("max", "min"),
                self=lambda m, g, self, min, max: m.mask(g, _in_bounds(self, min, max))),
    "clamp_min": op("ClampMinBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("min",),
                    self=lambda m, g, self, min: m.mask(g, _in_bounds(self, min, None))),
    "clamp_max": op("ClampMaxBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("max",),
                    self=lambda m, g, self, max: m.mask(g, _in_bounds(self, None, max))),
    "clamp_min_tensor": op("ClampMinBackward1", ("self", "min"), saved=(("min", ALWAYS), ("self", ALWAYS)),
                           self=lambda m, g, self, min: m.mask(g, _in_bounds(self, min, None)),
                           min=lambda m, g, self, min: m.mask(g, _clamp_min_mask(self, min, None))),
    "clamp_max_tensor": op("ClampMaxBackward1", ("self", "max"), saved=(("max", ALWAYS), ("self", ALWAYS)),
                           self=lambda m, g, self, max: m.mask(g, _in_bounds(self, None, max)),
                           max=lambda m, g, self, max: m.mask(g, _clamp_max_mask(self, None, max))),
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
    # -- reductions --------------------------------------------------------------------------------
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
    "cumsum": op("CumsumBackward0", ("self",), attrs=("dim",), self=lambda m, g, dim: _cumsum_backward(m, g, dim)),
    "cumprod": op("CumprodBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim",),
                  self=lambda m, g, self, result, dim: _cumprod_backward(m, g, self, dim, result)),
    "softmax": op("SoftmaxBackward0", ("self",), saved=(("result", ALWAYS),), attrs=("dim",),
                  self=lambda m, g, result, dim: m.softmax_backward(g, result, dim)),
    "log_softmax": op("LogSoftmaxBackward0", ("self",), saved=(("result", ALWAYS),), attrs=("dim",),
                      self=lambda m, g, result, dim: m.log_softmax_backward(g, result, dim)),
    # -- matrix products ---------------------------------------------------------------------------
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
    "bmm": op("BmmBackward0", ("self", "mat2"), saved=(("mat2", "self"), ("self", "mat2")),
              self=lambda m, g, mat2: m.bmm(g, m.swapaxes(mat2, 1, 2)),
              mat2=lambda m, g, self: m.bmm(m.swapaxes(self, 1, 2), g)),
    # -- shapes (views: they save sizes, never tensors) --------------------------------------------
    "view": op("ViewBackward0", ("self",), attrs=("self_sym_sizes",),
               self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "unsafe_view": op("UnsafeViewBackward0", ("self",), attrs=("self_sym_sizes",),
                      self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "reshape_alias": op("ReshapeAliasBackward0", ("self",), attrs=("self_sym_sizes",),
                        self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes),
                        doc="reshape of a non-contiguous tensor that can still be a view"),
    "expand": op("ExpandBackward0", ("self",), attrs=("self_sym_sizes",),
                 self=lambda m, g, self_sym_sizes: m.fit(g, tuple(self_sym_sizes), g.dtype if not isinstance(g, TensorBase) else g._data.dtype)),
    "unsqueeze": op("UnsqueezeBackward0", ("self",), attrs=("dim",),
                    self=lambda m, g, dim: m.squeeze_dim(g, dim)),
    "squeeze": op("SqueezeBackward0", ("self",), attrs=("self_sym_sizes",),
                  self=lambda m, g, self_sym_sizes: m.reshape(g, self_sym_sizes)),
    "squeeze_dim": op("SqueezeBackward1", ("self",), attrs=("dim", "self_sym_sizes"),
                      self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "squeeze_dims": op("SqueezeBackward2", ("self",), attrs=("dim", "self_sym_sizes"),
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
    "flip": op("FlipBackward0", ("self",), attrs=("dims",), self=lambda m, g, dims: m.flip(g, dims)),
    # -- joining, and one node for several outputs (views of the input): the gradient is a list, one per output
    "cat": op("CatBackward0", ("tensors",), attrs=("dim",), variadic=_cat_backward, doc="saves only dim"),
    "stack": op("StackBackward0", ("tensors",), attrs=("dim",), variadic=_stack_backward, doc="saves only dim"),
    "split": op("SplitBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_size"), multi=True,
                self=lambda m, g, dim, self_sym_sizes, split_size: m.split_backward(
                    g, _split_sizes(self_sym_sizes[dim], split_size), dim, self_sym_sizes),
                doc="one node for every piece: the pieces' gradients side by side (zeros for a piece without)"),
    "split_with_sizes": op("SplitWithSizesBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_sizes"),
                           multi=True,
                           self=lambda m, g, dim, self_sym_sizes, split_sizes: m.split_backward(
                               g, split_sizes, dim, self_sym_sizes),
                           doc="one node for every piece: the pieces' gradients side by side"),
    "unbind": op("UnbindBackward0", ("self",), attrs=("dim",), multi=True,
                 self=lambda m, g, dim: m.unbind_backward(g, dim),
                 doc="one node for every slice: the slices' gradients stacked"),
    # -- losses ------------------------------------------------------------------------------------
    "mse_loss": op("MseLossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                   attrs=("reduction",),
                   self=lambda m, g, self, target, reduction: m.mse_backward(g, self, target, reduction),
                   target=lambda m, g, self, target, reduction: m.mse_backward(g, target, self, reduction)),
    # -- in place ----------------------------------------------------------------------------------
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
    "squeeze_dim_": op("SqueezeBackward4", ("self",), attrs=("dim", "self_sym_sizes"),
                       self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "squeeze_dims_": op("SqueezeBackward5", ("self",), attrs=("dim", "self_sym_sizes"),
                        self=lambda m, g, dim, self_sym_sizes: m.unsqueeze_to(g, dim, self_sym_sizes)),
    "t_": op("TBackward1", ("self",), self=lambda m, g: m.swapaxes(g, 0, -1) if _ndim(g) == 2 else g),
    "transpose_": op("TransposeBackward1", ("self",), attrs=("dim0", "dim1"),
                     self=lambda m, g, dim0, dim1: m.swapaxes(g, dim0, dim1)),
    # -- the nodes backward formulas record under create_graph (higher-order gradients) ------------
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
    "slice_backward": op("SliceBackwardBackward0", ("grad_output",), attrs=("dim", "end", "start", "step"),
                         grad_output=lambda m, g, dim, start, end, step: m.slice(g, dim, start, end, step)),
    "select_backward": op("SelectBackwardBackward0", ("grad_output",), attrs=("dim", "index"),
                          grad_output=lambda m, g, dim, index: m.select(g, dim, index)),
    # -- comparisons/predicates and statistical reductions (session 9)
    # x.eq_(y): a comparison written in place records a node whose gradients are zeros
    **{key: op(name, ("self",), self=lambda m, g: m.zeros_like(g), doc="an in-place comparison with a number: "
                                                                       "its gradient is zero")
       for key, name in (("eq_", "EqBackward0"), ("ne_", "NeBackward0"), ("gt_", "GtBackward0"),
                         ("ge_", "GeBackward0"), ("lt_", "LtBackward0"), ("le_", "LeBackward0"))},
    **{key: op(name, ("self", "other"), self=lambda m, g: m.zeros_like(g), other=lambda m, g: m.zeros_like(g),
               doc="an in-place comparison with a tensor: both gradients are zero")
       for key, name in (("eq_tensor", "EqBackward1"), ("ne_tensor", "NeBackward1"), ("gt_tensor", "GtBackward1"),
                         ("ge_tensor", "GeBackward1"), ("lt_tensor", "LtBackward1"), ("le_tensor", "LeBackward1"))},
    "var": op("VarBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("correction", "dim", "keepdim"),
              self=_var_backward),
    "std": op("StdBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
              attrs=("correction", "dim", "keepdim"), self=_std_backward),
    "var_mean": op("VarMeanBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("correction", "dim", "keepdim"),
                   multi=True, self=_var_mean_backward, doc="one node for the variance and the mean"),
    "std_mean": op("StdMeanBackward0", ("self",), saved=(("result0", ALWAYS), ("self", ALWAYS)),
                   attrs=("correction", "dim", "keepdim"), multi=True, self=_std_mean_backward,
                   doc="one node for the standard deviation (result0, saved) and the mean"),
    "logsumexp": op("LogsumexpBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim", "keepdim"),
                    self=_logsumexp_backward),
    "amax": op("AmaxBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim", "keepdim"),
               self=_amax_backward, doc="ties share the gradient evenly"),
    "amin": op("AminBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)), attrs=("dim", "keepdim"),
               self=_amax_backward, doc="ties share the gradient evenly"),
    "aminmax": op("AminmaxBackward0", ("self",), saved=(("max", ALWAYS), ("min", ALWAYS), ("self", ALWAYS)),
                  attrs=("dim", "keepdim"), multi=True, self=_aminmax_backward,
                  doc="one node for the minimum and the maximum (both saved); ties share each one's gradient"),
    "nansum": op("NansumBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("dim", "keepdim"),
                 self=_nansum_backward, doc="sum's gradient, zero where the input is nan"),
    "median": op("MedianBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
                 self=_evenly_distribute_backward, doc="the elements equal to the median share its gradient"),
    "nanmedian": op("NanmedianBackward0", ("self",), saved=(("result", ALWAYS), ("self", ALWAYS)),
                    self=_evenly_distribute_backward, doc="the elements equal to the median share its gradient"),
    **{key: op(name, ("self",), saved=(("indices", ALWAYS),), attrs=("dim", "keepdim", "self_sym_sizes"),
               self=lambda m, g, indices, dim, keepdim, self_sym_sizes: m.value_selecting(
                   g, dim, indices, self_sym_sizes, keepdim))
       for key, name in (("median_dim", "MedianBackward1"), ("nanmedian_dim", "NanmedianBackward1"),
                         ("mode", "ModeBackward0"))},
    # -- linalg (session 9)
    "linalg_inv": op("LinalgInvExBackward0", ("self",), saved=(("inverse", ALWAYS),), output_slot="inverse",
                     self=lambda m, g, inverse: -m.matmul(m.swapaxes(inverse, -2, -1),
                                                          m.matmul(g, m.swapaxes(inverse, -2, -1))),
                     doc="-inverse.mH @ (grad @ inverse.mH)"),
    "linalg_det": op("LinalgDetBackward0", ("A",),
                     saved=(("A", ALWAYS), ("LU", ALWAYS), ("pivots", ALWAYS), ("result", ALWAYS)),
                     A=lambda m, g, A, LU, pivots, result: m.det_backward(g, result, A, LU, pivots),
                     doc="the solution G of A.mH G = det * grad * I"),
    "linalg_solve": op("LinalgSolveExBackward0", ("A", "B"),
                       saved=(("A", ALWAYS), ("LU", ALWAYS), ("pivots", ALWAYS), ("result", ALWAYS)), attrs=("left",),
                       A=lambda m, g, A, LU, pivots, result: m.solve_grad_A(g, A, LU, pivots, result),
                       B=lambda m, g, A, LU, pivots, result: m.solve_grad_B(g, A, LU, pivots, result),
                       doc="gB = A^-H gX, gA = -gB X^H"),
    "linalg_slogdet": op("LinalgSlogdetBackward0", ("A",),
                         saved=(("A", ALWAYS), ("LU", ALWAYS), ("pivots", ALWAYS), ("sign", ALWAYS)), multi=True,
                         A=lambda m, g, A, LU, pivots, sign: m.slogdet_backward(g, A, sign, LU, pivots),
                         doc="one node for the sign and log|det|: A^-H times log|det|'s gradient"),
}

_CONV_INPUTS = ("grad_output", "input", "weight")
_CONV_ATTRS = ("dilation", "groups", "output_padding", "padding", "stride", "transposed")
_BN_SAVED = tuple((s, ALWAYS) for s in ("grad_out", "input", "weight", "running_mean", "running_var", "save_mean",
                                        "save_invstd"))
_LN_SAVED = tuple((s, ALWAYS) for s in ("grad_out", "input", "weight", "mean", "rstd"))
_LOSS_SAVED = (("grad_output", ALWAYS), ("self", ALWAYS), ("target", ALWAYS))

# torch.nn's rows, each also TABLE["nn." + its key]
ROWS = {
    # -- linear ------------------------------------------------------------------------------------
    "addmm": op("AddmmBackward0", ("self", "mat1", "mat2"), saved=(("mat1", "mat2"), ("mat2", "mat1")),
                attrs=("alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"),
                self=lambda m, g, beta: g if beta == 1 else m.mul_scalar(g, beta),
                mat1=lambda m, g, mat2, alpha, mat1_sym_sizes, mat1_sym_strides: _scaled(m, (
                    m.t(m.mm(mat2, m.t(g))) if _col_major(mat1_sym_sizes, mat1_sym_strides)
                    else m.mm(g, m.t(mat2))), alpha),
                mat2=lambda m, g, mat1, alpha, mat2_sym_sizes, mat2_sym_strides: _scaled(m, (
                    m.t(m.mm(m.t(g), mat1)) if _col_major(mat2_sym_sizes, mat2_sym_strides)
                    else m.mm(m.t(mat1), g)), alpha),
                doc="bias + input @ weight.t(): saves each matrix when the other requires grad"),
    "trilinear": op("TrilinearBackward0", ("i1", "i2", "i3"), saved=(("i1", ALWAYS), ("i2", ALWAYS), ("i3", ALWAYS)),
                    attrs=("expand1", "expand2", "expand3", "sumdim"),
                    # _trilinear_backward: each gradient is a _trilinear with the roles of the dims swapped
                    i1=lambda m, g, i2, i3, expand1, expand2, expand3, sumdim: m.trilinear(
                        g, i2, i3, sumdim, expand2, expand3, expand1),
                    i2=lambda m, g, i1, i3, expand1, expand2, expand3, sumdim: m.trilinear(
                        i1, g, i3, expand1, sumdim, expand3, expand2),
                    i3=lambda m, g, i1, i2, expand1, expand2, expand3, sumdim: m.trilinear(
                        i1, i2, g, expand1, expand2, sumdim, expand3),
                    doc="x1^T W x2 per output feature: each input's gradient needs the other two"),
    # -- activations -------------------------------------------------------------------------------
    "leaky_relu": op("LeakyReluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("negative_slope",),
                     self=lambda m, g, self, negative_slope: m.leaky_relu_backward(g, self, negative_slope)),
    "leaky_relu_": op("LeakyReluBackward1", ("self",), saved=(("result", ALWAYS),), attrs=("negative_slope",),
                      self=lambda m, g, result, negative_slope: m.leaky_relu_backward(g, result, negative_slope),
                      doc="in place: saves the output (its sign is the input's)"),
    "elu": op("EluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("alpha", "input_scale", "scale"),
              self=lambda m, g, self, alpha, scale, input_scale: m.elu_backward(g, self, alpha, scale, input_scale,
                                                                                False)),
    "elu_": op("EluBackward1", ("self",), saved=(("result", ALWAYS),), attrs=("alpha", "input_scale", "scale"),
               self=lambda m, g, result, alpha, scale, input_scale: m.elu_backward(g, result, alpha, scale,
                                                                                   input_scale, True),
               doc="in place: the gradient is computed from the output"),
    "gelu": op("GeluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("approximate",),
               self=lambda m, g, self, approximate: m.gelu_backward(g, self, approximate)),
    "softplus": op("SoftplusBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("beta", "threshold"),
                   self=lambda m, g, self, beta, threshold: m.softplus_backward(g, self, beta, threshold)),
    # -- losses ------------------------------------------------------------------------------------
    "smooth_l1_loss": op("SmoothL1LossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                         attrs=("beta", "reduction"),
                         self=lambda m, g, self, target, reduction, beta: m.smooth_l1_backward(
                             g, self, target, reduction, beta),
                         target=lambda m, g, self, target, reduction, beta: m.smooth_l1_backward(
                             g, target, self, reduction, beta)),
    "huber_loss": op("HuberLossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                     attrs=("delta", "reduction"),
                     self=lambda m, g, self, target, reduction, delta: m.huber_backward(
                         g, self, target, reduction, delta),
                     target=lambda m, g, self, target, reduction, delta: m.huber_backward(
                         g, target, self, reduction, delta)),
    "binary_cross_entropy": op("BinaryCrossEntropyBackward0", ("self", "target"),
                               saved=(("self", ALWAYS), ("target", ALWAYS), ("weight", ALWAYS)), attrs=("reduction",),
                               self=lambda m, g, self, target, weight, reduction: m.bce_backward(
                                   g, self, target, weight, reduction),
                               target=lambda m, g, self, target, weight, reduction: m.bce_target_backward(
                                   g, self, target, weight, reduction)),
    "bce_with_logits": op("BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
                          saved=(("pos_weight", ALWAYS), ("self", ALWAYS), ("target", ALWAYS), ("weight", ALWAYS)),
                          attrs=("reduction",),
                          self=lambda m, g, self, target, weight, pos_weight, reduction: _bce_logits_self(
                              m, g, self, target, weight, pos_weight, reduction),
                          target=lambda m, g, self, weight, pos_weight, reduction: _bce_logits_target(
                              m, g, self, weight, pos_weight, reduction),
                          doc="its backward is arithmetic on sigmoid(self): differentiable again under create_graph"),
    "nll_loss": op("NllLossBackward0", ("self",),
                   saved=(("self", ALWAYS), ("target", ALWAYS), ("total_weight", ALWAYS), ("weight", ALWAYS)),
                   attrs=("ignore_index", "reduction"),
                   self=lambda m, g, self, target, weight, total_weight, ignore_index, reduction: m.nll_backward_w(
                       g, self, target, weight, total_weight, ignore_index, reduction, 1),
                   doc="saves the log-probabilities, the targets, the weights and their total"),
    "nll_loss2d": op("NllLoss2DBackward0", ("self",),
                     saved=(("self", ALWAYS), ("target", ALWAYS), ("total_weight", ALWAYS), ("weight", ALWAYS)),
                     attrs=("ignore_index", "reduction"),
                     self=lambda m, g, self, target, weight, total_weight, ignore_index, reduction: m.nll_backward_w(
                         g, self, target, weight, total_weight, ignore_index, reduction, 1),
                     doc="nll_loss over images (N, C, H, W)"),
    # -- embedding ---------------------------------------------------------------------------------
    "embedding": op("EmbeddingBackward0", ("weight",), saved=(("indices", ALWAYS),),
                    attrs=("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"),
                    weight=lambda m, g, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq:
                        m.embedding_backward(g, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq),
                    doc="saves the indices: the gradient sums rows of the incoming gradient per index"),
    "embedding_dense_backward": op(
        "EmbeddingDenseBackwardBackward0", ("grad_output",), saved=(("indices", ALWAYS),), attrs=("padding_idx",),
        grad_output=lambda m, g, indices, padding_idx: m.embedding_double_backward(g, indices, padding_idx)),
    # -- normalization -----------------------------------------------------------------------------
    "native_batch_norm": op(
        "NativeBatchNormBackward0", ("input", "weight", "bias"),
        saved=(("input", ALWAYS), ("result1", ALWAYS), ("result2", ALWAYS), ("running_mean", ALWAYS),
               ("running_var", ALWAYS), ("weight", ALWAYS)),
        attrs=("eps", "training"),
        input=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[0],
        weight=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[1],
        bias=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[2],
        doc="saves the input, weight, running statistics and the batch's mean (result1) and 1/std (result2)"),
    "native_layer_norm": op("NativeLayerNormBackward0", ("input", "weight", "bias"),
                            saved=(("bias", ALWAYS), ("input", ALWAYS), ("result1", ALWAYS), ("result2", ALWAYS),
                                   ("weight", ALWAYS)),
                            attrs=("normalized_shape",),
                            input=lambda m, g, input, weight, result1, result2, normalized_shape:
                                m.layer_norm_backward_input(g, input, weight, result1, result2, normalized_shape),
                            weight=lambda m, g, input, weight, result1, result2, normalized_shape:
                                m.layer_norm_backward_weight(g, input, weight, result1, result2, normalized_shape),
                            bias=lambda m, g, input, weight, normalized_shape: m.layer_norm_backward_bias(
                                g, input, weight, normalized_shape),
                            doc="saves the input, weight, bias, and each row's mean (result1) and 1/std (result2)"),
    # -- convolution and pooling -------------------------------------------------------------------
    "convolution": op("ConvolutionBackward0", ("input", "weight", "bias"), saved=(("input", ALWAYS), ("weight", ALWAYS)),
                      attrs=("bias_sym_sizes_opt", "dilation", "groups", "output_padding", "padding", "stride",
                             "transposed"),
                      input=lambda m, g, input, weight, stride, padding, dilation, groups:
                          m.conv_backward_input(g, input, weight, stride, padding, dilation, groups),
                      weight=lambda m, g, input, weight, stride, padding, dilation, groups:
                          m.conv_backward_weight(g, input, weight, stride, padding, dilation, groups),
                      bias=lambda m, g, input, weight: m.conv_backward_bias(g, input, weight),
                      doc="saves the input and the weight: each one's gradient needs the other"),
    "max_pool2d": op("MaxPool2DWithIndicesBackward0", ("self",), saved=(("result1", ALWAYS), ("self", ALWAYS)),
                     attrs=("ceil_mode", "dilation", "kernel_size", "padding", "stride"),
                     self=lambda m, g, self, result1: m.max_pool_backward(g, self, result1),
                     doc="saves the input and where each maximum came from (result1, the indices)"),
    "avg_pool2d": op("AvgPool2DBackward0", ("self",), saved=(("self", ALWAYS),),
                     attrs=("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride"),
                     self=lambda m, g, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override: m.avg_pool_backward(g, self, kernel_size, stride, padding, ceil_mode,
                                                           count_include_pad, divisor_override)),
    # -- module hooks ------------------------------------------------------------------------------
    "backward_hook_function": op(
        "BackwardHookFunctionBackward", ("self",), self=lambda m, g: g,
        doc="an identity that lets a module's full backward hooks see its gradients: saves nothing"),
    # -- recurrent layers (PyTorch's RNN.cpp; a float32 LSTM through oneDNN: one MkldnnRnnLayerBackward0 node per layer,
    # with three outputs (output, h_n, c_n), whose gradients reach it side by side)
    "unsafe_split": op("UnsafeSplitBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_size"),
                       multi=True, self=lambda m, g, dim, self_sym_sizes, split_size: m.split_backward(
                           g, _split_sizes(self_sym_sizes[dim], split_size), dim, self_sym_sizes),
                       doc="one node for every chunk: the chunks' gradients side by side"),
    "mkldnn_rnn_layer": op(
        "MkldnnRnnLayerBackward0", ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
        saved=(("cx_", ALWAYS), ("hx_", ALWAYS), ("input", ALWAYS), ("result0", ALWAYS), ("result1", ALWAYS),
               ("result2", ALWAYS), ("result3", ALWAYS), ("weight0", ALWAYS), ("weight1", ALWAYS), ("weight2", ALWAYS),
               ("weight3", ALWAYS)), multi=True,
        attrs=("batch_first", "batch_sizes", "bidirectional", "has_biases", "hidden_size", "mode", "num_layers",
               "reverse", "train"),
        doc="one LSTM layer over the whole sequence (oneDNN): saves its inputs, weights, outputs and the gates"),
    # -- the layers' gradients under create_graph: a node of their own, as in PyTorch's double-backward support
    "leaky_relu_backward": op(
        "LeakyReluBackwardBackward0", ("grad_output", "self"), saved=(("self", ALWAYS),), attrs=("negative_slope",),
        grad_output=lambda m, g, self, negative_slope: m.leaky_relu_backward(g, self, negative_slope),
        self=lambda m, g: m.zeros_like(g)),
    "elu_backward": op(
        "EluBackwardBackward0", ("grad_output", "self_or_result"),
        saved=(("grad_output", ALWAYS), ("self_or_result", ALWAYS)),
        attrs=("alpha", "input_scale", "is_result", "scale"),
        grad_output=lambda m, g, self_or_result, alpha, scale, input_scale, is_result: m.elu_backward(
            g, self_or_result, alpha, scale, input_scale, is_result),
        self_or_result=lambda m, g, grad_output, self_or_result, alpha, scale, input_scale, is_result:
            m.elu_double_backward(g, grad_output, self_or_result, alpha, scale, input_scale, is_result)),
    "gelu_backward": op(
        "GeluBackwardBackward0", ("grad_output", "self"), saved=(("grad_output", ALWAYS), ("self", ALWAYS)),
        attrs=("approximate",),
        grad_output=lambda m, g, self, approximate: m.gelu_backward(g, self, approximate),
        self=lambda m, g, grad_output, self, approximate: m.gelu_double_backward(g, grad_output, self, approximate)),
    "softplus_backward": op(
        "SoftplusBackwardBackward0", ("grad_output", "self"), saved=(("grad_output", ALWAYS), ("self", ALWAYS)),
        attrs=("beta", "threshold"),
        grad_output=lambda m, g, self, beta, threshold: m.softplus_backward(g, self, beta, threshold),
        self=lambda m, g, grad_output, self, beta, threshold: m.softplus_double_backward(
            m.mul_g(g, grad_output), self, beta, threshold)),
    "max_pool2d_backward": op(
        "MaxPool2DWithIndicesBackwardBackward0", ("grad_output", "self"), saved=(("indices", ALWAYS),),
        grad_output=lambda m, g, indices: m.max_pool_double_backward(g, indices),
        self=lambda m, g: m.zeros_like(g)),
    "avg_pool2d_backward": op(
        "AvgPool2DBackwardBackward0", ("grad_output", "self"),
        attrs=("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride"),
        grad_output=lambda m, g, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
            m.avg_pool2d(g, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
        self=lambda m, g: m.zeros_like(g)),
    # convolution's grad_input, grad_weight and grad_bias
    "convolution_backward_input": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS), ("weight", ALWAYS)),
        attrs=_CONV_ATTRS,
        grad_output=lambda m, g, weight, stride, padding, dilation, groups: m.conv(g, weight, stride, padding,
                                                                                   dilation, groups),
        input=lambda m, g: None,
        weight=lambda m, g, grad_output, weight, stride, padding, dilation, groups: m.conv_backward_weight(
            grad_output, g, weight, stride, padding, dilation, groups)),
    "convolution_backward_weight": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS), ("input", ALWAYS)),
        attrs=_CONV_ATTRS,
        grad_output=lambda m, g, input, stride, padding, dilation, groups: m.conv(input, g, stride, padding,
                                                                                 dilation, groups),
        input=lambda m, g, grad_output, input, stride, padding, dilation, groups: m.conv_backward_input(
            grad_output, input, g, stride, padding, dilation, groups),
        weight=lambda m, g: None),
    "convolution_backward_bias": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS),), attrs=_CONV_ATTRS,
        grad_output=lambda m, g, grad_output: m.bias_double_backward(g, grad_output, 1),
        input=lambda m, g: None, weight=lambda m, g: None),
    "native_layer_norm_backward_bias": op(
        "NativeLayerNormBackwardBackward0", ("grad_out", "input", "weight"), saved=(("grad_out", ALWAYS),),
        grad_out=lambda m, g, grad_out: m.bias_double_backward(g, grad_out, grad_out.ndim - g.ndim),
        input=lambda m, g: None, weight=lambda m, g: None),
    "smooth_l1_loss_backward": op(
        "SmoothL1LossBackwardBackward0", ("grad_output", "self", "target"), saved=_LOSS_SAVED, attrs=("beta", "reduction"),
        grad_output=lambda m, g, grad_output, self, target, reduction, beta: m.smooth_l1_double_backward_grad_output(
            g, grad_output, self, target, reduction, beta),
        self=lambda m, g, grad_output, self, target, reduction, beta: m.smooth_l1_double_backward(
            m.mul_g(g, grad_output), self, target, reduction, beta),
        target=lambda m, g, grad_output, self, target, reduction, beta: m.neg_g(m.smooth_l1_double_backward(
            m.mul_g(g, grad_output), self, target, reduction, beta))),
    "huber_loss_backward": op(
        "HuberLossBackwardBackward0", ("grad_output", "self", "target"), saved=_LOSS_SAVED, attrs=("delta", "reduction"),
        grad_output=lambda m, g, grad_output, self, target, reduction, delta: m.huber_double_backward_grad_output(
            g, grad_output, self, target, reduction, delta),
        self=lambda m, g, grad_output, self, target, reduction, delta: m.huber_double_backward(
            m.mul_g(g, grad_output), self, target, reduction, delta),
        target=lambda m, g, grad_output, self, target, reduction, delta: m.neg_g(m.huber_double_backward(
            m.mul_g(g, grad_output), self, target, reduction, delta))),
    "binary_cross_entropy_backward": op(
        "BinaryCrossEntropyBackwardBackward0", ("grad_output", "self", "target"),
        saved=_LOSS_SAVED + (("weight", ALWAYS),), attrs=("reduction",),
        grad_output=lambda m, g, self, target, weight, reduction: m.bce_double_backward_grad_output(
            g, self, target, weight, reduction),
        self=lambda m, g, grad_output, self, target, weight, reduction: m.bce_double_backward(
            grad_output, g, self, target, weight, reduction),
        target=lambda m, g, grad_output, self, target, weight, reduction: m.bce_double_backward_target(
            g, grad_output, self, target, weight, reduction)),
}
for _key, _name in (("nll_loss_backward", "NllLossBackwardBackward0"),
                    ("nll_loss2d_backward", "NllLoss2DBackwardBackward0")):
    ROWS[_key] = op(
        _name, ("grad_output", "self"), saved=(("target", ALWAYS), ("weight", ALWAYS)),
        attrs=("ignore_index", "reduction"),
        grad_output=lambda m, g, target, weight, ignore_index, reduction: m.nll_loss_w(
            g, target, weight, ignore_index, reduction),
        self=lambda m, g: m.zeros_like(g),
        doc="nll_loss's gradient under create_graph: linear in the incoming gradient, constant in the "
            "log-probabilities")
for _which, _key in enumerate(("input", "weight", "bias")):
    ROWS["native_batch_norm_backward_" + _key] = op(
        "NativeBatchNormBackwardBackward0", ("grad_out", "input", "weight"), saved=_BN_SAVED, attrs=("eps", "train"),
        grad_out=_bn_second(_which, 0), input=_bn_second(_which, 1), weight=_bn_second(_which, 2))
for _which, _key in enumerate(("input", "weight")):
    ROWS["native_layer_norm_backward_" + _key] = op(
        "NativeLayerNormBackwardBackward0", ("grad_out", "input", "weight"), saved=_LN_SAVED,
        attrs=("normalized_shape",),
        grad_out=_ln_second(_which, 0), input=_ln_second(_which, 1), weight=_ln_second(_which, 2))
TABLE.update(("nn." + key, row) for key, row in ROWS.items())
