"""Test-suite wiring: the known PyTorch differences of tests/known_gaps.py are strict xfails."""
import os

import pytest

from known_gaps import KNOWN_GAPS


def pytest_collection_modifyitems(config, items):
    if os.environ.get("GRADCLI_SHOW_GAPS"):       # see what each known gap still differs in
        return
    for item in items:
        reason = KNOWN_GAPS.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
