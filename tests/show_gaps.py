"""What each known gap of test_ops_oracle still differs in: `python tests/show_gaps.py [substring]`.

Runs the op cases listed in known_gaps.py (optionally only ids containing the substring)
and prints PASS, or FAIL with every difference check_op found. For the other suites use
`GRADCLI_SHOW_GAPS=1 python -m pytest <node ids>`, which turns the strict xfails off."""
import sys, os
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's gradcli, not an installed one
os.environ["GRADCLI_SHOW_GAPS"] = "1"
import test_ops_oracle as T
from op_oracle import check_op
from known_gaps import KNOWN_GAPS
pat = sys.argv[1] if len(sys.argv) > 1 else ""
for p in T.CASES:
    nid = f"tests/test_ops_oracle.py::test_op[{p.id}]"
    if nid not in KNOWN_GAPS or pat not in p.id:
        continue
    expr, specs, kw = p.values
    try:
        check_op(T.make_fn(expr), *specs, **kw)
        print("PASS", p.id)
    except AssertionError as e:
        lines = str(e).splitlines()
        print("FAIL", p.id); print("   " + "\n   ".join(l[:300] for l in lines if l.startswith("*")))
