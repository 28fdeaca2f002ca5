"""A run's report: what happened, in order, as typed items (record/report.py) that every view reads by
their class: what the script printed, warnings, each backward call, the implicit leaves, the
`expect` statements that held and the `graph` statements."""
from __future__ import annotations

import io

import pytest

from gradcli.record.report import CallEvent, ExpectPassed, GraphShown, LeavesShown, Printed, Warned
from gradcli.session.executor import run_source
from gradcli.views import json_view, plain

SCRIPT = "a = x*2\nprint a\ngraph a\nb = a*3\nprint b.grad\nbackward b\nexpect x.grad == 6\n"
NONLEAF = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


@pytest.fixture(scope="module")
def report():
    return run_source(SCRIPT, "t.grad")


def test_every_kind_of_item_in_the_order_it_happened(report):
    assert [type(i) for i in report.items] == [LeavesShown, Printed, Printed, GraphShown, Warned, Printed, Printed,
                                               CallEvent, ExpectPassed]
    leaves, out, _, graph, warned, _, _, call, passed = report.items
    assert leaves == LeavesShown((("x", "tensor(1., requires_grad=True)"),))
    assert out == Printed("tensor(2., grad_fn=<MulBackward0>)")
    assert graph.line == 3 and "a" in {n.name for n in graph.snapshot.nodes.values()}
    assert warned.line == 5 and warned.message.startswith(NONLEAF)
    assert call.kind == "backward" and call.line == 6 and [n.grad_fn for n in call.executed][0] == "MulBackward0"
    assert passed == ExpectPassed(7, "expect x.grad == 6")
    assert report.events == [call] and report.stdout == "tensor(2., grad_fn=<MulBackward0>)\nNone\n"


def test_items_are_frozen_values_that_match_by_field():
    item = Warned(5, "careful")
    with pytest.raises(AttributeError, match="Warned is frozen"):
        item.line = 6
    assert item == Warned(5, "careful") and item != Warned(6, "careful") and item != Printed("careful")
    assert repr(item) == "Warned(line=5, message='careful')"
    match item:
        case Warned(line, message):
            assert (line, message) == (5, "careful")
        case _:
            pytest.fail("a Warned did not match its class pattern")
    with pytest.raises(TypeError):
        Warned(5)


def test_the_plain_and_json_views_read_the_items(report):
    out, err = io.StringIO(), io.StringIO()
    plain.render(report, out, err, "t.grad")
    assert out.getvalue() == report.stdout
    warning = err.getvalue()
    assert warning.startswith(f"t.grad:5: UserWarning: {NONLEAF}") and warning.endswith("  print b.grad\n")
    d = json_view.as_dict(report)
    assert d["leaves"] == ["x"] and [w["line"] for w in d["warnings"]] == [5] and len(d["events"]) == 1
