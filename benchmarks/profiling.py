"""Where gradcli spends its time: `python -m benchmarks.profiling [w1|w2|w3|w5|w5-sgd|w5-adam] [--n N] [--size S] [--pyinstrument]`.

cProfile of gradcli on one workload (after one untimed warm-up), printing the top
functions by cumulative and by own CPU time (the thread's: with wall time, a busy machine
charges its waits to whichever function was running); with --pyinstrument, pyinstrument's
call tree instead (pip install pyinstrument). cProfile's own overhead inflates per-call costs of
small functions: read the shares, not the absolute times.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import sys
import time

from . import workloads as W


def step_for(workload, n, size):
    if workload == "w1":
        return W.make_w1("gradcli", n), 3
    if workload == "w2":
        return W.make_w2("gradcli", size)[0], 5
    if workload == "w3":
        return W.make_w3("gradcli"), 10
    if workload in ("w5", "w5-sgd", "w5-adam"):
        mode = {"w5": "none", "w5-sgd": "sgd", "w5-adam": "adam"}[workload]
        return W.make_w5("gradcli", mode), 3
    raise SystemExit(f"unknown workload {workload}")


def gc_share(step, reps):
    """Time in Python's cyclic garbage collector during `reps` unprofiled steps."""
    pauses = []
    started = [0.0]

    def callback(phase, info):
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - started[0]))

    gc.collect()
    gc.callbacks.append(callback)
    t0 = time.perf_counter()
    try:
        for _ in range(reps):
            step()
    finally:
        total = time.perf_counter() - t0
        gc.callbacks.remove(callback)
    in_gc = sum(p for _, p in pauses)
    by_gen = {g: sum(1 for gg, _ in pauses if gg == g) for g in (0, 1, 2)}
    print(f"=== without profiler: {total / reps * 1e3:.1f} ms per step; cyclic GC {in_gc / total:.0%} of it "
          f"({len(pauses)} collections: gen0 {by_gen[0]}, gen1 {by_gen[1]}, gen2 {by_gen[2]}) ===")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.profiling", description=__doc__.splitlines()[0])
    ap.add_argument("workload", choices=("w1", "w2", "w3", "w5", "w5-sgd", "w5-adam"))
    ap.add_argument("--n", type=int, default=10_000, help="W1 chain length (default 10,000)")
    ap.add_argument("--size", type=int, default=1_000_000, help="W2 vector size (default 1e6)")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--pyinstrument", action="store_true")
    ap.add_argument("--gc-off", action="store_true",
                    help="profile with the cyclic GC disabled (GC pauses are otherwise charged to "
                         "whichever function allocates when a collection triggers)")
    args = ap.parse_args(argv)
    step, reps = step_for(args.workload, args.n, args.size)
    step()                                   # warm-up: imports, caches
    gc_share(step, reps)
    if args.gc_off:
        gc.disable()
    if args.pyinstrument:
        from pyinstrument import Profiler
        prof = Profiler(interval=0.0005)
        prof.start()
        for _ in range(reps):
            step()
        prof.stop()
        print(prof.output_text(unicode=True, color=False, show_all=False))
        return 0
    prof = cProfile.Profile(time.thread_time)     # CPU time: a busy machine's waits are nobody's
    prof.enable()
    for _ in range(reps):
        step()
    prof.disable()
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(key)
        stats.print_stats(args.top)
        text = buf.getvalue()
        print(f"=== gradcli {args.workload}: {reps} repetitions, top {args.top} by {key} ===")
        print(text[text.index("   ncalls"):] if "   ncalls" in text else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
