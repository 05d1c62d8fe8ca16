// SPDX-License-Identifier: MIT
//
// Test-only helper (tests/extension/test-shell.py), never installed: it
// puts the headless shell in unsafe mode, which lets the test call
// org.gnome.Shell.Eval and take screenshots through org.gnome.Shell.Screenshot,
// and drops the notification that announces it so it does not cover the
// screenshots. The extension under test has no test hooks of its own.
/* exported init */

const Main = imports.ui.main;

function init() {
    return {
        enable() {
            global.context.unsafe_mode = true;
            Main.messageTray.getSources().forEach(source => source.destroy());
        },
        disable() {
            global.context.unsafe_mode = false;
        },
    };
}
