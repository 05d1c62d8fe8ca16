#!/usr/bin/env python3
"""A minimum-version check for Python 3.6 (vermin is not in Debian 12):
walks the AST of every module under DIR and fails on syntax or standard
library names newer than 3.6 that a 3.6 interpreter would only trip over
on the line that runs (import-time failures are caught by importing the
package on every interpreter the machine has)."""

import ast
import os
import sys

# Modules and attributes first in 3.7 or later, with the version.
NEW_MODULES = {"dataclasses": "3.7", "contextvars": "3.7", "importlib.resources": "3.7",
               "importlib.metadata": "3.8", "zoneinfo": "3.9", "graphlib": "3.9", "tomllib": "3.11"}
NEW_ATTRIBUTES = {("asyncio", "run"): "3.7", ("asyncio", "create_task"): "3.7",
                  ("asyncio", "get_running_loop"): "3.7", ("contextlib", "nullcontext"): "3.7",
                  ("contextlib", "asynccontextmanager"): "3.7", ("functools", "cached_property"): "3.8",
                  ("typing", "Literal"): "3.8", ("typing", "Protocol"): "3.8", ("typing", "TypedDict"): "3.8",
                  ("typing", "Final"): "3.8", ("math", "prod"): "3.8", ("math", "isqrt"): "3.8",
                  ("shlex", "join"): "3.8", ("time", "clock_gettime_ns"): "3.7", ("os", "waitstatus_to_exitcode"): "3.9",
                  }
# Called without a getattr() guard: time.monotonic_ns is used through one.
GUARDED = {("time", "monotonic_ns"), ("time", "time_ns")}


def check(path):
    problems = []
    src = open(path, encoding="utf-8").read()
    tree = ast.parse(src, path)
    for node in ast.walk(tree):
        where = "%s:%d" % (path, getattr(node, "lineno", 0))
        if type(node).__name__ == "NamedExpr":
            problems.append(where + ": := needs 3.8")
        if isinstance(node, ast.ImportFrom):
            if node.module == "__future__" and any(a.name == "annotations" for a in node.names):
                problems.append(where + ": from __future__ import annotations needs 3.7")
            if node.module in NEW_MODULES:
                problems.append(where + ": %s needs %s" % (node.module, NEW_MODULES[node.module]))
            for a in node.names:
                if (node.module, a.name) in NEW_ATTRIBUTES:
                    problems.append(where + ": %s.%s needs %s" % (node.module, a.name,
                                                                  NEW_ATTRIBUTES[(node.module, a.name)]))
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in NEW_MODULES:
                    problems.append(where + ": %s needs %s" % (a.name, NEW_MODULES[a.name]))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            key = (node.value.id, node.attr)
            if key in NEW_ATTRIBUTES:
                problems.append(where + ": %s.%s needs %s" % (key[0], key[1], NEW_ATTRIBUTES[key]))
            if key in GUARDED:
                problems.append(where + ": %s.%s needs 3.7 (use getattr with a fallback)" % key)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if getattr(node.args, "posonlyargs", []):
                problems.append(where + ": positional-only parameters need 3.8")
        if isinstance(node, ast.JoinedStr) and "=}" in (ast.get_source_segment(src, node) or ""):
            problems.append(where + ": f-string '=' needs 3.8")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess":
            for k in node.keywords:
                if k.arg in ("capture_output", "text"):
                    problems.append(where + ": subprocess.run(%s=) needs 3.7" % k.arg)
        if type(node).__name__ == "Match":
            problems.append(where + ": match needs 3.10")
    return problems


def main():
    problems = []
    for root, _, files in os.walk(sys.argv[1]):
        for f in sorted(files):
            if f.endswith(".py"):
                problems += check(os.path.join(root, f))
    for p in problems:
        print(p)
    print("check_floor: %d problem(s) for Python 3.6" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
