"""Run one Python snippet with `torch` bound to real PyTorch or to gradcli.torch, and return
what it printed, its warnings and its uncaught exception, as text to compare."""
import contextlib
import hashlib
import io
import re
import textwrap
import warnings

import numpy as np

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def bits(t):
    """A short digest of a tensor's exact bytes, dtype and shape (equal digests: equal bits)."""
    a = np.ascontiguousarray(t.detach().numpy())
    return f"{a.dtype}{list(a.shape)}:{hashlib.sha1(a.tobytes()).hexdigest()[:16]}"


def run(lib, code, **names):
    out = io.StringIO()

    def show(message, category, *args, **kwargs):
        print(f"{category.__name__}: {message}")

    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        warnings.showwarning = show
        try:
            exec(textwrap.dedent(code), {"torch": lib, "np": np, "bits": bits, **names})
        except Exception as e:          # the snippet's uncaught error is part of what it shows
            print(f"{type(e).__name__}: {e}")
    return _ADDRESS.sub(" at 0x…", out.getvalue())
