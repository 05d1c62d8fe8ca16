// SPDX-License-Identifier: MIT
//
// The extension's settings page (gnome-shell-extension/preferences.js,
// which both flavours' prefs.js fill their window with) built for real
// with GTK 4 and libadwaita, outside the shell:
//   JETSOND_TEST_SCHEMA_DIR=DIR gjs test-prefs.js EXTENSION_DIR
// EXTENSION_DIR is a built extension, either flavour: its preferences.js is
// imported as an ES module (45 and later) or through the legacy importer
// (42-44). DIR holds the compiled schema; a display is needed
// (test-shell.py runs it on the headless shell's Wayland display) and
// GSETTINGS_BACKEND=memory keeps the settings away from any real ones.
imports.gi.versions.Gtk = '4.0';
const {Adw, Gio, GLib, Gtk} = imports.gi;
const System = imports.system;

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

// The settings as the shell's getSettings() gives them: the schema
// compiled into the extension's schemas/ directory.
function extensionSettings() {
    const source = Gio.SettingsSchemaSource.new_from_directory(
        GLib.getenv('JETSOND_TEST_SCHEMA_DIR'), Gio.SettingsSchemaSource.get_default(), false);
    return new Gio.Settings({settings_schema: source.lookup('org.gnome.shell.extensions.jetsond', false)});
}

function run(Page) {
    Gtk.init();
    Adw.init();
    const window = new Adw.PreferencesWindow();
    const settings = extensionSettings();
    Page.fillPreferencesWindow(window, settings);

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
}

const dir = GLib.canonicalize_filename(ARGV[0], null);
const [, source] = GLib.file_get_contents(`${dir}/preferences.js`);
const loop = new GLib.MainLoop(null, false);
if (new TextDecoder().decode(source).includes('\nexport function ')) {
    import(`file://${dir}/preferences.js`).then(run).catch(e => {
        check('preferences.js imports as an ES module', false, `${e}\n${e.stack}`);
    }).finally(() => loop.quit());
    loop.run();
} else {
    imports.searchPath.unshift(dir);
    run(imports.preferences);
}

if (failures > 0) {
    print(`${failures} check(s) failed`);
    System.exit(1);
}
