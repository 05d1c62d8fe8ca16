// SPDX-License-Identifier: MIT
//
// Jetson Monitor: jetsond's reference GNOME Shell extension (GNOME 42-44).
// Everything it creates in enable() is destroyed in disable(): the
// indicator owns the D-Bus subscriptions, proxies and notifications.
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
        this._indicator = new JetsondIndicator(ExtensionUtils.getSettings());
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
