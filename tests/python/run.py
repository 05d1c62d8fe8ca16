#!/usr/bin/env python3
"""Runs one of the Python package's tests for meson, with Debian's
/usr/bin/python3 (python3 on PATH may be a pyenv without Debian's modules).
Exits 77 (skip) only when a tool the test needs is not installed.

  run.py units                unit tests (no bus)
  run.py pytest FILE          pytest FILE against jetsond (JETSOND, JETSONCTL in the environment)
  run.py mypy                 mypy --strict over the package and the tests
  run.py floor                the unit tests and a byte-compile on every Python found, and the AST check
  run.py pip                  pip install into a venv with no network and no compiler"""

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
PACKAGE = os.path.join(SOURCE, "python")
PY = "/usr/bin/python3"
DIST = "/usr/lib/python3/dist-packages"


def need_module(*names):
    for n in names:
        if importlib.util.find_spec(n) is None:
            print("skip: Python module %s is not installed (scripts/install-deps.sh)" % n)
            sys.exit(77)


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw).returncode


def units():
    return (run([PY, os.path.join(HERE, "test_units.py")]) or run([PY, os.path.join(HERE, "test_tiers_units.py")])
            or run([PY, os.path.join(HERE, "test_stream_units.py")]))


def pytest(path):
    need_module("pytest", "jeepney", "numpy", "dbusmock")
    return run([PY, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", os.path.join(HERE, path)])


def mypy():
    if shutil.which("mypy") is None:
        print("skip: mypy is not installed")
        return 77
    cfg = os.path.join(PACKAGE, "pyproject.toml")
    code = run(["mypy", "--config-file", cfg, "--cache-dir", tempfile.mkdtemp(prefix="mypy."),
                os.path.join(PACKAGE, "jetsond")])
    # The examples in docs/python.md and the tests type-check against the package.
    env = dict(os.environ, MYPYPATH=PACKAGE)
    code |= run(["mypy", "--config-file", cfg, "--cache-dir", tempfile.mkdtemp(prefix="mypy."),
                 "--allow-untyped-defs", "--allow-untyped-calls", "--ignore-missing-imports",
                 os.path.join(HERE, "test_units.py"), os.path.join(HERE, "test_tiers_units.py"),
                 os.path.join(HERE, "test_stream_units.py")] +
                [os.path.join(HERE, "examples", f) for f in ("quickstart.py", "jtop_loop.py", "jtop_callback.py",
                                                             "collector_log.py", "collector_daemon.py")],
                env=env)
    # Not jtop_control.py: jtop's documented `jetson.jetson_clocks = not jetson.jetson_clocks`
    # then `jetson.jetson_clocks.boot = True` assigns a bool to a property that reads back an
    # object, which mypy narrows to bool.
    return code


def floor():
    """Python 3.6 is the floor (JetPack 4.6): the package's syntax and
    standard-library use checked by an AST walk (newer syntax and names),
    then the unit tests run on every interpreter the machine has (pyenv
    builds; Debian's jeepney and numpy are pure enough to import from a
    path of their own where the interpreter has none)."""
    code = run([PY, os.path.join(HERE, "check_floor.py"), os.path.join(PACKAGE, "jetsond")])
    found = sorted(glob.glob("/root/.pyenv/versions/3.*/bin/python3")) + [PY]
    jeepney_only = tempfile.mkdtemp(prefix="jeepney.")
    os.symlink(os.path.join(DIST, "jeepney"), os.path.join(jeepney_only, "jeepney"))
    ran = []
    for py in found:
        version = subprocess.run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True).stdout.strip()
        env = dict(os.environ, PYTHONPATH=jeepney_only, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONHOME", None)
        c = run([py, "-c", "import jetsond, jetsond.jtop, jetsond.measure; print(jetsond.__version__)"],
                 env=dict(env, PYTHONPATH=PACKAGE + os.pathsep + jeepney_only))
        c |= run([py, os.path.join(HERE, "test_units.py")], env=env)
        c |= run([py, os.path.join(HERE, "test_tiers_units.py")], env=env)
        c |= run([py, os.path.join(HERE, "test_stream_units.py")], env=env)
        print("%s Python %s: %s" % ("ok  " if c == 0 else "FAIL", version, py), flush=True)
        ran.append(version)
        code |= c
    print("floor: unit tests ran on Python " + ", ".join(ran))
    return code


def pip():
    """pip install ./python into a fresh venv: no network (--no-index), no
    compiler, no build isolation (setuptools from the system); jeepney from
    Debian through --system-site-packages, as PyPI would give it."""
    need_module("venv", "jeepney")
    d = tempfile.mkdtemp(prefix="jetsond-venv.")
    try:
        venv = os.path.join(d, "venv")
        code = run([PY, "-m", "venv", "--system-site-packages", venv])
        vpy = os.path.join(venv, "bin", "python")
        env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", CC="/bin/false")
        # From a copy: setuptools writes build/ and *.egg-info next to the sources.
        src = os.path.join(d, "src")
        shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        code |= run([vpy, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", src], env=env,
                    cwd=d)
        check = ("import jetsond, os, sys; f = jetsond.__file__; assert f.startswith(sys.prefix), f;"
                 "assert os.path.exists(os.path.join(os.path.dirname(f), 'py.typed'));"
                 "from jetsond.jtop import jtop; print('installed', f)")
        code |= run([vpy, "-c", check], cwd=d)
        code |= run([vpy, "-m", "pip", "uninstall", "-q", "-y", "jetsond"], env=env, cwd=d)
        code |= 0 if run([vpy, "-c", "import jetsond"], cwd=d, stderr=subprocess.DEVNULL) != 0 else 1
        return code
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    kind = sys.argv[1]
    if kind == "units":
        return units()
    if kind == "pytest":
        return pytest(sys.argv[2])
    if kind == "mypy":
        return mypy()
    if kind == "floor":
        return floor()
    if kind == "pip":
        return pip()
    raise SystemExit("unknown test " + kind)


if __name__ == "__main__":
    sys.exit(main())
