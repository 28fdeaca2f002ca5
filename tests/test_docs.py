"""The documentation a clone carries: it refers only to what the clone has, and docs/json.md
describes every key `gradcli run --json` emits."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".grad", ".out", ".toml", ".lark", ".txt", ""}
SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", ".venv", "venv"}

# Documents that lived beside the project while it was written and that a clone lacks.
OUTSIDE = re.compile(r"shared/|torch-facts|DESIGN\.md|\bissue #?\d|seed \d{3}'s answer|seeds/\d", re.I)


def _text_files():
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for f in files:
            path = Path(root, f)
            if path.suffix in TEXT_SUFFIXES and path.name != Path(__file__).name:
                yield path


def test_nothing_refers_to_documents_a_clone_lacks():
    found = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == [], "references to documents outside the repository:\n" + "\n".join(found)


def test_every_file_the_readme_names_exists():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\((docs/[\w./-]+)\)", readme))
    named |= set(re.findall(r"`((?:docs|examples|benchmarks|tests|gradcli)/[\w./-]*\.\w+)", readme))
    named |= {"docs/json.md"}
    missing = sorted(p for p in named if not (REPO / p).exists())
    assert missing == []


def _run_json(source):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "gradcli", "run", "-c", source, "--json"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode in (0, 1, 2), p.stderr
    return json.loads(p.stdout)


SCRIPTS = {
    "second backward": "import torch\nx = torch.tensor([2.], requires_grad=True)\nz = 2*x\ny1 = z**2\n"
                       "y1.backward()\ny1.backward()\n",
    "in-place": "import torch\nx = torch.tensor([2.], requires_grad=True)\ny = x.exp()\ny += 1\n"
                "y.sum().backward()\n",
    "grad": "import torch\nx = torch.tensor(1., requires_grad=True)\nprint(torch.autograd.grad(x * x, [x]))\n",
    "leaves, warning": "z = x * y; backward z; w = z * 2; print(w.grad)",
    "syntax": "x = = 1",
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_json_md_documents_every_key_the_json_output_has(name):
    doc = (REPO / "docs" / "json.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)`", doc))
    d = _run_json(SCRIPTS[name])
    keys = set(d)
    if d["error"]:
        keys |= set(d["error"]) | set(d["error"]["cause"] or {})
    for event in d["events"]:
        keys |= set(event)
        for node in event["freed"]:
            keys |= set(node)
    for warning in d["warnings"]:
        keys |= set(warning)
    for tensor in d["tensors"].values():
        keys |= set(tensor)
    assert keys - documented == set(), "keys --json emits that docs/json.md does not describe"
