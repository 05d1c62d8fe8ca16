// SPDX-License-Identifier: MIT
//
// Test-only stand-in for GNOME Shell's misc/extensionUtils.js, so that
// test-prefs.js can run the extension's prefs.js in plain gjs: getSettings()
// reads the schema compiled into JETSOND_TEST_SCHEMA_DIR, as the real one
// reads the extension's schemas/ directory.
/* exported getSettings */

const {Gio, GLib} = imports.gi;

function getSettings() {
    const source = Gio.SettingsSchemaSource.new_from_directory(
        GLib.getenv('JETSOND_TEST_SCHEMA_DIR'), Gio.SettingsSchemaSource.get_default(), false);
    const schema = source.lookup('org.gnome.shell.extensions.jetsond', false);
    return new Gio.Settings({settings_schema: schema});
}
