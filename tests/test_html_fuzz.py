"""The step-through page on random scripts: for every valid script the generator makes (both
dialects, working and failing), the page is written, holds the JSON report of the same run,
steps through exactly the nodes each call ran, and stops at a failing call's error.

Deterministic: fixed @seed, database=None. GRADCLI_FUZZ_SCALE multiplies the examples and
GRADCLI_FUZZ_SEED picks another sequence."""
from __future__ import annotations

import io
import json
import os
import re

from hypothesis import HealthCheck, given, seed, settings

from fuzz_strategies import valid_scripts
from gradcli.session import executor
from gradcli.cli.explain import explain_to_html
from gradcli.views import json_view

SCALE = float(os.environ.get("GRADCLI_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("GRADCLI_FUZZ_SEED", "0"))
LIMITS = dict(timeout=5.0, max_elements=100_000, max_memory=1 << 30)


def _embedded(text):
    blob = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S).group(1)
    return json.loads(blob.replace("<\\/", "</"))


@seed(20_020 + SEED)
@settings(max_examples=max(1, int(60 * SCALE)), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(source=valid_scripts())
def test_every_generated_script_gets_a_page_that_agrees_with_its_json_report(source, tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "p.html"
    status = explain_to_html(source, "s.py", str(path), values={}, **LIMITS)
    data = _embedded(path.read_text(encoding="utf-8"))

    report = executor.run_source(source, "s.py", **LIMITS)
    out = io.StringIO()
    json_view.render(report, out)
    expected = json.loads(out.getvalue())
    for r in (data["report"], expected):          # a printed object's address differs between runs
        r["stdout"] = re.sub(r" at 0x[0-9a-f]+", " at 0x…", r["stdout"])
    assert data["report"] == expected
    assert status == (0 if expected["ok"] else 1) or expected["error"]["type"] == "SyntaxError"

    for k, event in enumerate(expected["events"]):
        call = data["calls"][k]
        steps = data["steps"][call["first"]:call["last"] + 1]
        ran = [n.rpartition("::")[2] for n in event["ran"] if n != "GraphRoot"]
        assert [s["title"].split(" #")[0] if data["nodes"][s["node"]]["kind"] == "op" else "AccumulateGrad"
                for s in steps] == ran
    failing = [e for e in expected["events"] if e["failed"] and e["error"]["caught_line"] is None]
    if failing and expected["error"] is not None:
        assert data["error"] is not None and data["error"]["type"] == expected["error"]["type"]
    assert "http://" not in path.read_text(encoding="utf-8").replace("http://www.w3.org", "")
