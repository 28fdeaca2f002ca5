"""A pytest plugin (`-p row_recorder`) that records which rows of gradcli's op table make a node
while op_oracle runs a case under gradcli, and writes their table keys, as a JSON list, to the
file named by $ROW_RECORDER_OUT when the session ends. tests/test_api_table.py runs the op tests
with it. The comparison with PyTorch is the op tests' own run: here check_op runs only gradcli's
side of each case (what records rows), so the tests' verdicts are not this run's."""
from __future__ import annotations

import json
import os
import warnings

import op_oracle

from gradcli.engine import Node
from gradcli.ops import TABLE

_made = set()           # ids of the rows whose nodes were made inside op_oracle.op_facts(gradcli, ...)
_recording = [False]


def pytest_configure(config):
    make_node = Node.__init__
    op_facts = op_oracle.op_facts

    def recording_init(self, op, *args):
        if _recording[0]:
            _made.add(id(op))
        make_node(self, op, *args)

    def recording_op_facts(lib, *args, **kwargs):
        _recording[0] = lib is op_oracle.G
        try:
            return op_facts(lib, *args, **kwargs)
        finally:
            _recording[0] = False

    def gradcli_side(fn, *input_specs, seed=0, backward=True, weighted=True, second_order=False, desc=None):
        drawn = op_oracle._draw(input_specs, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = recording_op_facts(op_oracle.G, fn, drawn, backward=backward, weighted=weighted,
                                   second_order=second_order, seed=seed)
        return g, g

    Node.__init__ = recording_init
    # (before the test modules import them by name)
    op_oracle.op_facts = recording_op_facts
    op_oracle.check_op = gradcli_side


def pytest_sessionfinish(session):
    with open(os.environ["ROW_RECORDER_OUT"], "w") as f:
        json.dump(sorted(key for key, row in TABLE.items() if id(row) in _made), f)
