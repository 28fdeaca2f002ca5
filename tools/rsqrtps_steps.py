"""Read this CPU's rsqrtps estimates and print them as gradcli/engine/vml.py's _RSQRTPS_STEPS.

    python tools/rsqrtps_steps.py            # print the encoded table
    python tools/rsqrtps_steps.py --check    # exit 1 if it differs from gradcli/engine/vml.py's

Needs an x86-64 CPU and a C compiler (`cc`). rsqrtps is an estimate each CPU design
computes its own way (the shipped table is AMD EPYC's): it depends only on the exponent's
parity and the top 12 mantissa bits, so one input per table entry is read, for x in [1, 4).
"""
from __future__ import annotations

import base64
import subprocess
import sys
import tempfile
import textwrap
import zlib
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
PROGRAM = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    for (uint32_t i = 0; i < 8192; i++) {
        uint32_t bits = 0x3f800000u + (i << 11);        /* x in [1, 4), one per entry */
        float x, y;
        memcpy(&x, &bits, 4);
        _mm_store_ss(&y, _mm_rsqrt_ss(_mm_set_ss(x)));
        memcpy(&bits, &y, 4);
        printf("%u\n", bits);
    }
    return 0;
}
"""


def read_estimates():
    with tempfile.TemporaryDirectory() as tmp:
        source, binary = Path(tmp) / "rsqrtps.c", Path(tmp) / "rsqrtps"
        source.write_text(PROGRAM)
        subprocess.run(["cc", "-O1", "-msse", str(source), "-o", str(binary)], check=True)
        out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    return np.array(out.split(), np.uint32)


def encode(estimates):
    if not ((estimates >> 23) == 126).all() or (estimates & 0x7FF).any():
        raise SystemExit("these estimates are not 12-bit mantissas in [0.5, 1): vml.py cannot hold them")
    mantissa = ((estimates >> 11) & 0xFFF).astype(np.int16)
    if mantissa[0] != 4095 or not np.isin(np.diff(mantissa), (-2, -1, 0)).all():
        raise SystemExit("these estimates do not step down by 0, 1 or 2 from 4095: vml.py cannot hold them")
    return base64.b64encode(zlib.compress(np.diff(mantissa).astype(np.int8).tobytes(), 9)).decode()


def main(argv):
    text = encode(read_estimates())
    if "--check" in argv:
        sys.path.insert(0, str(REPO))
        from gradcli.engine import vml
        same = text == "".join(vml._RSQRTPS_STEPS)
        print("same as gradcli/engine/vml.py" if same else "differs from gradcli/engine/vml.py")
        return 0 if same else 1
    print("\n".join(f'    "{line}"' for line in textwrap.wrap(text, 92)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
