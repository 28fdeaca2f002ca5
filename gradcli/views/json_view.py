"""`--json`: the machine-readable contract of docs/json.md, as one JSON object."""
from __future__ import annotations

import json

VERSION = 1


def as_dict(report) -> dict:
    return {
        "version": VERSION,
        "ok": report.error is None,
        "stdout": report.stdout,
        "error": None if report.error is None else report.error.as_json(),
        "events": [ev.as_json() for ev in report.events],
        "warnings": [{"line": i[1], "message": i[2]} for i in report.items if i[0] == "warn"],
        "leaves": [name for i in report.items if i[0] == "leaves" for name, _ in i[1]],
        "tensors": report.tensors,
        "surprises": [surprise_json(w) for w in report.surprises()],
    }


def surprise_json(why):
    """A surprise as `error.facts` and `error.fixes` describe an error (docs/json.md)."""
    from dataclasses import asdict
    from ..report import fix_json
    facts = asdict(why)
    fixes = [fix_json(f) for f in facts.pop("fixes") if f["tried"] is False or f["works"]]
    return {"why": facts.pop("text"), "facts": facts, "fixes": fixes}


def render(report, out):
    json.dump(as_dict(report), out, indent=2, allow_nan=False)
    out.write("\n")
