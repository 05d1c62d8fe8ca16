// SPDX-License-Identifier: MIT
//
// Settings window for GNOME Shell 42-44 (legacy imports; ../prefs.js is
// the one for 45 and later): the page of preferences.js, shared by both.
/* exported init, fillPreferencesWindow */

const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();
const Page = Me.imports.preferences;

function init() {
}

function fillPreferencesWindow(window) {
    Page.fillPreferencesWindow(window, ExtensionUtils.getSettings());
}
