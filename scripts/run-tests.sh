#!/bin/sh
# Runs every test of jetsond: the meson test suite built with gcc, again
# under AddressSanitizer + UndefinedBehaviorSanitizer (all but the Python
# and packaging suites), its C suites (unit,
# daemon, client, engine) built with clang, and the unit tests, the daemon and the exporter once more under
# valgrind; then everything built for aarch64 (as on a Jetson) with the unit
# and service suites run under qemu-user (scripts/test-aarch64.sh); and
# the Debian packages (scripts/test-debian.sh), and those packages in a
# booted VM under their systemd units (scripts/test-vm.sh), jetsonctl,
# python3-jetsond and jetsond-exporter in podman containers with only the
# bus socket (scripts/test-container.sh), and built and
# installed in Debian 13 (scripts/test-debian13.sh). A Debian 13 root is
# made once (build/debian13, kept for a week) for the GNOME Shell 48 and
# Cockpit 337 tests of the gcc build's suite and for test-debian13.sh.
#
# JETSOND_TEST_UNDER_LOAD=1: the proof that no test needs an idle CPU.
# stress-ng keeps every CPU busy for the whole run, and after it the
# client, service and engine suites of the gcc and ASan builds run three
# times more; each part prints its wall time.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install-deps.sh

started=$(date +%s)
under_load=${JETSOND_TEST_UNDER_LOAD:-0}
if [ "$under_load" = 1 ]; then
        stress-ng --cpu 0 --quiet &
        stress_pid=$!
        trap 'kill "$stress_pid" 2>/dev/null || true' EXIT
        trap 'exit 130' INT TERM
        echo "== under load: stress-ng --cpu 0 (pid $stress_pid) on all $(nproc) CPUs"
fi
elapsed() {
        echo "   (wall time so far: $(( $(date +%s) - started )) s)"
}

# meson's per-test timeouts are set for an idle machine; a busy one (or
# valgrind) may need several times that, and only a stall needs more.
MESON_TEST="meson test --timeout-multiplier 4"

run_suite() {
        dir=$1; shift
        echo "== $dir: $*"
        if [ ! -f "$dir/build.ninja" ]; then
                # Any meson feature newer than meson_version (0.61) warns:
                # fatal here, so the floor holds.
                meson setup "$dir" --fatal-meson-warnings "$@" >/dev/null
        fi
        if ! ninja -C "$dir" >"$dir/ninja.log" 2>&1; then
                cat "$dir/ninja.log"
                exit 1
        fi
        # Suite "once": tests that do not depend on this build's compiler
        # or instrumentation (the install guide builds a tree of its own),
        # run with gcc only.
        if [ "$dir" = build ]; then
                $MESON_TEST -C "$dir" --print-errorlogs --num-processes 2
        elif [ "$dir" = build-clang ]; then
                # clang is here for its diagnostics (-Werror on every file)
                # and its code generation of the C units; the bus-level
                # suites (service, python, extension, cockpit, packaging)
                # already run the same code built by gcc, under ASan+UBSan,
                # under valgrind and for aarch64, and would add 10 minutes.
                $MESON_TEST -C "$dir" --print-errorlogs --num-processes 2 \
                        --suite unit --suite daemon --suite client --suite engine
        else
                # Under ASan+UBSan the C is what is checked: the Python
                # client's tests and the packaging checks drive the same
                # daemon paths as the service suite, and would add 2 minutes.
                $MESON_TEST -C "$dir" --print-errorlogs --num-processes 2 \
                        --no-suite once --no-suite python --no-suite packaging
        fi
}

run_suite build
elapsed
if [ -f build/debian13/root.figure ]; then
        echo "   (the Debian 13 root: $(cat build/debian13/root.figure), made by the first test that needed it)"
fi
CC=clang run_suite build-clang
elapsed
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all
elapsed
echo "== build: unit tests under valgrind"
$MESON_TEST -C build --suite unit --print-errorlogs --num-processes 2 \
        --wrap='valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp'
echo "== build: the daemon under valgrind in the service tests that start it through JETSOND_TEST_WRAPPER"
JETSOND_TEST_WRAPPER="valgrind --quiet --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp" \
        $MESON_TEST -C build --suite wrapped --print-errorlogs --num-processes 2
echo "== build: jetsond-exporter under valgrind in its service tests"
EXPORTER_TEST_WRAPPER="valgrind --quiet --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp" \
        $MESON_TEST -C build exporter-service --print-errorlogs
# A part that skips itself (exit 77, with a SKIP line saying why) where
# this machine cannot run it; any other failure ends the run.
optional_part() { # WHAT-IF-SKIPPED COMMAND...
        what=$1; shift
        rc=0
        "$@" || rc=$?
        if [ "$rc" -eq 77 ]; then
                echo "($what not run on this machine: see the SKIP line above)"
        elif [ "$rc" -ne 0 ]; then
                exit "$rc"
        fi
}
echo "== build-aarch64: the unit and service suites again with aarch64 binaries under qemu"
optional_part aarch64 sh scripts/test-aarch64.sh
echo "== debian: packages built, linted, installed in a clean Debian 12 root, upgraded and purged"
optional_part "Debian packages" env JETSOND_DEBS_OUT="$PWD/build-debs" sh scripts/test-debian.sh
elapsed
echo "== vm: the packages in a booted Debian 12 VM, jetsond under its own unit on three boards"
optional_part VM env JETSOND_DEBS_DIR="$PWD/build-debs" sh scripts/test-vm.sh
elapsed
echo "== container: the packages in podman containers with only the bus socket: tegrastats, the container's own processes, the exporter as the Kubernetes manifest runs it"
optional_part container env JETSOND_DEBS_DIR="$PWD/build-debs" sh scripts/test-container.sh
elapsed
echo "== debian13: the packages built, linted, installed and purged in Debian 13 (the shared root)"
optional_part "Debian 13 packages" env JETSOND_DEBIAN13_CACHE="$PWD/build/debian13" sh scripts/test-debian13.sh
elapsed
if [ "$under_load" = 1 ]; then
        for round in 1 2 3; do
                for dir in build build-asan; do
                        t0=$(date +%s)
                        echo "== under load, round $round: $dir, suites client, service, engine"
                        $MESON_TEST -C "$dir" --print-errorlogs --num-processes 2 --no-rebuild \
                                --suite client --suite service --suite engine --no-suite once
                        echo "   $dir round $round: $(( $(date +%s) - t0 )) s"
                done
        done
        elapsed
fi
