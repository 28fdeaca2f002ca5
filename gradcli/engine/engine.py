"""The backward pass, in the parts PyTorch's engine.cpp names: a GraphTask per call, its
dependencies (compute_dependencies), the nodes that must run for autograd.grad's inputs
(init_to_execute: exec_info), the ready queue, the input buffers, and evaluate_function /
call_function / validate_outputs. It behaves like PyTorch 2.13 in what a user can observe:
the order nodes run in (a max-heap on creation sequence number, AccumulateGrad as soon as it
is ready), when saved tensors are freed, how `.grad` accumulates (accumulate_grad), and the
exact error texts.

What a call did is recorded in a `CallRecord` handed to `STATE.observer`, so explanations
are facts, never guesses after the fact.
"""
from __future__ import annotations

import sys

import numpy as np

from .accumulate_grad import _accumulate, _grad_version, _memory_owner, _writes
from .errors import TorchRuntimeError, TorchTypeError
from .graph import (GRAPH_ROOT, AccumulateGrad, BackwardTwiceError, OutputEdge, Saved, _version_error)
from .numpy_math import REUSE
from .state import CONFIG, STATE
from .tensor import TensorBase

# The backward writes into an array only when its reference count shows nothing else holds
# it. From Python 3.14 the interpreter borrows references and counts can read lower than
# the holders: there every count reads as "shared", and every result is a fresh array.
if sys.version_info < (3, 14):
    _getrefcount = sys.getrefcount
else:
    def _getrefcount(obj):
        return 1 << 30

_SPARE_MIN = 4096       # elements: below this a fresh array costs less than checking that g is spare


class CallRecord:
    """What one backward() or autograd.grad() call did, in order."""

    # `counters`: id(array) -> (array, its Version) for the memory a kept .grad view shares (_grad_version)
    __slots__ = ("index", "kind", "origin", "retain_graph", "executed", "freed", "updates", "error", "counters")

    def __init__(self, kind, retain_graph):
        STATE.calls += 1
        self.index = STATE.calls
        self.kind = kind                 # "backward" or "grad"
        cap = STATE.capture
        self.origin = STATE.origin if cap is None else cap()
        self.retain_graph = retain_graph
        self.executed = []               # nodes, in the order they ran
        self.freed = []                  # nodes whose saved tensors this call released
        self.updates = []                # (leaf, grad values before or None, grad values after)
        self.error = None
        self.counters = None

    def finish(self):
        """Hand the record to the observer, then drop the node references it holds."""
        if STATE.observer is not None:
            STATE.observer(self)
        self.executed = self.freed = self.updates = None


class GraphTask:
    """One backward() or autograd.grad() call (PyTorch's GraphTask): what it keeps, the
    count of edges still to deliver into each node (`dependencies`), the gradients gathered
    for nodes not yet ready (`not_ready`: PyTorch's InputBuffers, a list of slots for a
    MultiOutputNode), the ready queue, and with inputs= the nodes that must run."""

    __slots__ = ("record", "keep_graph", "create_graph", "dependencies", "not_ready", "ready", "owned", "adds",
                 "exec_info", "captures", "wanted", "captured", "watched")

    def __init__(self, record, keep_graph, create_graph):
        self.record = record
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.dependencies = None
        self.not_ready = {}
        self.ready = []
        self.owned = set()      # nodes whose buffer is a sum this call made: add into it in place, keep it as .grad
        self.adds = {}          # node -> the version PyTorch's sum in its buffer has (_input_buffer_add)
        # With inputs= (exec_info): the nodes on a path to an input (`exec_info`), autograd.grad's
        # inputs as edges -> their positions (`captures`), the nodes whose incoming gradient is
        # computed (`wanted`: needed ones and captured ones), and the captured gradients.
        self.exec_info = self.captures = self.wanted = self.captured = None
        self.watched = STATE.observer is not None       # a report lists the nodes each call ran


def _starts(roots):
    """The edges a backward starts from: each root's grad_fn (or its AccumulateGrad)."""
    starts = []
    for i, t in enumerate(roots):
        fn = t._edge()
        if fn is None:
            raise TorchRuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        starts.append(fn)
    return starts


def execute(roots, grads, keep_graph, create_graph, inputs, accumulate, given=None):
    """PyTorch's Engine::execute. Returns the captured gradients of `inputs` (autograd.grad).
    `given`: the user's gradient tensors, whose version counters a kept view of one shares."""
    starts = _starts(roots)
    record = CallRecord("backward" if accumulate else "grad", keep_graph)
    if given:
        record.counters = {id(_memory_owner(g._data)): (g._data, g._version_counter)
                           for g in given if isinstance(g, TensorBase)}
    task = GraphTask(record, keep_graph, create_graph)
    if len(starts) == 1:
        root = starts[0]
        task.not_ready[root] = grads[0]
    else:                                   # PyTorch's GraphRoot: a node of its own, with a number
        root = GRAPH_ROOT.node_class(GRAPH_ROOT, tuple(starts), {}, {}, (), STATE.next_seq())
        task.not_ready[root] = grads
    task.dependencies = compute_dependencies(root)
    if inputs is not None:
        init_to_execute(task, root, inputs, accumulate)
    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = create_graph
    try:
        if type(root) is OutputEdge:        # backward from one output of several: into its slot
            root = _deliver(root, task.not_ready, task.dependencies)
        task.ready.append(root)
        thread_main(task)
    except Exception as exc:
        record.error = exc
        raise
    finally:
        STATE.grad_enabled = prev_mode
        # a formula that raised may have left these set; a dead buffer is not kept past the call
        REUSE.spare = REUSE.spare_saved = None
        REUSE.dead.clear()
        record.finish()
    return task.captured if inputs is not None and not accumulate else None


def compute_dependencies(root):
    """Incoming edges per node reachable from root, repeats counted (x*x has two into Acc(x))."""
    deps = {}
    stack = [root]
    push = stack.append
    while stack:
        fn = stack.pop()
        n = fn._n                           # fn.edges, inlined: this visits every node
        for nxt in (fn._e0,) if n == 1 else (fn._e0, fn._e1) if n == 2 else fn._e0:
            if nxt is None:
                continue
            d = deps.get(nxt)
            if d is None:
                deps[nxt] = 1
                push(nxt)                   # (never the root: the graph has no cycles)
            else:
                deps[nxt] = d + 1
    return deps


def init_to_execute(task, root, inputs, accumulate):
    """With inputs=: run only nodes on a path to one of them (PyTorch's exec_info)."""
    targets = {}
    for k, t in enumerate(inputs):
        targets.setdefault(t._edge(), []).append(k)
    needed = set()
    reach = {}
    # A node whose output is a target runs (for its hooks and captures): it counts as one too.
    seen = targets.keys() | {e.fn for e in targets if type(e) is OutputEdge}
    for fn in reversed(_topological(root, task.dependencies)):
        r = fn in seen
        for nxt in fn.edges:
            if nxt is not None and reach[nxt]:
                r = True
                needed.add(fn)
        reach[fn] = r
    if accumulate:
        needed.update(targets)
        for t in inputs:
            if t._fn is not None:
                t.retain_grad()
    else:
        task.captures = targets
    wanted = needed | set(targets)
    # an output wanted (captured, or retained) is seen when its node is popped: the node is too
    wanted.update([e.fn for e in wanted if type(e) is OutputEdge])
    task.exec_info, task.wanted, task.captured = needed, wanted, [None] * len(inputs)


def thread_main(task):
    """PyTorch's thread_main: take the next ready node and evaluate it, until the queue is
    empty. The common case (no create_graph, inputs=, observer or anomaly mode; a node of
    table formulas) is evaluate_function inlined: each formula's gradient goes straight to
    its edge, and the saved tensors are released once all have run."""
    heap, buffers, deps, owned, adds = task.ready, task.not_ready, task.dependencies, task.owned, task.adds
    record, keep_graph, create_graph = task.record, task.keep_graph, task.create_graph
    plain = task.exec_info is None and task.captures is None and not task.watched
    fast = plain and not create_graph
    nm, reuse = CONFIG.numpy_math, REUSE
    ndarray, spare_min, output_edge = np.ndarray, _SPARE_MIN, OutputEdge      # (locals: read for every node)
    fn = None
    # `carry`: the node that runs next, with its gradient `cbuf`, when the fast path below
    # finds it ready with the heap empty (a chain): no round trip through buffers and heap.
    carry = cbuf = None
    try:
        while heap or carry is not None:
            if carry is not None:
                fn, buf = carry, cbuf
                carry = cbuf = g = None         # (buf's reference count matters: see spare)
            else:
                fn = heap.pop() if len(heap) == 1 else _ready_pop(heap)
                buf = buffers.pop(fn, None)
            # Tensor pre-hooks (register_hook, retain_grad) run on every node popped, even
            # one that is only captured or not needed (the root), as in PyTorch.
            if fn.hooks:
                buf = _hooked(fn, buf, record)
            if fn.retained and buf is not None:
                for t in fn.retained:
                    _retain(t, buf, create_graph)
            if not plain and not _should_execute(task, fn, buf):
                continue
            if type(fn) is AccumulateGrad:
                if buf is not None:
                    # Earlier nodes' leftovers may name buf: dropped, so that its reference
                    # count tells whether anything else holds it (PyTorch's use_count).
                    g = old = s = None
                    alone = fn in owned or _getrefcount(buf) == 2 and (type(buf) is ndarray or _data_unshared(buf))
                    _accumulate(fn.variable, buf, create_graph, record, alone, adds.get(fn))
                continue
            op = fn.op
            if not (fast and buf is not None and op.table_formulas and op.apply is None and op is not GRAPH_ROOT
                    and not STATE.anomaly):
                evaluate_function(task, fn, buf)
                continue
            # (`is not`: NumPy's dtypes are singletons; fit compares them properly.)
            saved = fn._saved
            attrs = vals = fn.attrs
            if saved:               # _unpacked, inlined for nodes holding only compact slots
                vals = saved
                if attrs or fn.freed_by is not None:
                    vals = _unpacked(fn, False)
                else:
                    for s in saved.values():
                        if type(s) is Saved or type(s) is tuple:
                            vals = _unpacked(fn, False)
                            break
            n = fn._n                       # fn.edges, inlined
            edges = (fn._e0,) if n == 1 else (fn._e0, fn._e1) if n == 2 else fn._e0
            # A large incoming gradient may be overwritten by the node's last formula
            # (REUSE.spare) if, when that formula runs, nothing else refers to it.
            last = None
            if type(buf) is ndarray and buf.size >= spare_min and n <= 2:
                last = fn._e0 if n == 1 or fn._e1 is None else fn._e1 if fn._e0 is not fn._e1 else None
                if last is None and fn._e0 is not None and _twins(fn, op, vals, buffers):
                    edges = ()              # x * x: one product, doubled
                    _doubled(task, fn, op, vals, buf, nm)
            for nxt, (formula, names), (shape, dtype) in zip(edges, op.formulas, fn.input_meta):
                if nxt is None:
                    continue
                if nxt is last:
                    g = old = s = None      # stale references from the previous formula, node or loop
                    if buf.base is None and _getrefcount(buf) == 2:
                        reuse.spare = buf
                    if not keep_graph and fn._saved:
                        reuse.spare_saved = _spare_saved(fn, vals)
                if not names:
                    g = formula(nm, buf)
                elif len(names) == 1:
                    g = formula(nm, buf, vals[names[0]])
                else:
                    g = formula(nm, buf, *map(vals.__getitem__, names))
                if nxt is last:               # buf is not read again: g may be added into
                    reuse.spare = reuse.spare_saved = None
                    if buf.base is None and _getrefcount(buf) == 2:
                        dead = reuse.dead       # unused and unreferenced: for the next fresh results
                        dead.append(buf)
                        if len(dead) > 2:
                            del dead[0]
                    buf = None
                if g is not None:
                    if g.shape != shape or g.dtype is not dtype:
                        g = nm.fit(g, shape, dtype)
                    old = buffers.get(nxt)
                    if old is None:
                        if deps[nxt] == 1 and not heap and carry is None and type(nxt) is not output_edge:
                            carry, cbuf = nxt, g    # its only gradient, and it runs next
                            continue
                        buffers[nxt] = g
                    else:
                        _input_buffer_add(buffers, owned, nxt, old, g, adds)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    if type(nxt) is output_edge:
                        nxt = _deliver(nxt, buffers, deps)
                        if nxt is None:
                            continue
                    if carry is not None:   # not alone after all: the carried node first, as it came
                        buffers[carry] = cbuf
                        heap.append(carry)
                        carry = cbuf = None
                    if heap:
                        _ready_push(heap, nxt)
                    else:
                        heap.append(nxt)
            if keep_graph or not saved:
                continue
            if vals is saved:       # fn.release, inlined for compact slots (see Node)
                released = False
                for slot, s in saved.items():
                    if s is not None:       # (a number stays: freed_by says it is freed)
                        if type(s) is np.ndarray:
                            saved[slot] = ()
                        released = True
                if released:
                    fn.freed_by = record
                    record.freed.append(fn)
            elif fn.release(record):
                record.freed.append(fn)
    except Exception:
        if STATE.anomaly and fn is not None:
            _anomaly_warning(fn)
        raise


def _should_execute(task, fn, buf):
    """exec_info, read as fn is popped: autograd.grad captures the gradient flowing into an
    input's node (after its hooks); fn runs only when needed (a report lists it then)."""
    captures = task.captures
    if captures is not None:
        if fn in captures:
            for k in captures[fn]:
                task.captured[k] = buf
        elif type(buf) is list:
            _capture_slots(fn, buf, captures, task.captured)
    if task.exec_info is not None and fn not in task.exec_info:
        return False
    if task.watched:
        task.record.executed.append(fn)
    return True


def evaluate_function(task, fn, buf):
    """PyTorch's evaluate_function: run fn (call_function), release its saved tensors unless
    the graph is kept, and add each gradient into its next node's input buffer; a node whose
    every incoming edge has delivered goes on the ready queue."""
    if fn.op is GRAPH_ROOT:
        outs = buf
    else:
        outs = call_function(task, fn, buf)
        if not task.keep_graph:
            _release_variables(fn, task.record)
        if STATE.anomaly and STATE.check_nan:     # after the release, as in PyTorch
            _check_nan(fn, outs)
    heap, buffers, deps, wanted = task.ready, task.not_ready, task.dependencies, task.wanted
    for i, nxt in enumerate(fn.edges):
        if nxt is None:
            continue
        g = outs[i]
        outs[i] = None          # (the buffer alone holds g: _input_buffer_add reads its reference count)
        if g is not None:
            old = buffers.get(nxt)
            if old is None:
                buffers[nxt] = g
            else:
                _input_buffer_add(buffers, task.owned, nxt, old, g, task.adds)
        d = deps[nxt] - 1
        deps[nxt] = d
        if d == 0 and type(nxt) is OutputEdge:
            nxt = _deliver(nxt, buffers, deps)
            if nxt is None:
                continue
        if d == 0 and (wanted is None or nxt in wanted):
            if heap:
                _ready_push(heap, nxt)
            else:
                heap.append(nxt)


def call_function(task, fn, buf):
    """PyTorch's call_function: the node's backward (its gradients, validated)."""
    outs = _apply(fn, buf, task.create_graph, task.wanted)
    if STATE.edge_log is not None:      # (a view that replays the run: the HTML page)
        STATE.edge_log.append([fn, buf, None if outs is None else list(outs)])
    return outs


def _release_variables(fn, record):
    """Free what a node that ran keeps for its backward (PyTorch's release_variables)."""
    if fn._saved and fn.release(record):
        record.freed.append(fn)
    if fn.op.apply is not None:
        inner = fn.attrs.get("_fn")         # CopySlices frees the op it wraps
        if inner is not None:
            inner.release(record)
        # and, like PyTorch's (release_variables drops `fn`), cannot run again
        fn.attrs["_released"] = True
        fn.freed_by = fn.freed_by or record


def _apply(fn, grad_out, create_graph, wanted):
    """Run one node's backward: the gradient for each next edge, None where unused.
    (thread_main runs the common case itself: no create_graph, inputs, observer or anomaly mode.)"""
    op = fn.op
    custom = op.apply
    if custom is None:
        vals = _unpacked(fn, create_graph)
    edges = fn.edges
    if grad_out is None:
        return [None] * len(edges)
    m = CONFIG.tensor_math if create_graph else CONFIG.numpy_math
    if custom is not None:
        return validate_outputs(fn, custom(fn, grad_out, create_graph), m, wanted)
    if not op.table_formulas:                # cat / stack: one function gives every input's grad
        return validate_outputs(fn, op.variadic(m, grad_out, fn.attrs, fn.input_meta), m, wanted)
    count = len(op.formulas)
    grads = [None] * count
    # PyTorch's generated backward evaluates the formulas in the sorted order of their input
    # names (other before self, exponent before self): under create_graph that is the order of
    # the recorded nodes. The engine then fits each gradient to its input, in input order.
    for i in (sorted(range(count), key=op.inputs.__getitem__) if create_graph and count > 1 else range(count)):
        nxt = edges[i]
        if nxt is None or (wanted is not None and nxt not in wanted):
            continue
        formula, names = op.formulas[i]
        grads[i] = formula(m, grad_out, *map(vals.__getitem__, names))
    return validate_outputs(fn, grads, m, wanted)


def validate_outputs(fn, grads, m, wanted):
    """PyTorch's validate_outputs: each gradient fitted to its input (a broadcast gradient
    summed back to the input's shape, cast to its dtype); None for an edge not wanted."""
    return [None if g is None or nxt is None or (wanted is not None and nxt not in wanted) else m.fit(g, shape, dtype)
            for nxt, g, (shape, dtype) in zip(fn.edges, grads, fn.input_meta)]


def _doubled(task, fn, op, vals, buf, nm):
    """x * x (_twins): the first formula's product, doubled, is the gradient of the one node
    both edges go to (PyTorch adds the second product into the first: one addition)."""
    buffers, deps, heap = task.not_ready, task.dependencies, task.ready
    (formula, names), (shape, dtype) = op.formulas[0], fn.input_meta[0]
    g = formula(nm, buf, *map(vals.__getitem__, names))
    if g.shape != shape or g.dtype is not dtype:
        g = nm.fit(g, shape, dtype)
    nxt = fn._e0
    private = type(g) is np.ndarray and g.base is None and _getrefcount(g) == 2
    g = buffers[nxt] = np.add(g, g, out=g) if private else g + g
    task.adds[nxt] = 1
    if type(g) is np.ndarray:
        task.owned.add(nxt)
    d = deps[nxt] = deps[nxt] - 2
    if d == 0 and type(nxt) is OutputEdge:
        nxt = _deliver(nxt, buffers, deps)
        d = 0 if nxt is not None else 1
    if d == 0:
        if heap:
            _ready_push(heap, nxt)
        else:
            heap.append(nxt)


# The ready queue: PyTorch's ReadyQueue, a heap of nodes.


def _ready_push(heap, item):
    # libstdc++ std::push_heap, so that ties pop in exactly PyTorch's order. Priority is
    # PyTorch's CompareNodeTaskTime: a lower sequence number is a lower priority (compared
    # inline here and in _ready_pop: a function call per comparison was most of their cost).
    heap.append(item)
    hole = len(heap) - 1
    parent = (hole - 1) // 2
    seq = item.seq
    while hole > 0 and heap[parent].seq < seq:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = item


def _ready_pop(heap):
    # libstdc++ std::pop_heap (__adjust_heap then __push_heap) followed by pop_back.
    n = len(heap)
    top = heap[0]
    if n == 1:
        heap.pop()
        return top
    value = heap[-1]
    heap[-1] = top
    length = n - 1
    hole = 0
    child = 0
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if heap[child].seq < heap[child - 1].seq:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    seq = value.seq
    while hole > 0 and heap[parent].seq < seq:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value
    heap.pop()
    return top


W_ANOMALY_AT = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


def _anomaly_warning(fn):
    """Anomaly mode: before the error escapes, PyTorch warns with the forward traceback that
    made the failing node (recorded only for nodes made while anomaly mode was on)."""
    trace = getattr(fn.origin, "anomaly_trace", None)
    if trace is None:
        STATE.warn(f"Error detected in {fn.name()}. No forward pass information available. Enable detect "
                   "anomaly during forward pass for more information." + W_ANOMALY_AT.format(100))
    else:
        STATE.warn(f"Error detected in {fn.name()}. Traceback of forward call that caused the error:\n"
                   + trace() + W_ANOMALY_AT.format(122))


def _check_nan(fn, outs):
    for i, g in enumerate(outs):
        if g is not None:
            a = g._data if isinstance(g, TensorBase) else g
            if a.dtype.kind == "f" and np.isnan(a).any():
                raise TorchRuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")


def _hooked(fn, buf, record):
    """Run tensor hooks on the gradient flowing into fn; a hook may return a replacement. The
    tensor a hook sees shares its version counter with the .grad views a leaf keeps of it."""
    if not fn.hooks or buf is None:
        return buf
    if type(buf) is list:                   # a MultiOutputNode's slots: each hook sees its output's
        return _hooked_slots(fn.hooks, buf, record)
    g = buf if isinstance(buf, TensorBase) else CONFIG.tensor(buf, version=_grad_version(record, buf))
    for hook in fn.hooks:
        if not callable(hook):            # registering accepts anything; calling it fails, as in PyTorch
            raise TorchTypeError(f"'{type(hook).__name__}' object is not callable")
        r = hook(g)
        if r is not None:
            _check_hook_result(hook, g, r)
            g = r
    return g if isinstance(buf, TensorBase) else g._data


def _check_hook_result(hook, original, result):
    """PyTorch's check_single_result: a hook's replacement is a tensor of the same type and size."""
    if not isinstance(result, TensorBase):
        kind = type(result)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TorchTypeError(f"expected Variable, but hook returned '{name}'")
    hook_name = getattr(hook, "__name__", None)
    hook_name = hook_name if isinstance(hook_name, str) else "<unknown>"
    if result._data.dtype != original._data.dtype:
        raise TorchRuntimeError(f"hook '{hook_name}' has changed the type of value (was "
                                f"torch.{original.dtype.tensor_type} got torch.{result.dtype.tensor_type})")
    if result._data.shape != original._data.shape:
        raise TorchRuntimeError(f"hook '{hook_name}' has changed the size of value")


def _hooked_slots(hooks, slots, record):
    """OutputHooks on the slots of a MultiOutputNode, in registration order. As in PyTorch, a
    hook on an output that got no gradient is called with None."""
    slots = list(slots)
    for h in hooks:
        if not callable(h.hook):
            raise TorchTypeError(f"'{type(h.hook).__name__}' object is not callable")
        g = slots[h.nr]
        wrapped = g is not None and not isinstance(g, TensorBase)
        seen = CONFIG.tensor(g, version=_grad_version(record, g)) if wrapped else g
        r = h.hook(seen)
        if r is not None and g is not None:
            _check_hook_result(h.hook, seen, r)
        if r is not None:
            slots[h.nr] = r._data if wrapped or (g is None and not STATE.grad_enabled) else r
    return slots


def _capture_slots(fn, slots, captures, result):
    """autograd.grad's inputs that are outputs of MultiOutputNode fn: their slots, after the hooks."""
    for e, ks in captures.items():
        if type(e) is OutputEdge and e.fn is fn:
            for k in ks:
                result[k] = slots[e.nr]


def _deliver(e, buffers, deps):
    """Every edge into output e.nr of a MultiOutputNode has run: its summed gradient goes into
    that output's slot of the node's buffer. Returns the node once every output's edges have
    delivered (it is then ready), else None."""
    fn = e.fn
    slots = buffers.get(fn)
    if slots is None:
        slots = buffers[fn] = [None] * fn.n_outputs
    g = buffers.pop(e, None)
    old = slots[e.nr]
    slots[e.nr] = g if old is None or g is None else old + g
    d = deps[fn] = deps[fn] - 1
    return fn if d == 0 else None


def _retain(t, buf, create_graph):
    if type(buf) is list:                   # t is one output of a MultiOutputNode: its slot
        e = t._fn
        buf = buf[e.nr] if type(e) is OutputEdge else None
        if buf is None:
            return
    if t._grad is None:
        t._grad = CONFIG.tensor(buf._data.copy() if isinstance(buf, TensorBase) else buf.copy())
    else:
        t._grad = CONFIG.tensor(t._grad._data + (buf._data if isinstance(buf, TensorBase) else buf))


def _topological(root, deps):
    """Nodes reachable from root, every node after all of its parents (Kahn's algorithm)."""
    remaining = dict(deps)
    order, ready = [], [root]
    while ready:
        fn = ready.pop()
        order.append(fn)
        for nxt in fn.edges:
            if nxt is not None:
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    ready.append(nxt)
    return order


def _input_buffer_add(buffers, owned, nxt, old, g, adds):
    """PyTorch's InputBuffer::add: a further gradient g for nxt, whose buffer holds old: added
    in place into a sum this call made (owned: nothing else sees it yet), or into g when g is a
    formula's own temporary (it owns its memory, and only the caller's `g`, this argument and
    getrefcount's refer to it), the same additions as `old + g`, one array fewer; else a new
    sum, which the call then owns.

    `adds[nxt]`: the version the sum has in PyTorch, whose InputBuffer adds into `old` itself
    (old.add_(g), one version more) when nothing else holds old or its memory, else makes a
    new sum (version 0); a .grad that keeps the sum shows it (_accumulate)."""
    if nxt in owned or (type(old) is np.ndarray and old.base is None and _getrefcount(old) == 4):
        adds[nxt] = (adds[nxt] if nxt in adds else _writes(old)) + 1
    else:
        adds.pop(nxt, None)
    if nxt in owned:
        np.add(old, g, out=old)
    elif (type(g) is np.ndarray and g.base is None and _getrefcount(g) == 3
          and type(old) is np.ndarray and old.dtype is g.dtype and old.shape == g.shape):
        buffers[nxt] = np.add(old, g, out=g)
        owned.add(nxt)
    else:
        old = buffers[nxt] = old + g
        if type(old) is np.ndarray:
            owned.add(nxt)


def _twins(fn, op, vals, buffers):
    """x * x: both edges go to one node that has no gradient yet, and the op's two formulas
    (OpDef.twins) read the same array: their sum is one result doubled (a + a, the same bits as two
    equal summands), one pass and one array fewer."""
    if not op.twins or buffers.get(fn._e0) is not None:
        return False
    (_, (a,)), (_, (b,)) = op.formulas
    return vals[a] is vals[b]


def _spare_saved(fn, vals):
    """A saved array of fn that its last formula may overwrite (REUSE.spare_saved):
    the release right after frees it, and nothing else refers to it (its tensor is gone, no
    other node saved it, no view of it). vals: what the formulas read (_unpacked)."""
    saved = fn._saved
    for slot in vals:                   # (not .items(): its tuple would hold v once more)
        v = vals[slot]
        if type(v) is not np.ndarray or v.base is not None or v.size < _SPARE_MIN:
            continue
        s = saved.get(slot)
        if s is v:                      # the node's own output, kept compact: `saved` is `vals`
            refs = 4                    # saved, v, s, getrefcount's argument
        elif type(s) is Saved and s._data is v and s.constant is None:
            t = s.tensor                # an input's tensor, kept by nothing else, holding v
            if t is not None and (t._data is not v or _getrefcount(t) != 3):     # s.tensor, t, argument
                continue
            refs = 4 if t is None else 5            # vals, s._data, v, the argument (and t._data)
        else:
            continue
        if _getrefcount(v) == refs:
            return v
    return None


def _unpacked(fn, create_graph):
    """What a node's formulas read: each saved slot's value, else the attribute of that name.
    Like PyTorch's generated code, every saved slot is unpacked before any formula runs: a
    freed slot raises the second-backward error, a slot modified in place the version error."""
    saved = fn._saved
    if not saved:
        return fn.attrs
    if not create_graph and not fn.attrs and fn.freed_by is None:
        for s in saved.values():
            if type(s) is Saved or type(s) is tuple:
                break
        else:
            return saved        # only unread compact slots and Nones (Node): what formulas read
    vals = dict(fn.attrs) if fn.attrs else {}
    if create_graph:
        for slot in saved:
            vals[slot] = fn.unpack(slot, True)
        return vals
    # A wrapped Python number enters the formula as that number: NumPy then computes
    # in the gradient's dtype, as PyTorch does with a wrapped scalar.
    for slot, s in saved.items():
        if s is None:
            vals[slot] = None
        elif type(s) is Saved:
            if s.freed:
                raise BackwardTwiceError(fn, slot)
            if s.version.v != s.saved_version:
                raise _version_error(fn, s)
            vals[slot] = s._data if s.constant is None else s.constant
        elif type(s) is tuple or fn.freed_by is not None:     # a freed compact slot (see Node)
            raise BackwardTwiceError(fn, slot)
        else:                             # a number or the output that nothing has read (nor changed)
            vals[slot] = s
    return vals


def _data_unshared(buf):
    """A gradient held as a Tensor (a hook's result): its array must be held by it alone."""
    return type(buf) is not CONFIG.tensor_type or _getrefcount(buf._data) == 2
