// SPDX-License-Identifier: MIT
//
// Settings window (GTK 4 and libadwaita, as GNOME 42 and later expect):
// which readings the top bar shows.
/* exported init, fillPreferencesWindow */

const {Adw, Gio, Gtk} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;

// Settings key and its row, in the order the top bar shows them.
const ROWS = [
    ['show-gpu-load', 'GPU load', 'Load of the integrated GPU'],
    ['show-cpu-load', 'CPU load', 'Load of all CPU cores together'],
    ['show-board-power', 'Board power', 'Power drawn by the whole board (or the sum of its rails)'],
    ['show-hottest-temperature', 'Hottest temperature', 'The hottest of the board’s thermal zones'],
];

function init() {
}

function fillPreferencesWindow(window) {
    const settings = ExtensionUtils.getSettings();
    const page = new Adw.PreferencesPage();
    const group = new Adw.PreferencesGroup({
        title: 'Top bar',
        description: 'Readings shown next to the icon. A reading the board does not have is never shown.',
    });
    for (const [key, title, subtitle] of ROWS) {
        const toggle = new Gtk.Switch({valign: Gtk.Align.CENTER});
        settings.bind(key, toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        const row = new Adw.ActionRow({title, subtitle, activatable_widget: toggle});
        row.add_suffix(toggle);
        group.add(row);
    }
    page.add(group);
    window.add(page);
}
