// SPDX-License-Identifier: MIT
//
// The extension's notifications, from one message-tray source that lives
// while there is something to show and is destroyed with the extension.
// An ES module shared by both flavours of the extension: GNOME Shell 46
// changed the message tray's constructors (property objects instead of
// arguments), renamed showNotification() to addNotification() and made a
// notification's words properties (update() before), so the shell's version
// picks the calls.

import * as Config from 'resource:///org/gnome/shell/misc/config.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as MessageTray from 'resource:///org/gnome/shell/ui/messageTray.js';

const PROPERTY_OBJECTS = Number.parseInt(Config.PACKAGE_VERSION) >= 46;

export class Notifier {
    constructor(gicon) {
        this._gicon = gicon;
        this._source = null;
    }

    _ensureSource() {
        if (this._source)
            return this._source;
        if (PROPERTY_OBJECTS) {
            this._source = new MessageTray.Source({title: 'Jetson', icon: this._gicon});
        } else {
            this._source = new MessageTray.Source('Jetson', null);
            this._source.getIcon = () => this._gicon;
        }
        // The tray destroys an emptied source itself: forget it then.
        this._source.connect('destroy', () => {
            this._source = null;
        });
        Main.messageTray.add(this._source);
        return this._source;
    }

    // actions: [{label, callback}], shown as buttons on the notification.
    show(title, body, actions = []) {
        const source = this._ensureSource();
        const notification = PROPERTY_OBJECTS
            ? new MessageTray.Notification({source, title, body})
            : new MessageTray.Notification(source, title, body);
        for (const {label, callback} of actions)
            notification.addAction(label, callback);
        if (PROPERTY_OBJECTS)
            source.addNotification(notification);
        else
            source.showNotification(notification);
        return notification;
    }

    // New words for a notification show() made, in place (it stays one
    // notification in the list).
    update(notification, title, body) {
        if (PROPERTY_OBJECTS)
            notification.set({title, body});
        else
            notification.update(title, body);
    }

    destroy() {
        if (this._source)
            this._source.destroy(MessageTray.NotificationDestroyedReason.SOURCE_CLOSED);
        this._source = null;
    }
}
