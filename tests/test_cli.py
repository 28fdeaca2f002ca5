"""End-to-end tests of the `gradcli` command line, run in subprocesses.

* test_installed_*: a non-editable install of this checkout into a fresh venv, run from an
  unrelated directory (so the grammar must come from the installed package).
* everything else: `python -m gradcli` with PYTHONPATH=<repo root>, cwd = a temporary directory.
* --plain is checked against real Python + PyTorch running the same file (skipped without torch).

Invariant checked on every run: no Python traceback ever reaches the user.
"""
from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import os
import re
import select
import shutil
import subprocess
import sys
import sysconfig
import time

try:
    import tomllib
except ImportError:                       # Python 3.10: the test extra installs tomli
    import tomli as tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

TORCH_SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

CONCISE_NAME_ERROR = "f = x+y; z = 2*f; y1 = z**2; backward y1; backward y2"
CONCISE_TWICE = "f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2"

# The first code block of the question "PyTorch中retain_graph作用及两次backward无报错原因问询", exactly as asked (import torch on line 1).
SEED000_BLOCK1 = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x+y
z = 2*f
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
"""

# Deterministic snippets from seeds 003 and 004 (made runnable: `import torch`, ones for randn).
SEED_SNIPPETS = {
    "seed004_question.py": """\
import torch
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
y.backward(torch.ones(2, 2)) # Note I do not set retain_graph=True
y.backward(torch.ones(2, 2)) # But it can still work!
print(x.grad)
""",
    "seed004_answer_no_retain.py": """\
import torch
x = torch.ones(2, 2, requires_grad=True)
v = x.pow(3)
y = v + 2

y.backward(torch.ones(2, 2))

print('Backward 1st time w/o retain')
print('x.grad:', x.grad)

print('Backward 2nd time w/o retain')

try:
    y.backward(torch.ones(2, 2))
except RuntimeError as err:
    print(err)

print('x.grad:', x.grad)
""",
    "seed004_answer_retain.py": """\
import torch
x = torch.ones(2, 2, requires_grad=True)
v = x.pow(3)
y = v + 2

y.backward(torch.ones(2, 2), retain_graph=True)

print('Backward 1st time w/ retain')
print('x.grad:', x.grad)

print('Backward 2nd time w/ retain')

try:
    y.backward(torch.ones(2, 2))
except RuntimeError as err:
    print(err)
print('x.grad:', x.grad)
""",
    "seed003_times_two.py": """\
import torch

def analyze_your_actual_code():
    a = torch.ones(4, requires_grad=True)

    print(f"a: {a}")
    print(f"a.grad: {a.grad}")

    loss = a.sum() * 2
    loss.backward()
    print(f"  a.grad: {a.grad}")

    loss.backward()
    print(f"  a.grad: {a.grad}")

analyze_your_actual_code()
""",
}

ANSI = re.compile(r"\x1b[\[\]()#;?0-9]")
SUBPROCESS_TIMEOUT = 120


# ============================================================================ helpers

@dataclass
class Result:
    args: list
    rc: int
    out: str
    err: str

    @property
    def both(self):
        return self.out + self.err

    def json(self):
        try:
            return json.loads(self.out)
        except json.JSONDecodeError as e:     # pragma: no cover - shown on failure only
            raise AssertionError(f"stdout is not one JSON object ({e}):\n{self.out!r}\nstderr:\n{self.err}")

    def __str__(self):
        return f"$ {' '.join(map(str, self.args))}\n[exit {self.rc}]\n--- stdout\n{self.out}--- stderr\n{self.err}"


def _clean_env(**extra):
    env = dict(os.environ)
    for k in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE",
              "TTY_INTERACTIVE", "COLUMNS", "LINES", "PYTHONPATH", "PYTHONSTARTUP", "JUPYTER_COLUMNS",
              "PYTHONWARNINGS"):
        env.pop(k, None)
    env.setdefault("TERM", "xterm-256color")
    env.update({k: str(v) for k, v in extra.items() if v is not None})
    return env


def _run(cmd, *, cwd, env, input=None, check_no_traceback=True):
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, input=input, capture_output=True,
                       timeout=SUBPROCESS_TIMEOUT)
    r = Result(list(cmd), p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    if check_no_traceback:
        assert "Traceback" not in r.out and "Traceback" not in r.err, f"a Python traceback reached the user:\n{r}"
        assert r.rc != 3, f"gradcli reported an internal error:\n{r}"
    return r


@pytest.fixture(scope="session")
def cache_home(tmp_path_factory):
    """Private parser-table cache so the tests neither read nor write the user's ~/.cache."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture
def cli(tmp_path, cache_home):
    """Run `python -m gradcli ARGS` from the repository (PYTHONPATH) with cwd = a temporary directory."""

    def run(*args, input=None, env=None, check_no_traceback=True):
        e = _clean_env(PYTHONPATH=REPO, XDG_CACHE_HOME=cache_home, **(env or {}))
        if isinstance(input, str):
            input = input.encode("utf-8")
        return _run([sys.executable, "-m", "gradcli", *args], cwd=tmp_path, env=e, input=input,
                     check_no_traceback=check_no_traceback)

    def many(*arg_lists):
        """Several independent runs at once (each gradcli start-up costs ~0.5 s of mostly imports)."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(lambda a: run(*a), arg_lists))

    run.cwd = tmp_path
    run.many = many
    return run


def _squash(text):
    """Rich text with panel borders removed and all whitespace (including wraps) collapsed."""
    text = re.sub(r"[│╭╮╰╯─┃━┏┓┗┛|]", " ", text)
    return " ".join(text.split())


def _line_of(source, needle):
    for i, line in enumerate(source.splitlines(), 1):
        if line.strip() == needle:
            return i
    raise AssertionError(f"{needle!r} not in source")


def _assert_subset(actual, expected, where):
    assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
    got = {k: actual.get(k, "<missing>") for k in expected}
    assert got == expected, f"{where}: {got} != {expected}"


# ============================================================================ 1. installation

def _copy_checkout(dst):
    """The checkout as it is now (uncommitted work included), without VCS and build leftovers.

    Installing from a copy keeps pip's in-tree build (build/, *.egg-info) out of the shared checkout.
    """
    junk = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
                                  ".pytest_cache", ".hypothesis", ".benchmarks", "tests")
    shutil.copytree(REPO, dst, ignore=junk)


def _version_tuple(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    venv, src, work = base / "venv", base / "src", base / "elsewhere"
    work.mkdir()
    env = _clean_env(XDG_CACHE_HOME=base / "cache", PIP_DISABLE_PIP_VERSION_CHECK=1)
    started = time.monotonic()

    def sh(*cmd, **kw):
        p = subprocess.run([str(c) for c in cmd], cwd=work, env=env, capture_output=True, text=True,
                           timeout=SUBPROCESS_TIMEOUT, **kw)
        assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{p.stdout}\n{p.stderr}"
        return p.stdout

    # A venv of the base interpreter (the running one may itself be a venv, whose packages
    # --system-site-packages would not show), without pip: ensurepip is slow. The running
    # environment's site-packages come last on its path, as a plain directory (its .pth files,
    # an editable gradcli's among them, are not run): the dependencies and pip are found there,
    # and pip installs into the venv it runs under.
    sh(getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", venv)
    py = venv / "bin" / "python"
    new_site = sh(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    ours = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    Path(new_site, "running_environment.pth").write_text("".join(d + "\n" for d in sorted(ours)))
    if subprocess.run([py, "-m", "pip", "--version"], env=env, capture_output=True).returncode != 0:
        sh(py, "-m", "ensurepip", "--default-pip")

    # --no-build-isolation builds with the venv's setuptools: it must satisfy build-system.requires.
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    need = next((re.search(r">=\s*([\d.]+)", r) for r in requires if r.startswith("setuptools")), None)
    have = sh(py, "-c", "import setuptools; print(setuptools.__version__)").strip()
    if need and _version_tuple(have) < _version_tuple(need.group(1)):
        sh(py, "-m", "pip", "install", "--upgrade", f"setuptools>={need.group(1)}")

    _copy_checkout(src)
    sh(py, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", src)
    shutil.rmtree(src)        # nothing of the checkout may be found at run time except the install

    class Installed:
        root, python, script, cwd = venv, py, venv / "bin" / "gradcli", work
        setup_seconds = time.monotonic() - started

        def run(self, *cmd, input=None):
            return _run(cmd, cwd=work, env=env, input=input)

    return Installed()


def test_installed_is_not_editable_and_grammar_is_packaged(installed):
    r = installed.run(installed.python, "-c",
                      "import gradcli, gradcli.lang.grammar as g; print(gradcli.__file__); print(g.grammar_path())")
    assert r.rc == 0, r
    module_file, grammar = r.out.splitlines()
    site = str(installed.root)
    assert module_file.startswith(site), f"gradcli imported from {module_file}, not from the venv {site}"
    assert grammar.startswith(site) and grammar.endswith(".lark"), f"grammar found at {grammar}"
    assert str(REPO) not in r.out
    assert installed.setup_seconds < 30, f"installing took {installed.setup_seconds:.1f} s"


def _pyproject():
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _requirement_name(requirement):
    return re.split(r"[<>=!~;\[ ]", requirement, 1)[0].lower().replace("_", "-")


def test_every_package_of_the_source_is_installed():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "gradcli").rglob("__init__.py")}
    assert found - listed == set(), "packages missing from pyproject.toml's packages list"


def test_every_library_gradcli_imports_is_a_declared_dependency():
    """What `pip install .` brings must cover every import of the package (the REPL without
    prompt_toolkit silently loses history, completion and highlighting)."""
    import ast
    from importlib.metadata import packages_distributions
    declared = {_requirement_name(r) for r in _pyproject()["project"]["dependencies"]}
    # the Jupyter extension runs in a kernel: what it alone imports comes with the notebook extra
    notebook = {_requirement_name(r) for r in _pyproject()["project"]["optional-dependencies"]["notebook"]}
    imported, in_kernel = set(), set()
    for path in (REPO / "gradcli").rglob("*.py"):
        if path == REPO / "gradcli" / "notebook.py":
            in_kernel |= {n.split(".")[0] for n in re.findall(r"^\s*(?:from|import) (\w+)", path.read_text(), re.M)}
            continue
        tree = ast.parse(path.read_text())
        optional = set()            # `try: import regex / except ImportError:` uses it only when there
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(isinstance(h.type, ast.Name) and h.type.id in
                                                 ("ImportError", "ModuleNotFoundError") for h in node.handlers):
                optional |= {id(n) for st in node.body for n in ast.walk(st)}
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    # pytest loads the pytest plugin, so pytest is there when it runs; Typer before 0.25 brings Click.
    provided = {"gradcli", "torch", "pytest", "click"}
    third_party = imported - set(sys.stdlib_module_names) - provided
    distributions = packages_distributions()
    missing = {m: distributions.get(m) for m in third_party
               if not {_requirement_name(d) for d in distributions.get(m, [m])} & declared}
    assert missing == {}, "imported by gradcli but not in pyproject.toml's dependencies"
    kernel_only = in_kernel - imported - set(sys.stdlib_module_names) - provided
    assert {m for m in kernel_only if not {_requirement_name(d) for d in distributions.get(m, [m])} & notebook} \
        == set(), "imported by gradcli/notebook.py but not in the notebook extra"


def test_installed_console_script_runs_concise_script(installed):
    assert installed.script.exists(), "the console script `gradcli` was not installed"
    r = installed.run(installed.script, "run", "-c", "f = x+y; z = 2*f; y1 = z**2; backward y1",
                      "--set", "x=2", "--set", "y=3", "--json")
    assert r.rc == 0, r
    d = r.json()
    assert d["ok"] is True and d["error"] is None
    assert d["tensors"]["x"]["grad"] == 40.0 and d["tensors"]["y"]["grad"] == 40.0
    assert [f["grad_fn"] for f in d["events"][0]["freed"]] == ["PowBackward0", "MulBackward0"]


def test_installed_python_dash_m_runs_file_plain(installed):
    script = installed.cwd / "block2.py"
    script.write_text((EXAMPLES / "seed000_block2.py").read_text())
    r = installed.run(installed.python, "-m", "gradcli", "run", script.name, "--plain")
    assert (r.rc, r.out, r.err) == (0, "tensor([85.]) tensor([85.])\n", ""), r


def test_installed_parse_error_and_version(installed):
    r = installed.run(installed.script, "run", "-c", "x = = 2")
    assert r.rc == 2, r
    assert "line 1" in r.both and "^" in r.both
    v = installed.run(installed.script, "--version")
    version = _pyproject()["project"]["version"]
    assert v.rc == 0 and v.out.strip() == f"gradcli {version}", v


# ============================================================================ 2. behaviour: the concise dialect

def test_undefined_backward_target_suggests_name_and_announces_leaves(cli):
    r = cli("run", "-c", CONCISE_NAME_ERROR)
    assert r.rc == 1, r
    text = _squash(r.both)
    assert "name 'y2' is not defined" in text, r
    assert re.search(r"[Dd]id you mean:? '?y1'?", text), r
    m = re.search(r"implicit leaves?(.*?)(▸|backward|$)", text)
    assert m, f"no implicit-leaves announcement:\n{r}"
    assert re.search(r"\bx\b", m.group(1)) and re.search(r"\by\b", m.group(1)), r

    j = cli("run", "-c", CONCISE_NAME_ERROR, "--json")
    assert j.rc == 1, j
    d = j.json()
    assert d["ok"] is False and d["error"]["type"] == "NameError" and d["error"]["line"] == 1
    assert "y2" in d["error"]["message"]
    assert {"x", "y"} <= set(d["tensors"])

    p = cli("run", "-c", CONCISE_NAME_ERROR, "--plain")
    assert p.rc == 1, p
    # What Python 3.11 prints for the same NameError.
    assert p.err.splitlines()[-1] == "NameError: name 'y2' is not defined. Did you mean: 'y1'?", p


def test_concise_second_backward_json(cli):
    r = cli("run", "-c", CONCISE_TWICE, "--set", "x=2", "--set", "y=3", "--json")
    assert r.rc == 1, r
    d = r.json()
    assert d["version"] == 1 and d["ok"] is False and d["stdout"] == ""
    err = d["error"]
    assert err["type"] == "RuntimeError" and err["message"] == TORCH_SECOND_BACKWARD and err["line"] == 1
    _assert_subset(err["cause"], {"grad_fn": "MulBackward0", "line": 1, "saved": ["other"], "freed_by": 1},
                   "error.cause")
    first = d["events"][0]
    _assert_subset(first, {"kind": "backward", "line": 1, "retain_graph": False}, "events[0]")
    assert [(f["grad_fn"], f["saved"]) for f in first["freed"]] == [("PowBackward0", ["self"]),
                                                                  ("MulBackward0", ["other"])]
    if "updated" in first:
        assert set(first["updated"]) == {"x", "y"}
    for name, value in (("x", 2.0), ("y", 3.0)):
        _assert_subset(d["tensors"][name], {"shape": [], "dtype": "float32", "requires_grad": True,
                                            "is_leaf": True, "grad_fn": None, "value": value, "grad": 40.0},
                       f"tensors.{name}")
    assert d["tensors"]["z"]["grad_fn"] == "MulBackward0" and d["tensors"]["z"]["grad"] is None


def test_concise_second_backward_rich_text(cli):
    r = cli("run", "-c", CONCISE_TWICE, "--set", "x=2", "--set", "y=3")
    assert r.rc == 1, r
    text = _squash(r.both)
    arrow = r"\s*(?:→|->)\s*"
    gx = re.search(r"x\.grad\s+None" + arrow + r"tensor\(40\.\)", text)
    gy = re.search(r"y\.grad\s+None" + arrow + r"tensor\(40\.\)", text)
    assert gx and gy, f"x.grad and y.grad going None -> tensor(40.) not shown:\n{r}"
    assert re.search(r"implicit leaves?.*\bx = tensor\(2\.", text), r
    b1, err_at = text.find("backward y1"), text.find("RuntimeError")
    assert 0 <= b1 < gx.start() < err_at and gy.start() < err_at, "gradients must be reported before the error"
    assert TORCH_SECOND_BACKWARD in text, r
    why = text[text.find("Why:"):]
    assert "Why:" in text and "MulBackward0" in why and "2*f" in why, r
    assert "Fix:" in text and "retain_graph=True" in text[text.find("Fix:"):], r


# ============================================================================ 2. the JSON contract (docs/json.md)

def _seed_file_cases():
    return [pytest.param("seed000_block1_verbatim.py", SEED000_BLOCK1, id="seed000-block1-verbatim"),
            pytest.param("seed000_block1.py", (EXAMPLES / "seed000_block1.py").read_text(), id="examples")]


@pytest.mark.parametrize("name,source", _seed_file_cases())
def test_json_contract_seed000_block1(cli, name, source):
    path = cli.cwd / name
    path.write_text(source)
    r = cli("run", name, "--json")
    assert r.rc == 1, r
    d = r.json()
    L = {k: _line_of(source, k) for k in ("z = 2*f", "y1 = z**2", "y2 = z**3", "y1.backward()", "y2.backward()")}
    if name.endswith("verbatim.py"):       # the line numbers docs/json.md quotes
        assert (L["z = 2*f"], L["y1 = z**2"], L["y1.backward()"], L["y2.backward()"]) == (5, 6, 8, 9)

    assert d["version"] == 1
    assert d["ok"] is False
    assert d["stdout"] == ""
    err = d["error"]
    assert err["type"] == "RuntimeError"
    assert err["message"] == TORCH_SECOND_BACKWARD
    assert err["line"] == L["y2.backward()"]
    _assert_subset(err["cause"], {"grad_fn": "MulBackward0", "line": L["z = 2*f"], "saved": ["other"],
                                  "freed_by": L["y1.backward()"]}, "error.cause")

    events = d["events"]
    assert isinstance(events, list) and 1 <= len(events) <= 2, events
    _assert_subset(events[0], {"kind": "backward", "line": L["y1.backward()"], "retain_graph": False}, "events[0]")
    freed = events[0]["freed"]
    assert len(freed) == 2, freed
    _assert_subset(freed[0], {"grad_fn": "PowBackward0", "line": L["y1 = z**2"], "saved": ["self"]}, "freed[0]")
    _assert_subset(freed[1], {"grad_fn": "MulBackward0", "line": L["z = 2*f"], "saved": ["other"]}, "freed[1]")
    if len(events) == 2:   # the failed second backward, if reported, must say so (it did free y2's PowBackward0)
        _assert_subset(events[1], {"kind": "backward", "line": L["y2.backward()"], "retain_graph": False},
                       "events[1]")
        assert events[1].get("failed") is True, events[1]
        assert [(f["grad_fn"], f["line"], f["saved"]) for f in events[1]["freed"]] == [
            ("PowBackward0", L["y2 = z**3"], ["self"])]

    tensors = d["tensors"]
    assert set(tensors) == {"x", "y", "f", "z", "y1", "y2"}, sorted(tensors)
    for leaf, value in (("x", 2.0), ("y", 3.0)):
        _assert_subset(tensors[leaf], {"shape": [1], "dtype": "float32", "requires_grad": True, "is_leaf": True,
                                       "grad_fn": None, "value": [value], "grad": [40.0]}, f"tensors.{leaf}")
    for inner, fn, value in (("f", "AddBackward0", 5.0), ("z", "MulBackward0", 10.0),
                             ("y1", "PowBackward0", 100.0), ("y2", "PowBackward0", 1000.0)):
        _assert_subset(tensors[inner], {"shape": [1], "dtype": "float32", "requires_grad": True, "is_leaf": False,
                                        "grad_fn": fn, "value": [value], "grad": None}, f"tensors.{inner}")


def test_json_success_captures_script_stdout(cli):
    r = cli("run", "-c", 'print("hello"); y = (w*w).sum(); backward y; print("done")', "--set", "w=[1,2]", "--json")
    assert r.rc == 0, r
    d = r.json()                                  # stdout is one JSON object and nothing else
    assert d["ok"] is True and d["error"] is None
    assert d["stdout"] == "hello\ndone\n"
    _assert_subset(d["tensors"]["w"], {"shape": [2], "is_leaf": True, "value": [1.0, 2.0], "grad": [2.0, 4.0]},
                   "tensors.w")
    assert [e["kind"] for e in d["events"]] == ["backward"]
    freed = d["events"][0]["freed"]           # w*w saves both operands; sum saves no tensor
    assert [(f["grad_fn"], sorted(f["saved"])) for f in freed] == [("MulBackward0", ["other", "self"])], freed


# ============================================================================ 2. --plain against Python + PyTorch

def _plain_cases():
    cases = {p.name: p.read_text() for p in sorted(EXAMPLES.glob("*.py"))}
    cases["seed000_block1_verbatim.py"] = SEED000_BLOCK1
    cases.update(SEED_SNIPPETS)
    return cases


PLAIN_CASES = _plain_cases()


# Runs each file as `python FILE` would, but in one process: importing torch once instead of once per file
# keeps this fast. stdout is captured; an escaping exception becomes exit status 1 and the usual last
# traceback line ("RuntimeError: ...") on stderr.
_ORACLE_DRIVER = r"""
import io, json, os, runpy, sys, traceback, warnings
import torch
results = {}
real_stdout = sys.stdout
for path in sys.argv[1:]:
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    rc = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:
        rc = 1
        err.write("Traceback (most recent call last):\n")
        err.write("".join(traceback.format_exception_only(type(e), e)))
    finally:
        sys.stdout, sys.stderr = real_stdout, sys.__stderr__
    results[os.path.basename(path)] = {"rc": rc, "out": out.getvalue(), "err": err.getvalue()}
print(json.dumps(results))
"""


@pytest.fixture(scope="session")
def torch_oracle(tmp_path_factory):
    """Every --plain case as real Python + PyTorch runs it."""
    # torch is a test dependency (the `test` extra): a missing install must fail, not skip.
    assert importlib.util.find_spec("torch") is not None, "install the test extra: pip install '.[test]'"
    d = tmp_path_factory.mktemp("torch-oracle")
    for name, src in PLAIN_CASES.items():
        (d / name).write_text(src)
    r = _run([sys.executable, "-c", _ORACLE_DRIVER, *sorted(PLAIN_CASES)], cwd=d, env=_clean_env(),
             check_no_traceback=False)
    assert r.rc == 0, f"the PyTorch oracle failed:\n{r}"
    return {name: Result([sys.executable, name], v["rc"], v["out"], v["err"]) for name, v in json.loads(r.out).items()}


@pytest.mark.parametrize("name", sorted(PLAIN_CASES))
def test_plain_matches_python_and_torch(cli, torch_oracle, name):
    (cli.cwd / name).write_text(PLAIN_CASES[name])
    r = cli("run", name, "--plain")
    want = torch_oracle[name]
    assert r.out == want.out, f"stdout differs from Python + PyTorch:\n{r}\n=== torch\n{want}"
    assert r.rc == want.rc, f"exit status {r.rc}, Python exits {want.rc}:\n{r}"
    if want.err.strip():
        assert r.err.strip(), r
        assert r.err.splitlines()[-1] == want.err.splitlines()[-1], f"{r}\n=== torch\n{want}"
    else:
        assert r.err == "", r


def test_plain_second_backward_last_stderr_line(cli):
    r = cli("run", str(EXAMPLES / "seed000_block1.py"), "--plain")
    assert r.rc == 1 and r.out == "", r
    assert r.err.splitlines()[-1] == "RuntimeError: " + TORCH_SECOND_BACKWARD, r


# ============================================================================ 2. exit statuses and command-line errors

def test_exit_statuses(cli):
    # (ok runs in --plain and --json, and CONCISE_TWICE's 1, are checked by the tests above)
    cases = [(0, ["run", "-c", "y = 2*x; backward y"]), (0, ["run", "-c", "# only a comment\n"])]
    for mode in ([], ["--plain"], ["--json"]):
        cases += [(1, ["run", "-c", "1/0", *mode]), (2, ["run", "-c", "x = = 2", *mode])]
    results = cli.many(*(args for _, args in cases))
    for (want, _), r in zip(cases, results):
        assert r.rc == want, f"expected exit status {want}:\n{r}"


BAD_COMMAND_LINES = {    # case: (arguments, what the one-line message must name)
    "unknown-option": (["run", "--bogus", "-c", "y = 2*x"], "--bogus"),
    "missing-file": (["run", "no_such_script.py"], "no_such_script.py"),
    "directory": (["run", "adir"], "adir"),
    "binary-file": (["run", "binary.py"], "binary.py"),
    "non-utf8-file": (["run", "latin1.py"], "latin1.py"),
    "set-without-equals": (["run", "-c", "y = 2*x", "--set", "x"], "--set"),
    "set-non-numeric": (["run", "-c", "y = 2*x", "--set", "x=abc"], "abc"),
    "set-empty-value": (["run", "-c", "y = 2*x", "--set", "x="], "--set"),
    "set-ragged-list": (["run", "-c", "y = 2*x", "--set", "x=[1,[2]]"], "--set"),
    "plain-and-json": (["run", "-c", "y = 2*x", "--plain", "--json"], "--json"),
    "file-and-c": (["run", "ok.py", "-c", "y = 2*x"], "-c"),
    "no-script": (["run"], "FILE"),
}


def _make_bad_inputs(tmp):
    (tmp / "binary.py").write_bytes(b"x = 1\n\x00\x01\x02")
    (tmp / "latin1.py").write_bytes("y = 2*x  # caf\u00e9\n".encode("latin-1"))
    (tmp / "adir").mkdir()
    (tmp / "ok.py").write_text("y = 2*x\n")


@pytest.mark.parametrize("case", list(BAD_COMMAND_LINES))
def test_bad_command_line_exits_2_with_one_line(cli, case):
    _make_bad_inputs(cli.cwd)
    args, mentions = BAD_COMMAND_LINES[case]
    r = cli(*args)
    assert r.rc == 2, f"a wrong command line must exit 2:\n{r}"
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"the message must be one line, got {len(lines)}:\n{r}"
    assert mentions.lower() in lines[0].lower(), f"the message should name {mentions!r}:\n{r}"
    assert r.out == "", r


# ============================================================================ 2. parse errors

PARSE_ERRORS = {
    "unclosed-paren": ("x = (1 +", r"never closed|expected"),
    "missing-colon": ("if x\n  y", r"expected ':'"),
    "double-equals": ("x = = 2", r"invalid syntax|expected"),
    "second-line": ("x = 1\ny = (2 +)\n", r"invalid syntax|expected"),
}


def _python_syntax_error(src):
    try:
        compile(src, "<string>", "exec")
    except SyntaxError as e:
        return e.lineno, e.offset
    raise AssertionError(f"{src!r} is valid Python")


@pytest.mark.parametrize("case", sorted(PARSE_ERRORS))
def test_parse_error_shows_line_column_caret_and_expectation(cli, case):
    src, expectation = PARSE_ERRORS[case]
    line, col = _python_syntax_error(src)          # Python's own position is the reference
    path = cli.cwd / "bad.py"
    path.write_text(src)
    for r in cli.many(["run", "-c", src], ["run", "bad.py"]):
        assert r.rc == 2, r
        out = r.both
        assert re.search(rf"\bline {line}\b", out), f"line {line} not shown:\n{r}"
        assert re.search(rf"\bcol(umn)? {col}\b", out), f"column {col} not shown:\n{r}"
        rows = out.splitlines()
        src_line = src.splitlines()[line - 1]
        i = next((k for k, row in enumerate(rows) if src_line in row and "line" not in row), None)
        assert i is not None and i + 1 < len(rows), f"source line {src_line!r} not shown:\n{r}"
        caret_row = rows[i + 1]
        assert caret_row.find("^") == rows[i].find(src_line) + col - 1, f"caret not under column {col}:\n{r}"
        after = _squash("\n".join(rows[i + 2:]))
        assert re.search(expectation, after), f"no {expectation!r} after the caret:\n{r}"


def test_parse_error_crlf_file_and_json_and_plain(cli):
    (cli.cwd / "crlf.py").write_bytes(b"x = 1\r\ny = = 3\r\n")
    r = cli("run", "crlf.py")
    assert r.rc == 2 and "line 2" in r.out and "y = = 3" in r.out and "\r" not in r.out, r

    j = cli("run", "-c", "x = 1\nif x\n  y", "--json")
    assert j.rc == 2, j
    d = j.json()
    assert d["ok"] is False and d["error"]["type"] == "SyntaxError"
    assert d["error"]["line"] == 2 and d["error"].get("column") == 5, d["error"]
    assert d["events"] == [] and d["tensors"] == {}

    p = cli("run", "-c", "x = (1 +", "--plain")
    assert p.rc == 2 and p.out == "", p
    assert p.err.splitlines()[-1] == "SyntaxError: '(' was never closed", p


# ============================================================================ 2. colour and readability

def _pty_run(cmd, env, cwd, cols=100):
    """Run cmd with stdout and stderr on a pseudo-terminal; return (exit status, output)."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    p = subprocess.Popen([str(c) for c in cmd], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                         env=env, cwd=cwd, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + SUBPROCESS_TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if p.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:          # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)
    return p.returncode, b"".join(chunks).decode("utf-8", "replace")


def _pty_cli(cache_home, cwd, args, **env):
    e = _clean_env(PYTHONPATH=REPO, XDG_CACHE_HOME=cache_home, **env)
    return _pty_run([sys.executable, "-m", "gradcli", *args], e, cwd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_no_color_on_a_terminal_has_no_escape_codes(cli, cache_home):
    args = ["run", "-c", CONCISE_TWICE, "--set", "x=2"]
    rc, coloured = _pty_cli(cache_home, cli.cwd, args)
    assert rc == 1, coloured
    # On a terminal the default view is styled; NO_COLOR must turn every style off.
    assert ANSI.search(coloured), coloured
    rc, out = _pty_cli(cache_home, cli.cwd, args, NO_COLOR="1")
    assert rc == 1
    assert "Traceback" not in out
    assert TORCH_SECOND_BACKWARD.split(" (")[0] in _squash(out)
    codes = sorted(set(re.findall(r"\x1b\[[0-9;]*m", out)))
    assert not ANSI.search(out), f"NO_COLOR=1 output still contains escape codes {codes}; starts {out[:160]!r}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_json_and_plain_on_a_terminal_are_not_styled(cli, cache_home):
    rc, out = _pty_cli(cache_home, cli.cwd, ["run", "-c", CONCISE_TWICE, "--json"])
    assert rc == 1 and not ANSI.search(out), repr(out)
    assert json.loads(out)["error"]["type"] == "RuntimeError"
    rc, out = _pty_cli(cache_home, cli.cwd, ["run", str(EXAMPLES / "seed000_block2.py"), "--plain"])
    assert rc == 0 and out.replace("\r\n", "\n") == "tensor([85.]) tensor([85.])\n", repr(out)


@pytest.mark.parametrize("env", [{}, {"NO_COLOR": "1"}], ids=["piped", "piped-NO_COLOR"])
def test_piped_rich_output_is_plain_readable_text(cli, env):
    source = (EXAMPLES / "seed000_block1.py").read_text()
    r = cli("run", str(EXAMPLES / "seed000_block1.py"), env=env)
    assert r.rc == 1, r
    assert not ANSI.search(r.both), f"escape codes in piped output: {r.both!r}"
    for row in r.both.splitlines():
        assert len(row) <= 80, f"line wider than the 80-column default: {row!r}"
        assert "\r" not in row
    assert not re.search(r"\[/?(bold|dim|red|green|cyan|blue|magenta|yellow|italic)\b", r.both), \
        f"Rich markup leaked into the output:\n{r}"
    text = _squash(r.both)
    for needle in ("y1.backward()", "PowBackward0", "MulBackward0", "AddBackward0", "RuntimeError", "Why:", "Fix:",
                   f"line {_line_of(source, 'y1.backward()')}", f"line {_line_of(source, 'y2.backward()')}"):
        assert needle in text, f"{needle!r} missing from:\n{r}"


def test_rich_output_shows_script_text_verbatim(cli):
    """Script text and script output containing [brackets] must not be taken for Rich markup."""
    r = cli("run", "-c", 'print("[red]hi[/red] [bold]x")')
    assert r.rc == 0 and r.out == "[red]hi[/red] [bold]x\n", r
    r = cli("run", "-c", "z = [y] / 0")
    assert r.rc == 1, r
    assert "z = [y] / 0" in r.both, f"the failing line lost its [brackets]:\n{r}"


# ============================================================================ 2. --version, --help, stdin

def test_version(cli):
    version = _pyproject()["project"]["version"]
    r = cli("--version")
    assert r.rc == 0 and r.out.strip() == f"gradcli {version}" and r.err == "", r


def test_help_shows_commands_and_examples(cli):
    top = cli("--help")
    assert top.rc == 0 and re.search(r"^\s*run\b", top.out, re.M), top
    for flag in ("--help", "-h"):
        r = cli("run", flag)
        assert r.rc == 0, r
        assert "Examples" in r.out and "gradcli run -c" in r.out, r
        for option in ("-c", "--set", "--plain", "--json", "--strict"):
            assert option in r.out, f"{option} not documented:\n{r}"


def test_stdin_dash(cli):
    src = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
           "y = (x*x).sum()\ny.backward()\nprint(x.grad)\n")
    r = cli("run", "-", "--plain", input=src)
    assert (r.rc, r.out, r.err) == (0, "tensor([2., 4.])\n", ""), r
    j = cli("run", "-", "--json", input="y = 3*x\nbackward y\n")
    assert j.rc == 0 and j.json()["tensors"]["x"]["grad"] == 3.0, j
    rich = cli("run", "-", input=src)
    assert rich.rc == 0 and "tensor([2., 4.])" in rich.out and "y.backward()" in rich.out, rich
    bad = cli("run", "-", input="x = = 2\n")
    assert bad.rc == 2 and "line 1" in bad.both, bad


def test_limits_are_errors_not_hangs(cli):
    r = cli("run", "-c", "while True:\n    pass", "--timeout", "0.5")
    assert r.rc == 1 and "--timeout" in r.both, r
    r = cli("run", "-c", "import torch\nx = torch.zeros(100000, 100000)", "--max-elements", "1000")
    assert r.rc == 1 and "--max-elements" in r.both, r


def _python_and_plain(cli, name, source):
    """The script run as `python NAME` (with real torch) and as `gradcli run NAME --plain`."""
    (cli.cwd / name).write_text(source)
    want = _run([sys.executable, name], cwd=cli.cwd, env=_clean_env(), check_no_traceback=False)
    return want, cli("run", name, "--plain")


def test_plain_warns_of_addcmuls_deprecated_overload_once_as_pytorch_does(cli):
    source = ("import torch\nx = torch.ones(2, requires_grad=True)\na = torch.ones(2) * 2\n"
              "print(torch.addcmul(x, 0.5, a, a), torch.addcdiv(x, 0.5, a, a))\n"
              "y = x.clone()\ny.addcdiv_(0.5, a, a)\ny.addcmul_(torch.tensor(0.5), a, a)\nprint(y)\n"
              "y.sum().backward()\nprint(x.grad)\n"
              "for bad in ('torch.addcmul(x, a, 0.5, a)', 'x.addcmul(0.5, a)'):\n"
              "    try:\n        eval(bad)\n    except TypeError as e:\n        print(bad, e)\n")
    want, r = _python_and_plain(cli, "value_first.py", source)
    assert (r.rc, r.out, r.err) == (want.rc, want.out, want.err), f"{r}\n=== python\n{want}"


# A script that ends itself: `python script.py` exits with the status it gives, prints an exit
# object that is not a number, and prints a KeyboardInterrupt the script raises as its last line.
ENDING_SCRIPTS = {
    "exit_status.py": "import sys\nimport torch\nprint('before', torch.ones(1) * 2)\nsys.exit(5)\n",
    "raise_system_exit.py": "import torch\nraise SystemExit(4)\n",
    "exit_message.py": "import sys\nimport torch\nsys.exit('fatal message')\n",
    "exit_zero.py": "import sys\nimport torch\nprint('ok')\nsys.exit(0)\n",
    "own_interrupt.py": "import torch\nprint('start')\nraise KeyboardInterrupt\n",
}


@pytest.mark.parametrize("name", sorted(ENDING_SCRIPTS))
def test_plain_ends_as_python_does_when_the_script_exits(cli, name):
    want, r = _python_and_plain(cli, name, ENDING_SCRIPTS[name])
    rc = 130 if want.rc == -2 else want.rc          # (Python ends by SIGINT; a shell sees 130)
    assert (r.rc, r.out) == (rc, want.out), f"{r}\n=== python\n{want}"
    if name == "own_interrupt.py":
        assert r.err.splitlines()[-1] == want.err.splitlines()[-1] == "KeyboardInterrupt", r
    else:
        assert r.err == want.err, f"{r}\n=== python\n{want}"


@pytest.mark.parametrize("source", ["import torch\nx = torch.ones(2)\n    y = x * 2\nprint(y)\n",
                                    "import torch\ndef f():\n    return 1\n  x = 2\n",
                                    "import torch\nx = 1\nif x:\nprint(x)\n"],
                         ids=["unexpected indent", "unindent mismatch", "missing block"])
def test_plain_reports_an_indentation_error_as_cpython_does(cli, source):
    name = "indented.py"
    want, r = _python_and_plain(cli, name, source)
    assert r.rc == 2 and r.out == want.out == "", r
    assert r.err == want.err, f"{r}\n=== python\n{want}"
    data = json.loads(cli("run", name, "--json").out)
    assert data["error"]["type"] == "IndentationError"
    assert data["error"]["line"] == int(re.search(r"line (\d+)", want.err).group(1))


CLOSED_STDOUT_SCRIPTS = {
    "close_only.py": "import sys\nimport torch\nprint('a')\nsys.stdout.close()\n",
    "print_after_close.py": "import sys\nimport torch\nsys.stdout.close()\nprint(torch.ones(1))\n",
    "caught_after_close.py": ("import sys\nimport torch\nsys.stdout.close()\ntry:\n    print(1)\nexcept ValueError as e:\n"
                              "    sys.stderr.write(f'{e} {sys.stdout.closed}\\n')\n"),
}


@pytest.mark.parametrize("name", sorted(CLOSED_STDOUT_SCRIPTS))
def test_plain_closing_stdout_behaves_as_in_python(cli, name):
    want, r = _python_and_plain(cli, name, CLOSED_STDOUT_SCRIPTS[name])
    assert (r.rc, r.out) == (want.rc, want.out), f"{r}\n=== python\n{want}"
    assert r.err.splitlines()[-1:] == want.err.splitlines()[-1:], f"{r}\n=== python\n{want}"


RECURSING = "import torch\ndef f(n):\n    return f(n + 1)\ndef g():\n    return f(0)\ng()\n"


def test_a_recursion_errors_repeated_frames_are_collapsed_as_python_does(cli):
    (cli.cwd / "rec.py").write_text(RECURSING)
    want = _run([sys.executable, "rec.py"], cwd=cli.cwd, env=_clean_env(), check_no_traceback=False)
    shown = re.findall(r'line (\d+), in (\S+)', want.err)
    assert re.search(r"\[Previous line repeated \d+ more times\]", want.err)
    # Python: <module>, g, then f three times and the rest counted
    assert [(int(line), name) for line, name in shown] == [(6, "<module>"), (5, "g")] + [(3, "f")] * 3
    data = json.loads(cli("run", "rec.py", "--json").out)
    frames = data["error"]["frames"]
    assert [(f["line"], f["function"]) for f in frames] == [(6, "<module>"), (5, "g")] + [(3, "f")] * 3
    assert "repeated" not in frames[3] and frames[4]["repeated"] > 900
    rich = cli("run", "rec.py", env={"COLUMNS": "100"})
    assert len(rich.out) < 2000 and re.search(r"\[repeated \d+ more times\]", _squash(rich.out)), rich


@pytest.mark.parametrize("script", ["concise_seed000.grad", "seed000_block1.py"])
def test_export_note_names_the_line_where_the_exported_script_stops_under_torch(cli, script):
    r = cli("export", str(EXAMPLES / script), "-o", "exported.py")
    assert r.rc == 0, r
    ran = _run([sys.executable, "exported.py"], cwd=cli.cwd, env=_clean_env(), check_no_traceback=False)
    torch_line = [int(n) for n in re.findall(r'File "[^"]*exported\.py", line (\d+)', ran.err)][-1]
    assert f"(its line {torch_line})" in r.err, f"{r}\n=== torch\n{ran}"


def test_narrow_panels_keep_titles_whole_long_calls_indented_and_2d_grads_on_one_line(cli):
    r = cli("run", str(EXAMPLES / "seed000_block1.py"), env={"COLUMNS": "40", "NO_COLOR": "1"})
    title = r.out.splitlines()[[i for i, l in enumerate(r.out.splitlines()) if l.startswith("╭")][-1]]
    assert "─ RuntimeError ─ line 12 ─" in title and "backward(" not in title, r
    r = cli("run", str(EXAMPLES / "accumulation_micro_batches.py"), env={"COLUMNS": "60", "NO_COLOR": "1"})
    lines = r.out.splitlines()
    heads = [i for i, l in enumerate(lines) if "▸ full = torch.autograd.grad(" in l]
    assert heads and lines[heads[0] + 1].startswith("    "), r   # (the wrapped call stays under itself)
    src = "import torch\nx = torch.ones(2, 2, requires_grad=True)\n(x * 3).sum().backward()\n"
    r = cli("run", "-c", src, env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert "x.grad None → tensor([[3., 3.], [3., 3.]])" in r.out, r
    r = cli("explain", "-c", src, "--plain")
    assert "x.grad: None → tensor([[3., 3.], [3., 3.]])  (added tensor([[3., 3.], [3., 3.]]))" in r.out, r


def test_control_characters_of_an_exception_message_are_shown_escaped_in_the_panel(cli):
    src = "import torch\nraise ValueError('\\x1b[31mred\\x1b[0m [bold]x[/bold]')\n"
    r = cli("run", "-c", src, env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert "\x1b" not in r.out and "\\x1b[31mred\\x1b[0m [bold]x[/bold]" in r.out, r
    plain = cli("run", "-c", src, "--plain")
    assert plain.err.splitlines()[-1] == "ValueError: \x1b[31mred\x1b[0m [bold]x[/bold]"   # as Python prints it
