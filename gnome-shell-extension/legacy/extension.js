// SPDX-License-Identifier: MIT
//
// Jetson Monitor: jetsond's reference GNOME Shell extension, the entry
// point for GNOME Shell 42-44 (legacy imports; ../extension.js is the one
// for 45 and later, and both use the same indicator). Everything it
// creates in enable() is destroyed in disable(): the indicator owns the
// D-Bus subscriptions, proxies and notifications.
/* exported init */

const Main = imports.ui.main;
const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();
const {JetsondIndicator} = Me.imports.indicator;

class Extension {
    constructor() {
        this._indicator = null;
    }

    enable() {
        this._indicator = new JetsondIndicator(ExtensionUtils.getSettings(), Me.path);
        Main.panel.addToStatusArea(Me.metadata.uuid, this._indicator);
    }

    disable() {
        this._indicator.destroy();
        this._indicator = null;
    }
}

function init() {
    return new Extension();
}
