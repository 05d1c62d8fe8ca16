// SPDX-License-Identifier: MIT
//
// The extension's settings window (gnome-shell-extension/prefs.js) built
// for real with GTK 4 and libadwaita, outside the shell:
//   JETSOND_TEST_SCHEMA_DIR=DIR gjs test-prefs.js EXTENSION_SOURCE_DIR
// DIR holds the compiled schema; a display is needed (test-shell.py runs it
// on the headless shell's Wayland display) and GSETTINGS_BACKEND=memory
// keeps the settings away from any real ones.
imports.gi.versions.Gtk = '4.0';
const {Adw, Gtk} = imports.gi;
const System = imports.system;

imports.searchPath.unshift(`${System.programPath.replace(/\/[^/]*$/, '')}/prefs-stub`);
imports.searchPath.unshift(ARGV[0]);
const Prefs = imports.prefs;
const ExtensionUtils = imports.misc.extensionUtils;

let failures = 0;
function check(name, ok, detail = '') {
    print(`${ok ? 'ok' : 'not ok'} - ${name}${ok ? '' : `\n    ${detail}`}`);
    if (!ok)
        failures++;
}

function descendants(widget, type) {
    const found = [];
    for (let child = widget.get_first_child(); child; child = child.get_next_sibling()) {
        if (child instanceof type)
            found.push(child);
        found.push(...descendants(child, type));
    }
    return found;
}

Gtk.init();
Adw.init();
Prefs.init();
const window = new Adw.PreferencesWindow();
Prefs.fillPreferencesWindow(window);
const settings = ExtensionUtils.getSettings();

const rows = descendants(window, Adw.ActionRow);
check('one row per top-bar item',
    JSON.stringify(rows.map(r => r.title)) ===
        JSON.stringify(['GPU load', 'CPU load', 'Board power', 'Hottest temperature']),
    JSON.stringify(rows.map(r => r.title)));
const keys = ['show-gpu-load', 'show-cpu-load', 'show-board-power', 'show-hottest-temperature'];
rows.forEach((row, i) => {
    const toggle = descendants(row, Gtk.Switch)[0];
    check(`${keys[i]}: the switch shows the setting`, toggle && toggle.active === settings.get_boolean(keys[i]));
    toggle.active = !toggle.active;
    check(`${keys[i]}: the switch writes the setting`, settings.get_boolean(keys[i]) === toggle.active);
    settings.set_boolean(keys[i], true);
    check(`${keys[i]}: the setting moves the switch`, toggle.active === true);
});
window.destroy();

if (failures > 0) {
    print(`${failures} check(s) failed`);
    System.exit(1);
}
