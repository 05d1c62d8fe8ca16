// SPDX-License-Identifier: MIT
//
// Settings window for GNOME Shell 45 and later (an ES module;
// legacy/prefs.js is the one for 42-44): the page of preferences.js,
// shared by both.

import {ExtensionPreferences} from 'resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js';
import * as Page from './preferences.js';

export default class JetsonMonitorPreferences extends ExtensionPreferences {
    fillPreferencesWindow(window) {
        Page.fillPreferencesWindow(window, this.getSettings());
    }
}
