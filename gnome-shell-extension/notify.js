// SPDX-License-Identifier: MIT
//
// The extension's notifications, from one message-tray source that lives
// while there is something to show and is destroyed with the extension.
/* exported Notifier */

const Main = imports.ui.main;
const MessageTray = imports.ui.messageTray;

var Notifier = class Notifier {
    constructor(gicon) {
        this._gicon = gicon;
        this._source = null;
    }

    _ensureSource() {
        if (this._source)
            return this._source;
        this._source = new MessageTray.Source('Jetson', null);
        this._source.getIcon = () => this._gicon;
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
        const notification = new MessageTray.Notification(source, title, body);
        for (const {label, callback} of actions)
            notification.addAction(label, callback);
        source.showNotification(notification);
        return notification;
    }

    destroy() {
        if (this._source)
            this._source.destroy(MessageTray.NotificationDestroyedReason.SOURCE_CLOSED);
        this._source = null;
    }
};
