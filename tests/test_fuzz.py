"""Fuzzing gradcli with hostile input.

Invariant: whatever the text, gradcli answers with a report (in process) or exit status
0/1/2 and a readable message (CLI) — never an internal exception, exit status 3, a Python
traceback or a hang.

* In process (fast): `run_source` on thousands of inputs. Anything escaping it that is not a
  gradcli ScriptError is an internal error; so is an exception while the Rich, plain or JSON
  view renders the report (the CLI does that next). The process runs under an address-space cap
  so an input that slips past the tensor limits fails with MemoryError instead of exhausting
  the machine, and under a hard wall-clock alarm so a hang is reported instead of stalling CI.
* Through the real CLI: a deterministic sample of the same strategies, in subprocesses.

Strategies (tests/fuzz_strategies.py): random token streams of the grammar's vocabulary,
mutated example scripts, random valid scripts, and torch/Tensor API calls with odd arguments.

Each fuzz test collects every distinct failure (exception type + the gradcli line it came
from), keeps the shortest input for each, minimizes it (drops lines, then tokens, keeping
valid Python valid) and fails at the end listing them all.
Deterministic: fixed @seed, database=None. Set GRADCLI_FUZZ_SCALE=10 for a longer run.
The number of inputs tried is printed (-s) and stored in fuzz_counts.json in pytest's temporary
directory of the run (its path is in the last test's warning).
"""
from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import io
import json
import os
import re
import resource
import signal
import tempfile
import time
import traceback
import warnings

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from fuzz_strategies import (GiB, api_calls, mutated_examples, run_cli, token_streams, valid_scripts, EXAMPLES)

SCALE = float(os.environ.get("GRADCLI_FUZZ_SCALE", "1"))
COUNTS = collections.Counter()            # inputs tried, per test
OUTCOMES = collections.Counter()          # ok / script error type / internal, over all in-process runs
FOUND = {}                                # test -> {key: (input, summary)}
COUNTS_FILE = None                        # set per run, in pytest's temporary directory

HARD_SECONDS = 20          # an in-process run longer than this is a hang (the script timeout is 2 s)
SCRIPT_TIMEOUT = 2.0
FUZZ_MAX_ELEMENTS = 1_000_000
FUZZ_MAX_MEMORY = 1 << 30              # bytes; gradcli may compare it with the process's RSS


def _settings(n):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None, derandomize=False,
                    suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])


class _Hang(BaseException):
    """Raised by the alarm: not an Exception, so gradcli's handlers do not swallow it."""


@contextlib.contextmanager
def _hard_deadline(seconds):
    def fire(signum, frame):
        raise _Hang(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module", autouse=True)
def _counts_file(tmp_path_factory):
    global COUNTS_FILE
    COUNTS_FILE = tmp_path_factory.mktemp("fuzz") / "fuzz_counts.json"


@pytest.fixture(scope="module", autouse=True)
def _address_space_cap(_counts_file):
    """Cap this process's address space at its current size + 3 GiB while the fuzzers run."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as f:
        vm = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
    cap = vm + 3 * GiB
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        _save_counts()


def _save_counts():
    try:
        with open(COUNTS_FILE, "w") as f:
            json.dump({"inputs": dict(COUNTS), "total": sum(COUNTS.values()), "outcomes": dict(OUTCOMES),
                       "found": {t: [v[1] for v in d.values()] for t, d in FOUND.items()}}, f, indent=1)
    except OSError:
        pass


def _run_source_kwargs():
    import inspect
    from gradcli.session.executor import run_source
    wanted = dict(timeout=SCRIPT_TIMEOUT, max_elements=FUZZ_MAX_ELEMENTS, max_memory=FUZZ_MAX_MEMORY)
    params = inspect.signature(run_source).parameters
    return run_source, {k: v for k, v in wanted.items() if k in params}


def _show():
    from gradcli.views import show
    return show


def _where(exc):
    """The innermost gradcli frame of a traceback, as file:line (the failure's identity)."""
    tb = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in tb if "/gradcli/" in f.filename.replace(os.sep, "/")]
    f = (mine or tb or [None])[-1]
    return "?" if f is None else f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"


def _record(test, key, src, summary):
    found = FOUND.setdefault(test, {})
    if key not in found or len(src) < len(found[key][0]):
        found[key] = (src, summary)


def check_in_process(src, test, record=None):
    """Run `src` through run_source and the three views; record any internal failure."""
    from gradcli.engine import ScriptError
    run_source, kwargs = _run_source_kwargs()
    show = _show()
    record = record or _record
    if test is not None:
        COUNTS[test] += 1
    stage = "run_source"
    report = None
    t0 = time.monotonic()
    try:
        with _hard_deadline(HARD_SECONDS):
            report = run_source(src, "<fuzz>", **kwargs)
            err = report.error
            if err is not None:
                assert isinstance(err.type, str) and isinstance(err.message, str), err
                assert "Traceback (most recent call last)" not in err.message, err.message
            if test is not None:
                OUTCOMES["ok" if err is None else f"{'parse ' if report.parse_failed else ''}{err.type}"] += 1
            for mode in ("json", "plain", "rich"):
                stage = f"{mode} view"
                buf_out, buf_err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(buf_out), contextlib.redirect_stderr(buf_err):
                    show(report, mode, "<fuzz>")
                if mode == "json":
                    data = json.loads(buf_out.getvalue())
                    assert data["ok"] == (err is None), data
                text = buf_out.getvalue() + buf_err.getvalue()
                assert "Traceback (most recent call last)" not in text, text[-2000:]
    except ScriptError as e:          # escaped run_source but is the script's own error: acceptable
        OUTCOMES[f"escaped ScriptError {type(e).__name__}"] += 1
    except _Hang as e:
        OUTCOMES["internal"] += 1
        record(test, ("hang", stage), src, f"HANG in {stage}: {e} (script timeout was {SCRIPT_TIMEOUT} s)")
    except (Exception, RecursionError, MemoryError) as e:
        OUTCOMES["internal"] += 1
        key = (stage, type(e).__name__, _where(e))
        record(test, key, src, f"{type(e).__name__} in {stage} at {_where(e)}: {str(e)[:200]}")
    elapsed = time.monotonic() - t0
    if elapsed > HARD_SECONDS / 2:
        record(test, ("slow",), src, f"SLOW: {elapsed:.1f} s for one input (script timeout {SCRIPT_TIMEOUT} s)")
    return report


@contextlib.contextmanager
def OUTCOMES_FROZEN():
    saved = OUTCOMES.copy()
    try:
        yield
    finally:
        OUTCOMES.clear()
        OUTCOMES.update(saved)


def _key_of(src):
    keys = []
    check_in_process(src, None, record=lambda t, key, s, summary: keys.append(key))
    return keys[0] if keys else None


def _is_python(src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(src, "<min>", "exec")
            return True
        except (SyntaxError, ValueError):
            return False


def _minimize(src, key, budget=150):
    """Shrink a failing input (drop lines, then tokens) while it fails the same way; an input
    that was valid Python stays valid Python, so the reproducer stays readable."""
    if key[0] in ("hang", "slow"):
        return src
    keep_python = _is_python(src)

    def still_fails(cand):
        return (not keep_python or _is_python(cand)) and _key_of(cand) == key

    lines = src.split("\n")
    for size in (4, 2, 1):                      # whole blocks first (a try/except is 4 lines)
        i = 0
        while i < len(lines) and budget > 0:
            cand = lines[:i] + lines[i + size:]
            budget -= 1
            if still_fails("\n".join(cand)):
                lines = cand
            else:
                i += 1
    text = "\n".join(lines)
    j = 0
    while budget > 0:
        toks = [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]
        if j >= len(toks):
            break
        a, b = toks[j]
        cand = text[:a] + text[b:]
        budget -= 1
        if cand.strip() and still_fails(cand):
            text = cand
        else:
            j += 1
    return text


def _verdict(test):
    _save_counts()
    print(f"\n[fuzz] {test}: {COUNTS[test]} inputs tried; outcomes so far: {dict(OUTCOMES)}")
    found = FOUND.get(test, {})
    if found:
        lines = [f"{len(found)} distinct internal failure(s) after {COUNTS[test]} inputs:"]
        for key, (src, summary) in found.items():
            with OUTCOMES_FROZEN():
                src = _minimize(src, key)
            shown = src if len(src) <= 400 else src[:300] + f"... <{len(src)} chars> ..." + src[-60:]
            lines.append(f"- {summary}\n  minimized input: {shown!r}")
        pytest.fail("\n".join(lines), pytrace=False)


# ============================================================================ in-process fuzzers

@seed(90001)
@_settings(250)
@given(src=token_streams())
def _fuzz_tokens(src):
    check_in_process(src, "token_streams")


def test_fuzz_token_streams():
    _fuzz_tokens()
    _verdict("token_streams")


@seed(90002)
@_settings(400)
@given(src=mutated_examples())
def _fuzz_mutations(src):
    check_in_process(src, "mutated_examples")


def test_fuzz_mutated_examples():
    _fuzz_mutations()
    _verdict("mutated_examples")


def test_fuzz_every_example_unmodified():
    """The baseline the mutations start from: each example runs clean in process."""
    for name, src in EXAMPLES.items():
        check_in_process(src, "examples")
    _verdict("examples")


@seed(90003)
@_settings(150)
@given(src=valid_scripts())
def _fuzz_valid(src):
    if src.startswith("import torch"):   # the generator's own sanity: the PyTorch dialect is Python
        compile(src.replace("graph ", "graph_").replace("expect ", "expect_"), "<valid>", "exec")
    report = check_in_process(src, "valid_scripts")
    # a valid script must at least parse
    if report is not None and report.parse_failed:
        _record("valid_scripts", ("valid script rejected by the parser", report.error.message[:60]), src,
                f"a valid script did not parse: {report.error.message} (line {report.error.line})")


def test_fuzz_valid_scripts():
    _fuzz_valid()
    _verdict("valid_scripts")


@seed(90005)
@_settings(300)
@given(src=api_calls())
def _fuzz_api(src):
    check_in_process(src, "api_calls")


def test_fuzz_api_calls():
    _fuzz_api()
    _verdict("api_calls")


# ============================================================================ through the real CLI

N_CLI = 20


@seed(90004)
@settings(max_examples=max(3 * N_CLI, int(3 * N_CLI * SCALE)), deadline=None, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.generate])
@given(src=st.one_of(token_streams(), mutated_examples(), valid_scripts(), api_calls()))
def _collect(src):
    _COLLECTED.append(src)


_COLLECTED = []


def _cli_case(i, src):
    """Run one input through `python -m gradcli run`; returns a problem description or None."""
    modes = [[], ["--json"], ["--plain"]]
    args = ["run"]
    limits = ["--timeout", "5", "--max-elements", str(FUZZ_MAX_ELEMENTS), "--max-memory", "0.5"]
    try:
        data = src.encode("utf-8", "surrogatepass")
    except UnicodeEncodeError:
        data = src.encode("utf-8", "replace")
    use_c = i % 3 == 0 and "\x00" not in src and not any(0xD800 <= ord(c) <= 0xDFFF for c in src)
    with tempfile.NamedTemporaryFile("wb", suffix=".grad", dir=COUNTS_FILE.parent, delete=False) as f:
        f.write(data)
        path = f.name
    try:
        mode = modes[i % 3]
        argv = args + (["-c", src] if use_c else [path]) + limits + mode
        r = run_cli(argv, timeout=90, address_space=4 * GiB)
    finally:
        os.unlink(path)
    problems = []
    if r.timed_out:
        problems.append("did not finish within 90 s (--timeout 5)")
    elif r.rc not in (0, 1, 2):
        problems.append(f"exit status {r.rc}")
    if "Traceback" in r.both:
        problems.append("a Python traceback reached the user")
    if mode == ["--json"] and r.rc in (0, 1) and not r.timed_out:
        try:
            doc = json.loads(r.out)
            if doc.get("ok") != (r.rc == 0):
                problems.append(f"--json ok={doc.get('ok')} but exit status {r.rc}")
        except ValueError:
            problems.append("--json stdout is not one JSON object")
    if problems:
        return f"{'; '.join(problems)} [{' '.join(a if a != src else '<src>' for a in argv[1:])}]\n" \
               f"  stderr: {r.err.strip()[-600:]!r}\n  input: {src[:300]!r}"
    return None


def test_fuzz_cli_sample():
    """A deterministic sample of all three strategies through the real command line:
    exit status in {0, 1, 2}, never 3, no traceback, always finishes."""
    _COLLECTED.clear()
    _collect()
    pool = _COLLECTED[1:]                           # the first draw is Hypothesis's minimal example
    step = max(1, len(pool) // int(max(1, N_CLI * SCALE)))
    sample = pool[::step][:int(max(1, N_CLI * SCALE))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda a: _cli_case(*a), enumerate(sample)))
    COUNTS["cli_sample"] += len(sample)
    _save_counts()
    print(f"\n[fuzz] cli_sample: {len(sample)} inputs run through `python -m gradcli run`")
    bad = [r for r in results if r]
    assert not bad, f"{len(bad)} of {len(sample)} CLI runs broke the invariant:\n" + "\n".join(bad)


def test_zz_fuzz_counts():
    """Runs last: how many inputs the fuzzers tried (shown with -s, and as a warning)."""
    _save_counts()
    total = sum(COUNTS.values())
    msg = (f"gradcli fuzzers tried {total} inputs: " + ", ".join(f"{k}={v}" for k, v in sorted(COUNTS.items()))
           + f"; in-process outcomes: {dict(sorted(OUTCOMES.items(), key=lambda kv: -kv[1]))}; "
           f"distinct internal failures: {sum(len(v) for v in FOUND.values())} (details in {COUNTS_FILE})")
    print("\n[fuzz] " + msg)
    warnings.warn(msg)
    assert total > 0


# ============================================================================ arguments, against PyTorch

# Library mode (`from gradcli import torch`) against real PyTorch, call by call: an exception
# escaping gradcli is one of its script errors (never NumPy's or an internal Python error), a
# call raises in gradcli exactly when it raises in PyTorch, and then the exception types are the same.


def _argument_targets():
    from test_argument_errors_oracle import targets
    return targets()


def _argument_case(target, args, kwargs):
    from test_argument_errors_oracle import gradcli_outcome, torch_outcome
    COUNTS["argument_calls"] += 1
    want, want_msg = torch_outcome(target, args, kwargs)
    t0 = time.monotonic()
    got, got_msg = gradcli_outcome(target, args, kwargs)
    if time.monotonic() - t0 > 5:          # a bad argument is refused at once, never computed at length
        call = f"{target}{args!r}" + (f" {dict(kwargs)!r}" if kwargs else "")
        _record("argument_calls", (target, "slow"), call, f"{call}: gradcli took {time.monotonic() - t0:.0f} s")
    OUTCOMES["arguments " + ("same" if got == want else "gradcli ok" if got == "ok" else got)] += 1
    if got.startswith("internal") or got != want:        # refused by one library only, or differently
        key = (target, want, got)
        call = f"{target}{args!r}" + (f" {dict(kwargs)!r}" if kwargs else "")
        _record("argument_calls", key, call, f"{call}: PyTorch {want}: {str(want_msg)[:100]!r}; gradcli {got}: "
                                             f"{str(got_msg)[:160]!r}")


# GRADCLI_FUZZ_SEED picks another sequence of inputs for the argument and file fuzzers.
EXTRA_SEED = int(os.environ.get("GRADCLI_FUZZ_SEED", "0"))


@seed(90006 + EXTRA_SEED)
@_settings(1500)
@given(case=st.data())
def _fuzz_arguments(case):
    from fuzz_strategies import argument_calls
    _argument_case(*case.draw(argument_calls(_TARGETS)))


_TARGETS = []


def test_fuzz_argument_calls_against_pytorch():
    import torch                # (the test extra installs it: a missing oracle must fail, not skip)
    from gradcli.engine import STATE
    # Both libraries as a fresh process has them, whatever tests ran before in this worker.
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.autograd.set_detect_anomaly(False)
    STATE.reset()
    _TARGETS[:] = _argument_targets()
    _fuzz_arguments()
    _listed_verdict("argument_calls")

# ============================================================================ files gradcli reads


def _file_case(kind, content, limit):
    """read_source on one kind of file: the bytes of a regular file within the limit, otherwise
    SourceError; never another exception, never a hang. gradcli test's golden-file reading too."""
    import shutil
    from fuzz_strategies import make_file
    from gradcli.session import sourcefile
    from gradcli.testing import suite as testing
    COUNTS["file_kinds"] += 1
    folder = tempfile.mkdtemp(prefix="gradcli-fuzz-")
    try:
        path = os.path.join(folder, "s.py")
        make_file(path, kind, content)
        with _hard_deadline(10):
            try:
                data = sourcefile.read_source(path, limit)
            except sourcefile.SourceError:
                data = None
            except Exception as e:  # noqa: BLE001
                _record("file_kinds", (kind, type(e).__name__), kind, f"{kind}: {type(e).__name__}: {e}")
                return
            regular = kind in ("regular", "empty", "binary", "latin-1", "symlink-to-regular")
            expected = content if regular and len(content) <= limit else None
            if data != expected:
                _record("file_kinds", (kind, "content"), kind, f"{kind} (limit {limit}): read {data!r:.60}, "
                                                            f"expected {expected!r:.60}")
            # the same file as a script's golden output: a problem in the result, never an exception
            golden = os.path.join(folder, "g.out")
            make_file(golden, kind, content)
            with open(os.path.join(folder, "g.py"), "w") as f:
                f.write("print(1)\n")
            try:
                testing.run_script(testing.Script(os.path.join(folder, "g.py"), "g.py"), testing.Options(timeout=5))
            except Exception as e:  # noqa: BLE001
                _record("file_kinds", (kind, "golden", type(e).__name__), kind, f"golden {kind}: {type(e).__name__}: {e}")
    except _Hang:
        _record("file_kinds", (kind, "hang"), kind, f"{kind}: reading blocked")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@seed(90007 + EXTRA_SEED)
@_settings(200)
@given(case=st.data())
def _fuzz_files(case):
    from fuzz_strategies import file_kinds
    _file_case(*case.draw(file_kinds()))


def test_fuzz_file_kinds():
    _fuzz_files()
    _listed_verdict("file_kinds")


def _listed_verdict(test):
    """Like _verdict, for inputs that are calls or files rather than scripts (nothing to minimize)."""
    _save_counts()
    print(f"\n[fuzz] {test}: {COUNTS[test]} inputs tried")
    found = FOUND.get(test, {})
    if found:
        pytest.fail(f"{len(found)} distinct failure(s) after {COUNTS[test]} inputs:\n" +
                    "\n".join(f"- {summary}" for _, summary in found.values()), pytrace=False)
