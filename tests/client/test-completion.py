#!/usr/bin/python3
"""jetsonctl's bash completion (completion/jetsonctl) with bash-completion,
against jetsond on a private bus serving the AGX Orin fake board (fan
names, profiles, power modes and sample keys come from it):

    test-completion.py JETSOND JETSONCTL_DIR
"""
import os
import subprocess
import sys

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, JETSONCTL_DIR = (os.path.abspath(a) for a in sys.argv[1:3])

SCRIPT = r'''
source /usr/share/bash-completion/bash_completion
source "$1"
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
eval "COMP_WORDS=($3)"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_jetsonctl
printf '%s\n' "${COMPREPLY[@]}"
'''


def complete(line, words):
    """The completions bash offers at the end of LINE, which bash splits
    into WORDS (shell-quoted, as COMP_WORDBREAKS splits them)."""
    env = dict(os.environ, PATH=JETSONCTL_DIR + ":" + os.environ["PATH"])
    out = subprocess.run(["bash", "-c", SCRIPT, "bash", os.path.join(SOURCE_DIR, "completion", "jetsonctl"),
                          line, words], env=env, capture_output=True, text=True, check=True).stdout
    return set(w for w in out.split("\n") if w)


CASES = [
    # (line, words, wanted: exactly, or at least with "superset")
    ("jetsonctl --color=", "jetsonctl --color = ''", {"auto", "always", "never"}, "exactly"),
    ("jetsonctl --color=al", "jetsonctl --color = al", {"always"}, "exactly"),
    ("jetsonctl --color al", "jetsonctl --color al", {"always"}, "exactly"),
    ("jetsonctl t", "jetsonctl t", {"top", "tegrastats"}, "exactly"),
    ("jetsonctl te", "jetsonctl te", {"tegrastats"}, "exactly"),
    ("jetsonctl do", "jetsonctl do", {"doctor"}, "exactly"),
    ("jetsonctl tegrastats --l", "jetsonctl tegrastats --l", {"--logfile="}, "exactly"),
    ("jetsonctl tegrastats --format ", "jetsonctl tegrastats --format ''", {"r32", "r35", "r36", "r38", "r39"},
     "exactly"),
    ("jetsonctl --json=p", "jetsonctl --json = p", {"pretty"}, "exactly"),
    ("jetsonctl --json st", "jetsonctl --json st", {"status"}, "exactly"),
    ("jetsonctl watch --timestamps=", "jetsonctl watch --timestamps = ''", {"time", "iso"}, "exactly"),
    ("jetsonctl record --time ", "jetsonctl record --time ''", {"unix", "iso", "relative"}, "exactly"),
    ("jetsonctl record --time=i", "jetsonctl record --time = i", {"iso"}, "exactly"),
    ("jetsonctl record -t r", "jetsonctl record -t r", {"relative"}, "exactly"),
    ("jetsonctl record --me", "jetsonctl record --me", {"--medium="}, "exactly"),
    ("jetsonctl record --slow 500 --sl", "jetsonctl record --slow 500 --sl", {"--slow="}, "exactly"),
    ("jetsonctl top --i", "jetsonctl top --i", {"--interval="}, "exactly"),
    ("jetsonctl top --only", "jetsonctl top --only", {"--only-compute", "--only-graphics", "--only=", "--only-visible"},
     "exactly"),
    ("jetsonctl status --o", "jetsonctl status --o", {"--only=", "--only-visible", "--owner", "--owner="}, "exactly"),
    ("jetsonctl watch --only", "jetsonctl watch --only", {"--only=", "--only-visible"}, "exactly"),
    ("jetsonctl status -o 1 --p", "jetsonctl status -o 1 --p", {"--pid="}, "exactly"),
    ("jetsonctl measure --", "jetsonctl measure --", {"--interval=", "--pid="}, "superset"),
    ("jetsonctl record --p", "jetsonctl record --p", {"--pid="}, "exactly"),
    ("jetsonctl measure --pid 1", "jetsonctl measure --pid 1", {"1"}, "superset"),
    ("jetsonctl fan ", "jetsonctl fan ''", {"list", "speed", "profile"}, "exactly"),
    ("jetsonctl fan speed ", "jetsonctl fan speed ''", {"0", "pwmfan", "50", "100"}, "superset"),
    ("jetsonctl fan speed pwmfan ", "jetsonctl fan speed pwmfan ''", {"0", "25", "50", "75", "100"}, "exactly"),
    ("jetsonctl fan profile ", "jetsonctl fan profile ''", {"pwmfan", "0", "cool", "quiet", "manual"}, "superset"),
    ("jetsonctl fan profile pwmfan ", "jetsonctl fan profile pwmfan ''", {"cool", "quiet", "manual"}, "exactly"),
    ("jetsonctl swap create ", "jetsonctl swap create ''", {"512M", "1G", "2G", "4G", "8G", "16G"}, "exactly"),
    ("jetsonctl nvpmodel set M", "jetsonctl nvpmodel set M", {"MAXN", "MODE_15W", "MODE_30W", "MODE_50W"}, "exactly"),
    ("jetsonctl get gpu.l", "jetsonctl get gpu.l", {"gpu.load"}, "exactly"),
]


def main():
    failed = 0
    with harness.Stack(JETSOND, None) as stack:
        stack.start_daemon()
        for line, words, wanted, how in CASES:
            got = complete(line, words)
            ok = got == wanted if how == "exactly" else wanted <= got
            print(f"{'ok  ' if ok else 'FAIL'} {line!r}: {sorted(got)}" + ("" if ok else f", wanted {how} {sorted(wanted)}"))
            failed += not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
