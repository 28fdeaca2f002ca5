"""Recurrent layers: PyTorch's RNN.cpp op for op, and LSTM through oneDNN."""
from __future__ import annotations

import numpy as np

from .. import engine as E
from ..engine import CONFIG, Saved, TensorBase
from ..engine import TorchRuntimeError
from .numeric import _F32, _split_sizes
from .record import _begin, _record
from .table import ROWS
from .views import _inplace
from .pointwise import add, mul, relu, sub, tanh
from .reduction import sum
from .shape import select, transpose, unsqueeze
from .inplace import transpose_
from .join import _multi_output, _pieces, cat, stack, unbind
from .linalg import _contiguous, linear, matmul
from .activation import dropout


def _unsafe_chunk(t, chunks, dim):
    """unsafe_chunk: split's pieces, not views (the cells change them in place)."""
    size = t._data.shape[dim]
    split_size = -(-size // chunks)
    return _multi_output(ROWS["unsafe_split"], t, _pieces(t, dim, _split_sizes(size, split_size)),
                           {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_size": split_size}, view=False)


def _simple_cell(nonlinearity):
    def cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
        hh = linear(hidden, w_hh, b_hh)
        igates = input if pre_compute_input else linear(input, w_ih, b_ih)
        return nonlinearity(hh.add_(igates))
    return cell


def _lstm_cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
    hx, cx = hidden
    gates = linear(hx, w_hh, b_hh).add_(input if pre_compute_input else linear(input, w_ih, b_ih))
    chunked = _unsafe_chunk(gates, 4, 1)
    ingate = chunked[0].sigmoid_()
    forgetgate = chunked[1].sigmoid_()
    cellgate = chunked[2].tanh_()
    outgate = chunked[3].sigmoid_()
    cy = mul(forgetgate, cx).add_(mul(ingate, cellgate))
    hy = mul(outgate, tanh(cy))
    return hy, cy


def _gru_cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
    chunked_igates = _unsafe_chunk(input if pre_compute_input else linear(input, w_ih, b_ih), 3, 1)
    chunked_hgates = _unsafe_chunk(linear(hidden, w_hh, b_hh), 3, 1)
    reset_gate = chunked_hgates[0].add_(chunked_igates[0]).sigmoid_()
    input_gate = chunked_hgates[1].add_(chunked_igates[1]).sigmoid_()
    new_gate = add(chunked_igates[2], chunked_hgates[2].mul_(reset_gate)).tanh_()
    return sub(hidden, new_gate).mul_(input_gate).add_(new_gate)


CELLS = {"RNN_TANH": _simple_cell(tanh), "RNN_RELU": _simple_cell(relu), "LSTM": _lstm_cell, "GRU": _gru_cell}


def rnn_cell(mode, input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_tanh_cell, rnn_relu_cell, lstm_cell (hx a pair), gru_cell."""
    return CELLS[mode](input, hx, w_ih, w_hh, b_ih, b_hh)


def _full_layer(cell, input, hidden, params, reverse=False):
    """FullLayer on CPU: the input projection of the whole sequence, unbound into steps (taken
    from the end for the reverse direction), the cell per step, the outputs stacked in time order."""
    w_ih, w_hh, b_ih, b_hh = params
    inputs_w = linear(input, w_ih, b_ih)
    steps = unbind(inputs_w, 0)
    outputs = []
    for x in (reversed(steps) if reverse else steps):
        hidden = cell(x, hidden, w_ih, w_hh, b_ih, b_hh, True)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    if not outputs:
        raise TorchRuntimeError("Expected sequence length to be larger than 0 in RNN")
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), hidden


def rnn(mode, input, hx, params, num_layers, dropout_p, train, batch_first, bidirectional=False):
    """rnn_tanh / rnn_relu / gru / lstm on CPU: `hx` a tensor, or (h, c) for LSTM; `params` four
    tensors per layer and direction (biases None without bias). Returns (output, h_n) or
    (output, h_n, c_n)."""
    if mode == "LSTM" and input._data.dtype == _F32 and input._data.size:
        return _mkldnn_lstm(input, hx[0], hx[1], params, num_layers, dropout_p, train, batch_first, bidirectional)
    if batch_first:
        input = transpose(input, 0, 1)
    if mode == "LSTM":
        hiddens = list(zip(unbind(hx[0], 0), unbind(hx[1], 0)))
    else:
        hiddens = unbind(hx, 0)
    cell = CELLS[mode]
    directions = 2 if bidirectional else 1
    layer_input = input
    finals = []
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            out, final = _full_layer(cell, layer_input, hiddens[k], params[4 * k: 4 * k + 4], direction == 1)
            outs.append(out)
            finals.append(final)
        layer_input = outs[0] if directions == 1 else cat(outs, outs[0]._data.ndim - 1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    output = layer_input
    if mode == "LSTM":
        if batch_first:
            output = transpose(output, 0, 1)
        return output, stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
    if batch_first:
        output = transpose_(output, 0, 1)
    return output, stack(finals, 0)


def _sigmoid64(v):
    return 1 / (1 + np.exp(-v))


def _lstm_layer_forward(x, w_ih, w_hh, b, h, c, reverse):
    """float64 arrays: (output, h_n, c_n, gates (T, B, 4H) activated, cells (T, B, H)), the
    steps taken from the end when reverse (the arrays stay in time order)."""
    T, H = x.shape[0], h.shape[-1]
    out = np.empty((T,) + h.shape)
    gates = np.empty((T, h.shape[0], 4 * H))
    cells = np.empty((T,) + h.shape)
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        g = x[t] @ w_ih.T + h @ w_hh.T + b
        i, f, gg, o = _sigmoid64(g[:, :H]), _sigmoid64(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), \
            _sigmoid64(g[:, 3 * H:])
        c = f * c + i * gg
        h = o * np.tanh(c)
        gates[t] = np.concatenate([i, f, gg, o], axis=1)
        cells[t], out[t] = c, h
    return out, h, c, gates, cells


def _one_minus(t):
    """C++'s `1 - t`: empty_like(t).fill_(1).sub_(t), a SubBackward0."""
    return sub(CONFIG.tensor(np.ones_like(t._data)), t)


def _lstm_layer_differentiable_backward(node, grad_output, grad_hy, grad_cy):
    """mkldnn_rnn_layer_differentiable_backward, PyTorch's backward of the oneDNN layer under
    create_graph: the layer's gates recomputed with differentiable ops, then its backward op by op.
    Returns the gradients of (input, weight0, weight1, weight2, weight3, hx_, cx_)."""
    x, w0, w1, hx_, cx_, output = (node.unpack(s, True) for s in ("input", "weight0", "weight1", "hx_", "cx_",
                                                                  "result0"))
    attrs = node.attrs
    reverse, hidden = attrs["reverse"], attrs["hidden_size"]
    grad_output = grad_output if grad_output is not None else CONFIG.tensor(np.zeros_like(output._data))
    grad_hy = grad_hy if grad_hy is not None else CONFIG.tensor(np.zeros_like(hx_._data))
    grad_cy = grad_cy if grad_cy is not None else CONFIG.tensor(np.zeros_like(cx_._data))
    if attrs["has_biases"]:
        bias_ih, bias_hh = node.unpack("weight2", True), node.unpack("weight3", True)
    else:
        bias_ih = bias_hh = CONFIG.tensor(np.zeros(4 * hidden, w0._data.dtype))
    steps = x._data.shape[0]
    gates = [None] * steps
    states = [(hx_, cx_)]
    for seq in range(1, steps + 1):
        hx, cx = states[-1]
        at = steps - seq if reverse else seq - 1
        gate = linear(select(x, 0, at), w0, bias_ih).add_(linear(hx, w1, bias_hh))
        chunked = _unsafe_chunk(gate, 4, 1)
        i, f = chunked[0].sigmoid_(), chunked[1].sigmoid_()
        g, o = chunked[2].tanh_(), chunked[3].sigmoid_()
        gates[at] = (i, f, g, o)
        cy = add(mul(f, cx), mul(i, g))
        states.append((mul(o, tanh(cy)), cy))
    layer_dx = [None] * steps
    for seq in range(steps - 1, -1, -1):
        at = steps - seq - 1 if reverse else seq
        i, f, g, o = gates[at]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = add(select(grad_output, 0, at), grad_hy)
        d1 = add(grad_cy, mul(mul(new_grad_hy, o), _one_minus(mul(tanh(cy), tanh(cy)))))
        dgp, dip, dprev_c, dfp = mul(d1, i), mul(d1, g), mul(d1, f), mul(d1, cx)
        dop = mul(new_grad_hy, tanh(cy))
        do_ = mul(mul(dop, o), _one_minus(o))
        dg = mul(dgp, _one_minus(mul(g, g)))
        df = mul(mul(dfp, f), _one_minus(f))
        di = mul(mul(dip, i), _one_minus(i))
        da = cat([di, df, dg, do_], 1)
        db_ = sum(da, 0)
        dx = unsqueeze(matmul(da, w0), 0)
        dprev_h = matmul(da, w1)
        dwx_ = matmul(transpose(da, 0, 1), select(x, 0, at))
        dwh_ = matmul(transpose(da, 0, 1), hx)
        if seq == steps - 1:
            db, dwx, dwh = db_, dwx_, dwh_
        else:
            db, dwx, dwh = (_inplace(a, add, b, name="add_") for a, b in ((db, db_), (dwx, dwx_), (dwh, dwh_)))
        layer_dx[at] = dx
        grad_hy, grad_cy = dprev_h, dprev_c
    return [cat(layer_dx, 0), dwx, dwh, db, db, grad_hy, grad_cy]


def _lstm_layer_backward(node, grad_out, create_graph):
    if create_graph:                            # the gradients of output, h_n and c_n (None: none came)
        return _lstm_layer_differentiable_backward(node, *grad_out[:3])
    # (every saved value is unpacked, in PyTorch's order: an output changed in place is the version error)
    u = {s: node.unpack(s, False) for s in ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_",
                                            "result0", "result1", "result2", "result3")}
    x, w_ih, w_hh = (u[k].astype(np.float64) for k in ("input", "weight0", "weight1"))
    h0, c0 = u["hx_"].astype(np.float64), u["cx_"].astype(np.float64)
    T, B, H = x.shape[0], h0.shape[0], h0.shape[1]
    work = u["result3"].view(np.float32).astype(np.float64)
    gates = work[:T * B * 4 * H].reshape(T, B, 4 * H)
    cells = work[T * B * 4 * H:].reshape(T, B, H)
    dt = node.input_meta[0][1]
    g, gh, gc = grad_out[:3]                    # the gradients of output, h_n and c_n (None: none came)
    dh_next = np.zeros((B, H)) if gh is None else gh.astype(np.float64)
    dc_next = np.zeros((B, H)) if gc is None else gc.astype(np.float64)
    g_out = np.zeros((T, B, H)) if g is None else g.astype(np.float64)
    dx = np.zeros_like(x)
    dw_ih, dw_hh, db = np.zeros_like(w_ih), np.zeros_like(w_hh), np.zeros(4 * H)
    reverse = node.attrs["reverse"]
    order = range(T) if reverse else range(T - 1, -1, -1)
    for t in order:
        i, f, gg, o = (gates[t][:, k * H:(k + 1) * H] for k in range(4))
        prev = t + 1 if reverse else t - 1
        first = prev < 0 or prev >= T
        c_prev = c0 if first else cells[prev]
        h_prev = h0 if first else gates[prev][:, 3 * H:] * np.tanh(cells[prev])
        tc = np.tanh(cells[t])
        dh = g_out[t] + dh_next
        dc = dc_next + dh * o * (1 - tc * tc)
        dgates = np.concatenate([dc * gg * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - gg * gg),
                                 dh * tc * o * (1 - o)], axis=1)
        dc_next = dc * f
        dx[t] = dgates @ w_ih
        dw_ih += dgates.T @ x[t]
        dw_hh += dgates.T @ h_prev
        db += dgates.sum(axis=0)
        dh_next = dgates @ w_hh
    if not node.attrs["has_biases"]:
        return [dx.astype(dt), dw_ih.astype(dt), dw_hh.astype(dt), None, None, dh_next.astype(dt),
                dc_next.astype(dt)]
    return [dx.astype(dt), dw_ih.astype(dt), dw_hh.astype(dt), db.astype(dt), db.astype(dt),
            dh_next.astype(dt), dc_next.astype(dt)]


# (the row is in table.py; its backward runs this module's forwards, so it is given here)
ROWS["mkldnn_rnn_layer"].apply = _lstm_layer_backward


def _mkldnn_lstm_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, num_layers, train, has_biases, batch_first, reverse,
                       bidirectional):
    x = input._data.astype(np.float64)
    b = (b_ih._data + b_hh._data).astype(np.float64) if has_biases else np.zeros(w_ih._data.shape[0])
    out, h, c, gates, cells = _lstm_layer_forward(x, w_ih._data.astype(np.float64), w_hh._data.astype(np.float64),
                                                  b, hx._data.astype(np.float64), cx._data.astype(np.float64), reverse)
    dt = input._data.dtype
    workspace = CONFIG.tensor(np.concatenate([gates.reshape(-1), cells.reshape(-1)]).astype(dt).view(np.uint8))
    hy, cy = CONFIG.tensor(h.astype(dt)), CONFIG.tensor(c.astype(dt))
    seq = _begin(input, w_ih, w_hh, b_ih, b_hh, hx, cx)
    output = _record(ROWS["mkldnn_rnn_layer"], seq, out.astype(dt), (input, w_ih, w_hh, b_ih, b_hh, hx, cx),
                     extra={"input": input, "weight0": w_ih, "weight1": w_hh, "weight2": b_ih, "weight3": b_hh,
                            "hx_": hx, "cx_": cx, "result0": None, "result1": hy, "result2": cy,
                            "result3": workspace},
                     attrs={"batch_first": batch_first, "batch_sizes": (), "bidirectional": bidirectional,
                            "has_biases": has_biases,
                            "hidden_size": h.shape[-1], "mode": 2, "num_layers": num_layers, "reverse": reverse,
                            "train": bool(train)})
    node = output.grad_fn
    if node is not None:                        # outputs 0-2 (3, the workspace, has no gradient)
        for t, edge in zip((output, hy, cy), E.output_edges(node, 4)):
            t._fn, t._rg = edge, True
        node._saved["result0"] = Saved(output, True)
    return output, hy, cy


def _mkldnn_lstm(input, hx, cx, params, num_layers, dropout_p, train, batch_first, bidirectional):
    if batch_first:
        input = transpose(input, 0, 1)
    input, hx, cx = _contiguous(input), _contiguous(hx), _contiguous(cx)
    directions = 2 if bidirectional else 1
    layer_input = input
    hys, cys = [], []
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh = params[4 * k: 4 * k + 4]
            has_biases = b_ih is not None
            if not has_biases:                   # zeros shaped like the weights, as PyTorch passes them
                b_ih, b_hh = CONFIG.tensor(np.zeros_like(w_ih._data)), CONFIG.tensor(np.zeros_like(w_hh._data))
            layer_hx, layer_cx = select(hx, 0, k), select(cx, 0, k)
            out, hy, cy = _mkldnn_lstm_layer(layer_input, w_ih, w_hh, b_ih, b_hh, layer_hx, layer_cx,
                                                   num_layers, train, has_biases, batch_first, direction == 1,
                                                   bidirectional)
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        layer_input = outs[0] if directions == 1 else cat(outs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    h_n, c_n = stack(hys, 0), stack(cys, 0)
    output = layer_input
    if batch_first:
        output = transpose(output, 0, 1)
    return output, h_n, c_n
