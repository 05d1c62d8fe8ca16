// SPDX-License-Identifier: MIT
//
// Test-only helper (tests/extension/test-shell.py), never installed: the
// GNOME Shell 45+ form (an ES module) of ../../unsafe-mode@tests.jetsond.org.
// It puts the headless shell in unsafe mode, which lets the test call
// org.gnome.Shell.Eval and take screenshots through org.gnome.Shell.Screenshot,
// and drops the notification that announces it so it does not cover the
// screenshots. The extension under test has no test hooks of its own.

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class UnsafeModeExtension extends Extension {
    enable() {
        global.context.unsafe_mode = true;
        Main.messageTray.getSources().forEach(source => source.destroy());
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}
