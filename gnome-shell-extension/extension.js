// SPDX-License-Identifier: MIT
//
// Jetson Monitor: jetsond's reference GNOME Shell extension, the entry
// point for GNOME Shell 45 and later (an ES module; legacy/extension.js is
// the one for 42-44, and both use the same indicator). Everything it
// creates in enable() is destroyed in disable(): the indicator owns the
// D-Bus subscriptions, proxies and notifications.

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import {JetsondIndicator} from './indicator.js';

export default class JetsonMonitorExtension extends Extension {
    enable() {
        this._indicator = new JetsondIndicator(this.getSettings(), this.path);
        Main.panel.addToStatusArea(this.uuid, this._indicator);
    }

    disable() {
        this._indicator.destroy();
        this._indicator = null;
    }
}
