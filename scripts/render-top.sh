#!/bin/sh
# Renders `jetsonctl top` as the README shows it: top runs in a tmux pane
# against the jetsond on $DBUS_SYSTEM_BUS_ADDRESS (the main job's simulated
# AGX Orin), tmux captures the pane with its colours (ANSI), aha turns that
# into HTML and a headless Chromium (as the Cockpit tests use) photographs
# it. Made from the running program, never drawn, so it stays true.
#
#   render-top.sh JETSONCTL OUT.png [COLUMNS ROWS SECONDS]
set -eu
jetsonctl=$(realpath "$1")
out=$2
cols=${3:-120}
rows=${4:-40}
seconds=${5:-8}

work=$(mktemp -d /tmp/jetsond-render-top.XXXXXX)
sock="jetsond-render-top-$$"
cleanup() {
        tmux -L "$sock" kill-server 2>/dev/null || true
        rm -rf "$work"
}
trap cleanup EXIT INT TERM

# top at 200 ms, so its graphs have a few dozen samples after SECONDS.
tmux -L "$sock" -f /dev/null new-session -d -x "$cols" -y "$rows" \
        "TERM=tmux-256color exec $jetsonctl top --interval 200"
sleep "$seconds"
tmux -L "$sock" capture-pane -e -p -t 0 > "$work/top.ansi"
tmux -L "$sock" kill-server 2>/dev/null || true
lines=$(wc -l < "$work/top.ansi")
[ "$lines" -ge "$rows" ] || { echo "render-top: captured $lines lines, expected $rows" >&2; exit 1; }

# aha writes one <pre> of spans; the page sets the terminal's font and size
# so the window below holds the pane exactly (DejaVu Sans Mono at 14 px:
# about 8.4 px a column, with room to spare, 17 px a row).
aha --black --no-header < "$work/top.ansi" > "$work/body.html"
{
        echo '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
        echo 'body{margin:0;background:#000;color:#ddd}'
        echo 'pre{margin:8px;font:14px/17px "DejaVu Sans Mono",monospace}'
        echo '</style></head><body><pre>'
        cat "$work/body.html"
        echo '</pre></body></html>'
} > "$work/top.html"
width=$(( cols * 860 / 100 + 24 ))
height=$(( rows * 17 + 16 ))
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$work/chromium" --window-size="$width,$height" \
        --screenshot="$work/top.png" "file://$work/top.html" > "$work/chromium.log" 2>&1 ||
        { cat "$work/chromium.log" >&2; exit 1; }
mv "$work/top.png" "$out"
echo "render-top: $cols x $rows pane after $seconds s -> $out"
