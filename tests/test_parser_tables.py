"""The Lark parser ships as generated code (gradcli/lang/lark_standalone.py): nothing is loaded
from the user's cache directory, and the generated tables always match the grammar."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path


from fuzz_strategies import run_cli

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
import generate_parser  # noqa: E402

# A script only the Lark grammar parses (the concise dialect), so every run below goes through it.
CONCISE = "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x * x\nbackward y\nprint x.grad\n"


def test_generated_parser_matches_the_grammar():
    committed = (REPO / "gradcli" / "lang" / "lark_standalone.py").read_text(encoding="utf-8")
    assert generate_parser.generate() == committed, \
        "gradcli/lang/lark_standalone.py is stale: run python tools/generate_parser.py"


def test_generation_does_not_depend_on_hash_seed(tmp_path):
    # Lark numbers parser states by object identity; the generator must not let that show.
    texts = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        code = "import generate_parser, sys; sys.stdout.write(generate_parser.generate())"
        out = subprocess.run([sys.executable, "-c", code], cwd=REPO / "tools", env=env, capture_output=True,
                             text=True, check=True).stdout
        texts.add(out)
    assert len(texts) == 1


class _Planted:
    """Unpickling this writes a marker file: what a crafted cache would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"echo planted > {self.marker}",))


def _old_cache_names():
    # The names under which earlier versions cached the parser (grammar, Lark and gradcli versions).
    import lark
    import gradcli
    grammar = (REPO / "grammar" / "gradcli.lark").read_text(encoding="utf-8")
    key = "%08x%04x" % (zlib.crc32((grammar + lark.__version__ + gradcli.__version__).encode()),
                        len(grammar) & 0xFFFF)
    return [f"parser-{key}.cache", "parser.cache"]


def _run_concise(tmp_path, cache_home):
    script = tmp_path / "concise.py"
    script.write_text(CONCISE, encoding="utf-8")
    return run_cli(["run", "--plain", str(script)], timeout=60, env={"XDG_CACHE_HOME": str(cache_home)}, cwd=str(tmp_path))


def test_crafted_cache_file_runs_nothing(tmp_path):
    cache = tmp_path / "cache" / "gradcli"
    cache.mkdir(parents=True)
    marker = tmp_path / "planted"
    for name in _old_cache_names():
        (cache / name).write_bytes(pickle.dumps(_Planted(marker)))
    before = sorted(os.listdir(cache))
    r = _run_concise(tmp_path, tmp_path / "cache")
    assert r.rc == 0, r.err
    assert r.out.strip() == "tensor([4.])"
    assert not marker.exists(), "a file in the cache directory ran code"
    assert sorted(os.listdir(cache)) == before, "gradcli wrote to the cache directory"


def test_fifo_in_cache_directory_does_not_hang(tmp_path):
    cache = tmp_path / "cache" / "gradcli"
    cache.mkdir(parents=True)
    for name in _old_cache_names():
        os.mkfifo(cache / name)
    r = _run_concise(tmp_path, tmp_path / "cache")
    assert not r.timed_out, "start-up blocked on a FIFO in the cache directory"
    assert r.rc == 0, r.err
    assert r.out.strip() == "tensor([4.])"


def test_lark_is_not_imported_to_parse():
    code = ("import sys; from gradcli.lang import grammar; grammar.parse_text('backward y\\n'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'regex', 'pickle')))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
