"""pytest plugin: gradcli scripts as test items (`pytest examples/`, also with `pytest -n 2`).

Registered through the `pytest11` entry point `gradcli`, so it is active in every pytest run
of an environment where gradcli is installed; it is careful about what it collects:

* `*.grad` files are always collected (the extension is gradcli's own);
* a `*.py` file is collected only when it is a gradcli script by declaration: it lies under a
  folder listed in the `gradcli_paths` ini option (paths relative to the ini file), or its
  top comment block has a `# gradcli:` header line (options may be empty);
* never `conftest.py`, `__init__.py`, or a file that pytest collects as a Python test module
  (`python_files`, by default `test_*.py` and `*_test.py`).

Each script is one item, `path/to/script.py::gradcli`, judged exactly as `gradcli test` judges
it (see gradcli/testing/suite.py). A failure shows `path:line: message`, the script lines and the
diff. `# xfail: reason` becomes an xfail mark (so pytest reports xfailed / xpassed);
`# skip: reason` skips the item. `--gradcli-update` writes golden files (for a script given
by name on the command line it creates NAME.out), `--gradcli-oracle torch` adds the PyTorch
comparison. `-p no:gradcli` turns the plugin off.
"""
from __future__ import annotations

import fnmatch

import pytest


def pytest_addoption(parser):
    parser.addini("gradcli_paths", type="paths", default=[],
                  help="folders whose .py files are gradcli scripts to collect (.grad files are always collected)")
    group = parser.getgroup("gradcli", "gradcli scripts")
    group.addoption("--gradcli-update", action="store_true", default=False,
                    help="write or refresh the golden files (NAME.out, NAME.json) of the collected scripts")
    group.addoption("--gradcli-oracle", choices=["torch"], default=None,
                    help="also run .py scripts under real PyTorch and compare")
    group.addoption("--gradcli-timeout", type=float, default=None,
                    help="seconds per script (default 60; a `# gradcli: --timeout` header may only lower it)")


def pytest_configure(config):
    if config.getoption("gradcli_oracle"):
        from gradcli.testing import oracle
        if not oracle.available():        # a comparison that cannot run is not a pass
            raise pytest.UsageError("--gradcli-oracle torch: PyTorch is not importable here "
                                    "(pip install torch==2.13.0, or gradcli's test extra)")


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".grad":
        return GradcliFile.from_parent(parent, path=file_path)
    if file_path.suffix == ".py" and not parent.session.isinitpath(file_path) \
            and _is_script(file_path, parent.config):
        return GradcliFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    # pytest's Python plugin collects every .py file named on the command line as a test
    # module (whatever python_files says) and would import it: a gradcli script is ours instead.
    if parent.session.isinitpath(module_path) and _is_script(module_path, parent.config):
        return GradcliFile.from_parent(parent, path=module_path)
    return None


def _is_script(path, config):
    if path.name in ("conftest.py", "__init__.py"):
        return False
    if any(fnmatch.fnmatch(path.name, pat) for pat in config.getini("python_files")):
        return False
    resolved = path.resolve()
    for folder in config.getini("gradcli_paths"):
        try:
            resolved.relative_to(folder.resolve())
            return True
        except ValueError:
            pass
    from gradcli.session.sourcefile import SourceError, read_source
    try:
        lines = read_source(path).decode("utf-8-sig", "replace").splitlines()   # only the header matters
    except SourceError:
        return False
    head = []
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            break
        head.append(line + "\n")
    from gradcli.testing.suite import is_marked
    return is_marked("".join(head))


class GradcliFailure(Exception):
    def __init__(self, result):
        super().__init__(result.id)
        self.result = result


class GradcliFile(pytest.File):
    def collect(self):
        item = GradcliItem.from_parent(self, name="gradcli")
        from gradcli.session.sourcefile import SourceError, read_source
        from gradcli.testing.suite import parse_header, HeaderError
        try:
            header = parse_header(read_source(self.path).decode("utf-8-sig"))
        except (SourceError, UnicodeDecodeError, ValueError):
            header = None          # the item reports it when it runs
        except HeaderError:
            header = None
        if header is not None and header.xfail is not None and header.skip is None:
            item.add_marker(pytest.mark.xfail(reason=header.xfail, strict=False, raises=GradcliFailure))
        yield item


class GradcliItem(pytest.Item):
    def runtest(self):
        from gradcli.testing import suite as testing
        config = self.config
        script = testing.Script(str(self.path), self._display_id(),
                                explicit=self.session.isinitpath(self.path))
        timeout = config.getoption("gradcli_timeout") or testing.DEFAULT_TIMEOUT
        options = testing.Options(update=config.getoption("gradcli_update"),
                                  oracle=config.getoption("gradcli_oracle"), timeout=timeout)
        result = testing.run_script(script, options, apply_xfail=False)
        self.result = result
        for u in result.updated:
            self.add_report_section("call", "gradcli", f"wrote {u}")
        if result.outcome == "skipped":
            pytest.skip(result.reason)
        if result.outcome == "failed":
            raise GradcliFailure(result)

    def _display_id(self):
        try:
            return self.path.relative_to(self.config.rootpath).as_posix()
        except ValueError:
            return str(self.path)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, GradcliFailure):
            from gradcli.testing import suite as testing
            return testing.failure_text(excinfo.value.result, title=False)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, self._display_id()
