"""Run the benchmark suite: `python -m benchmarks.run [--quick] [--json out.json]`.

Contenders alternate within one run (each repetition runs every contender once, in a
rotated order, after one untimed warm-up each), so a machine that slows down mid-run
slows everyone alike; the tables give medians and the ratios gradcli/torch and
gradcli/numpy. See benchmarks/README.md for what each workload measures.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

from . import workloads as W

REPO = W.REPO

# ----------------------------------------------------------------------------- sizes

# w1_own: (rounds, repetitions per fresh process) of W1 measured in a process of its own
FULL = dict(w1_sizes=(10_000, 100_000), w1_reps={10_000: 11, 100_000: 5}, w1_own={10_000: (4, 3), 100_000: (3, 1)},
            w2_size=1_000_000, w2_reps=15, w2_own=(3, 5), w5_reps=7, w5_runs=5,
            w3=(256, 512), w3_reps=21, seed_runs=15, chain_ops=10_000, chain_runs=5,
            parse_lines=(10_000, 100_000), parse_reps={10_000: 3, 100_000: 1}, rss_rounds=3)
QUICK = dict(w1_sizes=(10_000, 100_000), w1_reps={10_000: 3, 100_000: 1}, w1_own={10_000: (2, 2), 100_000: (1, 1)},
             w2_size=1_000_000, w2_reps=3, w2_own=(1, 3), w5_reps=3, w5_runs=2,
             w3=(256, 512), w3_reps=5, seed_runs=5, chain_ops=10_000, chain_runs=1,
             parse_lines=(2_000, 10_000), parse_reps={2_000: 1, 10_000: 1}, rss_rounds=1)

# ----------------------------------------------------------------------------- measuring


def interleaved(fns, reps, warmup=1):
    """Seconds per call of each fn, alternating the fns within each repetition: (wall
    samples, CPU samples), CPU being user+sys of every thread of this process."""
    names = list(fns)
    samples = {n: [] for n in names}
    cpu = {n: [] for n in names}
    for _ in range(warmup):
        for n in names:
            fns[n]()
    for r in range(reps):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            fn = fns[n]
            gc.collect()                 # garbage left by the previous contender is not charged here
            c0 = time.process_time()
            t0 = time.perf_counter()
            fn()                         # the result (and the graph it holds) dies inside the window
            samples[n].append(time.perf_counter() - t0)
            cpu[n].append(time.process_time() - c0)
    return samples, cpu


def traced_peak(fn):
    """Peak bytes allocated (tracemalloc) while fn() runs, over what was live before it.
    NumPy reports its array buffers to tracemalloc; PyTorch's allocator does not."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _env():
    env = dict(os.environ)
    # Children read and write compiled bytecode, as an installed gradcli and PyTorch do (some
    # environments set PYTHONDONTWRITEBYTECODE, which would recompile gradcli on every start).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_process(cmd, cwd):
    """(wall seconds, CPU seconds of the child, its stdout)."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - c0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-2000:]}")
    return wall, cpu, p.stdout


def interleaved_processes(cmds, runs, cwd, warmup=1):
    names = list(cmds)
    samples = {n: [] for n in names}
    cpus = {n: [] for n in names}
    outputs = {}
    for _ in range(warmup):
        for n in names:
            outputs[n] = run_process(cmds[n], cwd)[2]
    for r in range(runs):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            wall, cpu, out = run_process(cmds[n], cwd)
            samples[n].append(wall)
            cpus[n].append(cpu)
            outputs[n] = out
    return (samples, cpus), outputs


def med(xs):
    return statistics.median(xs) if xs else None

# ----------------------------------------------------------------------------- the suite


class Suite:
    def __init__(self, cfg, only, log):
        self.cfg = cfg
        self.only = only
        self.log = log
        self.rows = []          # timing rows
        self.memory = []        # memory rows
        self.notes = []
        self.extra = {}

    def want(self, key):
        return self.only is None or key in self.only

    def add_row(self, key, label, unit, scale, samples, per=1, diagnostic=()):
        samples, cpu = samples
        medians = {n: med(v) * scale / per for n, v in samples.items()}
        mins = {n: min(v) * scale / per for n, v in samples.items()}
        row = dict(key=key, label=label, unit=unit, median=medians, min=mins,
                   reps=max(len(v) for v in samples.values()), diagnostic=list(diagnostic),
                   samples={n: [x * scale / per for x in v] for n, v in samples.items()},
                   cpu_median={n: med(v) * scale / per for n, v in cpu.items()},
                   cpu_samples={n: [x * scale / per for x in v] for n, v in cpu.items()})
        self.rows.append(row)
        self.log(f"  {label}: " + ", ".join(f"{n} {v:.4g}" for n, v in medians.items()) + f" {unit}")
        return row

    # -- W1 ------------------------------------------------------------------------------
    def w1(self):
        names = W.contenders()
        for n in self.cfg["w1_sizes"]:
            fns = {name: W.make_w1(name, n) for name in names}
            if "gradcli" in fns:
                fns["gradcli[gc off]"] = _gc_off(fns["gradcli"])
            self.log(f"W1 n={n:,}")
            samples = interleaved(fns, self.cfg["w1_reps"][n])
            self.add_row(f"w1_{n}", f"W1 chain, {n:,} ops", "µs/op", 1e6, samples, per=n,
                         diagnostic=["gradcli[gc off]"])
            self.add_row(f"w1own_{n}", f"W1 chain, {n:,} ops, each in a process of its own", "µs/op", 1e6,
                         self.w1_own_process(names, n), per=n)
        n = self.cfg["w1_sizes"][0]
        peaks = {name: traced_peak(W.make_w1(name, n)) for name in names if name != "torch"}
        self.memory.append(dict(key=f"w1_{n}", label=f"W1 {n:,} ops: tracemalloc peak", unit="MiB",
                                value={k: v / 2**20 for k, v in peaks.items()}))

    def w1_own_process(self, names, n):
        """W1 in fresh processes that import one contender each (workloads._w1_probe says
        why), alternating the contenders: (wall samples, CPU samples)."""
        rounds, reps = self.cfg["w1_own"][n]
        wall, cpu = {name: [] for name in names}, {name: [] for name in names}
        for r in range(rounds):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                out = json.loads(run_process([sys.executable, "-m", "benchmarks.workloads", "w1", name, str(n),
                                              str(reps)], REPO)[2])
                wall[name] += out["wall"]
                cpu[name] += out["cpu"]
        return wall, cpu

    # -- W2 ------------------------------------------------------------------------------
    def w2(self):
        size = self.cfg["w2_size"]
        names = W.w2_contenders()
        steps = {}
        for name in names:
            steps[name] = W.make_w2(name, size)[0]
        if "torch" in steps:
            steps["torch[1 thread]"] = _one_thread(W.make_w2("torch", size)[0])
        self.log(f"W2 size={size:,}")
        samples = interleaved(steps, self.cfg["w2_reps"])
        self.add_row("w2", f"W2 21 ops on 2×{size:.0e} float32", "ms", 1e3, samples,
                     diagnostic=["torch[1 thread]"])
        self.w2_own_process(names, size)
        peaks = {}
        for name in names:
            if name == "torch":
                continue
            step = W.make_w2(name, size)[0]
            step()
            peaks[name] = traced_peak(step)
        self.memory.append(dict(key="w2_tracemalloc", label="W2: tracemalloc peak of one step", unit="MiB",
                                value={k: v / 2**20 for k, v in peaks.items()}))
        # each contender in its own process: RSS high-water
        rss = {n: [] for n in names}
        setup = {n: [] for n in names}
        for r in range(self.cfg["rss_rounds"]):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                p = subprocess.run([sys.executable, "-m", "benchmarks.workloads", "rss", "w2", name, str(size)],
                                   cwd=REPO, env=_env(), capture_output=True, text=True, check=True)
                d = json.loads(p.stdout.strip().splitlines()[-1])
                rss[name].append(d["maxrss_kib"] / 1024)
                setup[name].append(d["maxrss_setup_kib"] / 1024)
        self.memory.append(dict(key="w2_rss", label="W2: process RSS high-water, VmHWM (3 steps)", unit="MiB",
                                value={n: med(v) for n, v in rss.items()}))
        self.memory.append(dict(key="w2_rss_delta", label="W2: RSS high-water − after imports+setup", unit="MiB",
                                value={n: med(rss[n]) - med(setup[n]) for n in names}))

    def w2_own_process(self, names, size):
        """W2 in fresh processes that import one contender each (`from gradcli import torch`
        for gradcli), alternating the contenders: the warm steps, the cold first step of
        each process, and the minor page faults of a warm step."""
        rounds, reps = self.cfg["w2_own"]
        warm = ({n: [] for n in names}, {n: [] for n in names})
        cold = ({n: [] for n in names}, {n: [] for n in names})
        faults = {n: [] for n in names}
        for r in range(rounds):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                out = json.loads(run_process([sys.executable, "-m", "benchmarks.workloads", "w2", name, str(size),
                                              str(reps)], REPO)[2])
                warm[0][name] += out["wall"]
                warm[1][name] += out["cpu"]
                cold[0][name].append(out["cold"]["wall"])
                cold[1][name].append(out["cold"]["cpu"])
                faults[name] += out["faults"]
        self.add_row("w2own", "W2, each in a process of its own (warm steps)", "ms", 1e3, warm)
        self.add_row("w2own_cold", "W2, each in a process of its own: cold first step", "ms", 1e3, cold)
        self.memory.append(dict(key="w2own_faults", label="W2 own process: minor page faults per warm step",
                                unit="faults", value={n: med(v) for n, v in faults.items()}))

    # -- W3 ------------------------------------------------------------------------------
    def w3(self):
        batch, width = self.cfg["w3"]
        names = W.contenders()
        fns = {name: W.make_w3(name, batch, width) for name in names}
        if "torch" in fns:
            fns["torch[1 thread]"] = _one_thread(W.make_w3("torch", batch, width))
        self.log(f"W3 batch={batch} width={width}")
        samples = interleaved(fns, self.cfg["w3_reps"])
        self.add_row("w3", f"W3 MLP 4×{width}, batch {batch}, 1 SGD step", "ms", 1e3, samples,
                     diagnostic=["torch[1 thread]"])
        peaks = {}
        for name in names:
            if name == "torch":
                continue
            step = W.make_w3(name, batch, width)
            step()
            peaks[name] = traced_peak(step)
        self.memory.append(dict(key="w3_tracemalloc", label="W3: tracemalloc peak of one step", unit="MiB",
                                value={k: v / 2**20 for k, v in peaks.items()}))

    # -- W5 ------------------------------------------------------------------------------
    def w5(self, tmp):
        names = W.contenders(("gradcli", "torch", "numpy"))
        for mode, what in (("none", "forward + backward"), ("sgd", "+ SGD momentum step"),
                           ("adam", "+ Adam step")):
            fns = {name: W.make_w5(name, mode) for name in names}
            self.log(f"W5 {mode}")
            self.add_row(f"w5_{mode}", f"W5 MLP 3×{W.W5_WIDTH}, batch {W.W5_BATCH}: {what}", "µs/step", 1e6,
                         interleaved(fns, self.cfg["w5_reps"]), per=W.W5_STEPS)
        path = os.path.join(tmp, "w5.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(W.w5_script())
        cmds = {"gradcli": [sys.executable, "-m", "gradcli", "run", "--plain", path]}
        if "torch" in names:
            cmds["torch"] = [sys.executable, path]
        self.log("W5 script")
        samples, outputs = interleaved_processes(cmds, self.cfg["w5_runs"], tmp)
        self.add_row("w5_script", f"W5 as a script, {W.W5_STEPS} steps, end to end", "s", 1, samples)
        if "torch" in names and outputs["gradcli"] != outputs["torch"]:
            self.notes.append(f"w5 script: stdout differs: gradcli {outputs['gradcli'].strip()!r} "
                              f"vs torch {outputs['torch'].strip()!r}")

    # -- W4: whole processes -----------------------------------------------------------------
    def w4(self, tmp):
        py = sys.executable
        scripts = {"seed": W.seed_script(),
                   "chain_lines": W.chain_lines_script(self.cfg["chain_ops"]),
                   "chain_loop": W.chain_loop_script(self.cfg["chain_ops"])}
        paths = {}
        for key, text in scripts.items():
            paths[key] = os.path.join(tmp, f"{key}.py")
            with open(paths[key], "w", encoding="utf-8") as f:
                f.write(text)
        have_torch = W.load("torch") is not None
        for key, runs in (("seed", self.cfg["seed_runs"]), ("chain_lines", self.cfg["chain_runs"]),
                          ("chain_loop", self.cfg["chain_runs"])):
            cmds = {"gradcli": [py, "-m", "gradcli", "run", "--plain", paths[key]]}
            if have_torch:
                cmds["torch"] = [py, paths[key]]
            if key == "seed":
                cmds["python -c 'import numpy'"] = [py, "-c", "import numpy"]
            self.log(f"W4 {key}")
            samples, outputs = interleaved_processes(cmds, runs, tmp)
            label = {"seed": "W4 start-up: examples/seed000_block1.py (retain_graph)",
                     "chain_lines": f"W4 W1 chain script, {self.cfg['chain_ops']:,} straight lines",
                     "chain_loop": f"W4 W1 chain script, {self.cfg['chain_ops']:,}-iteration for loop"}[key]
            self.add_row(f"w4_{key}", label, "s", 1, samples,
                         diagnostic=["python -c 'import numpy'"])
            if have_torch and outputs["gradcli"] != outputs["torch"]:
                self.notes.append(f"{key}: stdout differs: gradcli {outputs['gradcli'].strip()!r} "
                                  f"vs torch {outputs['torch'].strip()!r}")

    # -- parsing -------------------------------------------------------------------------
    def parse(self):
        """`dialect.parse`, the one entry every front end parses through, on the W1 chain
        script: as plain Python (CPython's parser, then gradcli's walk of the tree) and
        with its last line written `print x.grad`, which makes it the concise dialect
        (CPython's parser fails, then the Lark grammar and the translation into Python's
        tree). The cyclic GC is off while parsing, as in `gradcli run`."""
        from gradcli.lang import dialect
        dialect.parse(W.dialect_script(3))          # loads (or builds and caches) the Lark tables
        result = {}
        for path, script in (("python", W.chain_lines_script), ("dialect", W.dialect_script)):
            for n in self.cfg["parse_lines"]:
                text = script(n)
                lines = text.count("\n")
                times = []
                for _ in range(self.cfg["parse_reps"][n]):
                    gc.collect()
                    gc.disable()
                    t0 = time.perf_counter()
                    program = dialect.parse(text)
                    times.append(time.perf_counter() - t0)
                    gc.enable()
                    assert program.dialect == (path == "dialect"), path
                    del program
                result[f"{path} {n}"] = dict(parser=path, lines=lines, seconds=med(times),
                                             lines_per_s=lines / med(times))
                self.log(f"  parse ({path}) {lines:,} lines: {med(times):.2f} s, {lines / med(times):,.0f} lines/s")
        self.extra["parse"] = result

    def run(self):
        t_start = time.time()
        self.extra["load_before"] = os.getloadavg()
        for key in ("w1", "w2", "w3"):
            if self.want(key):
                getattr(self, key)()
        for key in ("w4", "w5"):
            if self.want(key):
                with tempfile.TemporaryDirectory(prefix="gradcli-bench-") as tmp:
                    getattr(self, key)(tmp)
        if self.want("parse"):
            self.parse()
        self.extra["load_after"] = os.getloadavg()
        self.extra["wall_s"] = time.time() - t_start


def _one_thread(fn):
    """PyTorch restricted to one intra-op thread (diagnostic: on a loaded 2-core machine
    PyTorch's two threads wait on each other)."""
    torch = W.load("torch")

    def call():
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn()
        finally:
            torch.set_num_threads(n)
    return call


def _gc_off(fn):
    def call():
        gc.disable()
        try:
            return fn()
        finally:
            gc.enable()
    return call

# ----------------------------------------------------------------------------- report


def _fmt(v):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = "| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    return "\n".join([line, sep, *body])


def report(suite):
    out = []
    cols = []
    for row in suite.rows:
        for n in row["median"]:
            if n not in cols:
                cols.append(n)
    order = ["gradcli", "torch", "numpy", "numpy-fast", "autograd", "mygrad"]
    cols = [c for c in order if c in cols] + [c for c in cols if c not in order]
    if suite.rows:
        headers = ["workload (median)", "unit", *cols, "gradcli/torch", "gradcli/numpy", "reps"]
        rows = []
        for row in suite.rows:
            m = row["median"]
            best_np = min((m[k] for k in ("numpy", "numpy-fast") if k in m), default=None)
            r_np = _ratio(m.get("gradcli"), m.get("numpy"))
            r_np_text = _fmt(r_np) if r_np is not None else "—"
            if "numpy-fast" in m:
                r_np_text += f" (fast {_fmt(_ratio(m.get('gradcli'), best_np))})"
            rows.append([row["label"], row["unit"], *(_fmt(m.get(c)) for c in cols),
                         _fmt(_ratio(m.get("gradcli"), m.get("torch"))), r_np_text, row["reps"]])
        out.append(table(headers, rows))
        rows = []
        for row in suite.rows:
            m = row["cpu_median"]
            rows.append([row["label"], row["unit"], *(_fmt(m.get(c)) for c in cols),
                         _fmt(_ratio(m.get("gradcli"), m.get("torch"))), _fmt(_ratio(m.get("gradcli"), m.get("numpy"))),
                         row["reps"]])
        out.append("")
        out.append("CPU time (user+sys of all threads; less sensitive than wall to a loaded machine):")
        out.append(table(["workload (median CPU)", "unit", *cols, "gradcli/torch", "gradcli/numpy", "reps"], rows))
    if suite.memory:
        mcols = []
        for row in suite.memory:
            for n in row["value"]:
                if n not in mcols:
                    mcols.append(n)
        mcols = [c for c in order if c in mcols] + [c for c in mcols if c not in order]
        headers = ["memory", "unit", *mcols, "gradcli/numpy", "gradcli/torch"]
        rows = []
        for row in suite.memory:
            v = row["value"]
            rows.append([row["label"], row["unit"], *(_fmt(v.get(c)) for c in mcols),
                         _fmt(_ratio(v.get("gradcli"), v.get("numpy"))),
                         _fmt(_ratio(v.get("gradcli"), v.get("torch")))])
        out.append("")
        out.append(table(headers, rows))
    if "parse" in suite.extra:
        p = suite.extra["parse"]
        rows = [[d["parser"], f"{d['lines']:,}", f"{d['seconds']:.3f}", f"{d['lines_per_s']:,.0f}"]
                for d in p.values()]
        out.append("")
        out.append(table(["parser", "lines", "s", "lines/s"], rows))
    goals = _goals(suite)
    if goals:
        out.append("")
        out.append(table(["goal", "measured", "target", "met"], goals))
    for note in suite.notes:
        out.append("note: " + note)
    e = suite.extra
    out.append("")
    threads = os.environ.get("GRADCLI_BENCH_THREADS")
    if threads:
        out.append(f"threads capped at {threads} (--threads)")
    out.append(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
               f"NumPy {np.__version__}" + (f", torch {_torch_version()}" if _torch_version() else "")
               + f"; load average before {e['load_before'][0]:.2f}, after {e['load_after'][0]:.2f}; "
               f"suite wall {e['wall_s']:.0f} s")
    return "\n".join(out)


def _torch_version():
    t = W.load("torch")
    return getattr(t, "__version__", None) if t is not None else None


def _row(suite, key, kind="median"):
    """The medians of a timing row by contender (kind="cpu_median": of CPU time)."""
    for r in suite.rows:
        if r["key"] == key:
            return r[kind]
    return {}


def _mem(suite, key):
    for r in suite.memory:
        if r["key"] == key:
            return r["value"]
    return {}


def _goals(suite):
    g = []

    def check(name, value, target, ok, cpu=None):
        """cpu: (text, ok) of the same figure in CPU time, shown beside the wall figure; on a
        loaded machine a goal can hold in CPU time and miss in wall time ("CPU only")."""
        if value is not None:
            met = "yes" if ok else "CPU only" if cpu is not None and cpu[1] else "NO"
            g.append([name, value if cpu is None else f"{value} (CPU {cpu[0]})", target, met])

    def ratio_goal(name, key, target, a="gradcli", b="torch"):
        m, c = _row(suite, key), _row(suite, key, "cpu_median")
        r, rc = _ratio(m.get(a), m.get(b)), _ratio(c.get(a), c.get(b))
        if r is not None:
            check(name, f"{r:.2f}", f"≤ {target}", r <= target, None if rc is None else (f"{rc:.2f}", rc <= target))

    seed = _row(suite, "w4_seed")
    if seed.get("gradcli") is not None:
        cpu = _row(suite, "w4_seed", "cpu_median")["gradcli"]
        check("start-up: gradcli ms (median wall)", f"{seed['gradcli'] * 1e3:.0f} ms", "≤ 100 ms",
              seed["gradcli"] <= 0.100, (f"{cpu * 1e3:.0f} ms", cpu <= 0.100))
        ratio_goal("start-up: gradcli / python+torch", "w4_seed", 0.1)
    sizes = sorted(int(r["key"][3:]) for r in suite.rows if r["key"].startswith("w1_"))
    for n in sizes:
        for key, where in (("w1", "one process"), ("w1own", "own processes")):
            ratio_goal(f"W1 {n:,} ops ({where}): gradcli / torch per op", f"{key}_{n}", 0.6)
        m, c = _row(suite, f"w1own_{n}"), _row(suite, f"w1own_{n}", "cpu_median")
        if m.get("gradcli") is not None:
            check(f"W1 {n:,} ops (library, own process): gradcli µs per op", f"{m['gradcli']:.2f} µs", "≤ 4.4 µs",
                  m["gradcli"] <= 4.4, (f"{c['gradcli']:.2f} µs", c["gradcli"] <= 4.4))
    if len(sizes) >= 2:
        for key, where in (("w1", "one process"), ("w1own", "own processes")):
            r, rc = (_ratio(_row(suite, f"{key}_{sizes[-1]}", kind).get("gradcli"),
                            _row(suite, f"{key}_{sizes[0]}", kind).get("gradcli")) for kind in ("median", "cpu_median"))
            if r is not None:
                check(f"W1 linear ({where}): µs/op at {sizes[-1]:,} / at {sizes[0]:,}", f"{r:.2f}", "≤ 1.2",
                      r <= 1.2, None if rc is None else (f"{rc:.2f}", rc <= 1.2))
    for key, name, target in (("w4_chain_lines", "10,000 straight lines", 0.3),
                              ("w4_chain_loop", "10,000-iteration for loop", 0.15)):
        ratio_goal(f"W1 script ({name}): gradcli / python+torch", key, target)
    for key, where in (("w2", "benchmark's process"), ("w2own", "own process, warm")):
        ratio_goal(f"W2 ({where}): gradcli / torch", key, 1.0)
    for key in ("w2", "w2own"):
        r, rc = (_ratio(m.get("gradcli"), min((m[k] for k in ("numpy", "numpy-fast") if k in m), default=None))
                 for m in (_row(suite, key), _row(suite, key, "cpu_median")))
        if r is not None:
            check(f"W2{' (own process, warm)' if key == 'w2own' else ''}: gradcli / best hand-written NumPy",
                  f"{r:.2f}", "≤ 1.1", r <= 1.1, None if rc is None else (f"{rc:.2f}", rc <= 1.1))
    ratio_goal("W3: gradcli / torch", "w3", 1.0)
    for key, name, target in (("w5_none", "per step", 0.8), ("w5_sgd", "per step with SGD momentum", 0.8),
                              ("w5_adam", "per step with Adam", 0.8), ("w5_script", "script end to end", 0.25)):
        ratio_goal(f"W5 ({name}): gradcli / {'python+' if key == 'w5_script' else ''}torch", key, target)
    m = _mem(suite, "w2_rss")
    best = min((m[k] for k in ("numpy", "numpy-fast") if k in m), default=None)
    r = _ratio(m.get("gradcli"), m.get("numpy"))
    if r is not None:
        check("W2 peak RSS: gradcli / hand-written NumPy", f"{r:.2f} (vs fast {m['gradcli'] / best:.2f})",
              "≤ 1.3", r <= 1.3)
    p = suite.extra.get("parse", {})
    for path in ("python", "dialect"):
        runs = sorted((d["lines"], d["lines_per_s"]) for d in p.values() if d["parser"] == path)
        if len(runs) >= 2:
            r = runs[0][1] / runs[-1][1]
            check(f"parse ({path}) linear: s/line at {runs[-1][0]:,} / at {runs[0][0]:,} lines", f"{r:.2f}",
                  "≈ 1 (≤ 1.2)", r <= 1.2)
    return g

# ----------------------------------------------------------------------------- main

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and a smaller parse test")
    ap.add_argument("--json", metavar="PATH", help="also write every sample and figure as JSON")
    ap.add_argument("--only", metavar="LIST", help="comma-separated subset of w1,w2,w3,w4,w5,parse")
    ap.add_argument("--threads", type=int, metavar="N",
                    help="cap BLAS/OpenMP/PyTorch threads at N in every contender and child process "
                         "(default: the libraries' own choice, i.e. both cores)")
    args = ap.parse_args(argv)
    if args.threads and os.environ.get("GRADCLI_BENCH_THREADS") != str(args.threads):
        # the thread pools are sized when NumPy and PyTorch load: start again with the caps set
        env = dict(os.environ, GRADCLI_BENCH_THREADS=str(args.threads))
        for var in _THREAD_VARS:
            env[var] = str(args.threads)
        args_again = argv if argv is not None else sys.argv[1:]
        os.execve(sys.executable, [sys.executable, "-m", "benchmarks.run", *args_again], env)
    only = set(args.only.split(",")) if args.only else None
    cfg = QUICK if args.quick else FULL

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    log(f"contenders: {', '.join(W.contenders())} (missing: "
        f"{', '.join(n for n in W.ALL if n not in W.contenders()) or 'none'})")
    suite = Suite(cfg, only, log)
    suite.run()
    text = report(suite)
    print(text)
    if args.json:
        data = dict(config={k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                            for k, v in cfg.items()},
                    rows=suite.rows, memory=suite.memory, extra=suite.extra,
                    notes=suite.notes, goals=_goals(suite), table=text)
        tmp = f"{args.json}.{os.getpid()}.tmp"            # written whole, then renamed: never half a file
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
