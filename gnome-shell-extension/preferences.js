// SPDX-License-Identifier: MIT
//
// The settings page (GTK 4 and libadwaita, as GNOME 42 and later expect):
// which readings the top bar shows. An ES module shared by both flavours'
// prefs.js, which hand it their window and the extension's settings.

import Adw from 'gi://Adw';
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk';

// Settings key and its row, in the order the top bar shows them.
const ROWS = [
    ['show-gpu-load', 'GPU load', 'Load of the integrated GPU'],
    ['show-cpu-load', 'CPU load', 'Load of all CPU cores together'],
    ['show-board-power', 'Board power', 'Power drawn by the whole board (or the sum of its rails)'],
    ['show-hottest-temperature', 'Hottest temperature', 'The hottest of the board’s thermal zones'],
];

export function fillPreferencesWindow(window, settings) {
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
