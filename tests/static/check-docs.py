#!/usr/bin/env python3
"""The README and docs/ are checked like code: every link of README.md and
docs/*.md points at a file or folder that exists, and an #anchor at a
heading of its page; every page of docs/ is reached by links from the
README; the README stays a front door of at most README_MAX_LINES lines and
opens with its two commands (the second is what .ci/run runs).
Before judging the tree, it judges small broken trees made on the spot (a
dead link, picture or anchor, an orphan page, a long README, the commands
not first), so a checker that stopped finding anything fails too.

    check-docs.py SOURCE_DIR"""

import os
import re
import sys
import tempfile

README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\[\]]*\]\(\s*<?([^)\s>]+)>?\s*\)")  # also inside a link: [![alt](img)](page)
HTML_REF = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.I)


def slugs(text):
    """GitHub's anchors for a page's headings: lower case, punctuation
    dropped, spaces to hyphens, a repeated one numbered."""
    seen, out = {}, set()
    for line in FENCE.sub("", text).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(text):
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return LINK.findall(prose) + IMAGE.findall(prose) + HTML_REF.findall(prose)


def front_commands(source):
    """The README opens with the two commands for a fresh machine, first
    and true: its first code block is `sh scripts/main-job.sh` and
    `sh scripts/run-tests.sh` (each with its comment), both scripts exist,
    and .ci/run, the CI, runs the second."""
    with open(os.path.join(source, "README.md")) as f:
        text = f.read()
    first = FENCE.search(text)
    if first and any(line.strip() and not line.startswith("#") for line in text[:first.start()].splitlines()):
        return ["README.md: something comes before its two commands (only the title may)"]
    commands = [line.split("#")[0].strip() for line in first.group(0).splitlines()[1:-1]] if first else []
    want = ["sh scripts/main-job.sh", "sh scripts/run-tests.sh"]
    if commands != want:
        return [f"README.md: its first code block is {commands}, not the two commands {want}"]
    problems = [f"README.md: {c} names a script that does not exist" for c in want
                if not os.path.isfile(os.path.join(source, c.split()[1]))]
    ci = os.path.join(source, ".ci", "run")
    if not os.path.isfile(ci) or not re.search(r"^exec sh scripts/run-tests\.sh\s*$", open(ci).read(), re.M):
        problems.append(".ci/run does not run the README's test command (sh scripts/run-tests.sh)")
    return problems


def check(source):
    source = os.path.abspath(source)
    problems = []
    readme = os.path.join(source, "README.md")
    docs = os.path.join(source, "docs")
    pages = [readme] + sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    with open(readme) as f:
        n = len(f.read().splitlines())
    if n > README_MAX_LINES:
        problems.append(f"README.md has {n} lines, more than its {README_MAX_LINES}: move the detail to a page of docs/")
    problems += front_commands(source)
    edges = {}
    for page in pages:
        with open(page) as f:
            text = f.read()
        rel = os.path.relpath(page, source)
        edges[page] = set()
        for target in links(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto:: not ours to check offline
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                problems.append(f"{rel}: link to {target}: {os.path.relpath(dest, source)} does not exist")
                continue
            if anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append(f"{rel}: link to {target}: an anchor into something that is not a page")
                    continue
                with open(dest) as f:
                    if anchor not in slugs(f.read()):
                        problems.append(f"{rel}: link to {target}: {os.path.relpath(dest, source)} has no heading #{anchor}")
            edges[page].add(dest)
    reached, todo = {readme}, [readme]
    while todo:
        for dest in edges.get(todo.pop(), ()):
            if dest in edges and dest not in reached:
                reached.add(dest)
                todo.append(dest)
    for page in pages:
        if page not in reached:
            problems.append(f"{os.path.relpath(page, source)}: no link from the README (or a page it reaches) leads here")
    return problems


FRONT = "```sh\nsh scripts/main-job.sh     # the demo\nsh scripts/run-tests.sh    # every test\n```\n"


def self_test():
    """Each kind of fault, planted in a small tree, must be found."""
    cases = {
        "dead link": ("[a](docs/a.md) [b](docs/missing.md)\n", {"a.md": "# A\n"}, "missing.md does not exist"),
        "dead picture": ("[![p](docs/gone.png)](docs/a.md)\n", {"a.md": "# A\n"}, "gone.png does not exist"),
        "dead anchor": ("[a](docs/a.md#nowhere)\n", {"a.md": "# A\n## Somewhere\n"}, "has no heading #nowhere"),
        "orphan page": ("[a](docs/a.md)\n", {"a.md": "# A\n", "b.md": "# B\n"}, "docs/b.md: no link"),
        "long README": ("[a](docs/a.md)\n" + "line\n" * (README_MAX_LINES - 4), {"a.md": "# A\n"}, "more than its"),
        "commands not first": ("[a](docs/a.md)\n" + FRONT, {"a.md": "# A\n"}, "comes before its two commands"),
        "sound tree": ("[a](docs/a.md#two-words) ![p](docs/p.png)\n`[x](nowhere.md)`\n",
                       {"a.md": "# A\n## Two words\n[back](../README.md) [here](#two-words)\n", "p.png": ""}, None),
    }
    failed = 0
    for name, (readme, docs, expect) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("docs", "scripts", ".ci"):
                os.mkdir(os.path.join(tmp, d))
            for script in ("scripts/main-job.sh", "scripts/run-tests.sh"):
                open(os.path.join(tmp, script), "w").close()
            with open(os.path.join(tmp, ".ci", "run"), "w") as f:
                f.write("#!/bin/sh\nexec sh scripts/run-tests.sh\n")
            with open(os.path.join(tmp, "README.md"), "w") as f:
                f.write(readme if name == "commands not first" else FRONT + readme)
            for fname, text in docs.items():
                with open(os.path.join(tmp, "docs", fname), "w") as f:
                    f.write(text)
            found = check(tmp)
        ok = (not found) if expect is None else any(expect in p for p in found)
        if not ok:
            print(f"FAIL: self-test '{name}': expected {expect or 'no problem'}, got {found}")
            failed += 1
    return failed


def main():
    if self_test():
        return 1
    problems = check(sys.argv[1])
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("ok: every link of README.md and docs/*.md leads somewhere, every page is reached, README within its limit and opening with its two commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
