// SPDX-License-Identifier: MIT
//
// The top-bar button: a compact live line from jetsond's ValuesAt signals
// and a menu with the board, the details of each reading, the power modes,
// jetson_clocks, the GPU's 3D scaling and the fan profiles. Writes go through JetsondClient.call,
// so polkit asks with GNOME's own dialog; failures become notifications
// carrying the D-Bus error's message.
// An ES module shared by both flavours of the extension (build-extension.py
// turns it into the legacy form for GNOME Shell 42-44).

import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import St from 'gi://St';
import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import * as Format from './format.js';
import {JetsondClient, IFACE} from './client.js';
import {Notifier} from './notify.js';

// The top bar and the menu follow the samples at most this often, so the
// shell never lays out its panel more than twice a second. The client asks
// for no faster stream (Format.valuesInterval); this also spaces out two
// samples that a late tick of jetsond brings close together. At jetsond's
// default second every sample is shown at once.
const REFRESH_MS = 500;

export const JetsondIndicator = GObject.registerClass(
class JetsondIndicator extends PanelMenu.Button {
    // settings: the extension's Gio.Settings; extensionPath: its directory.
    _init(settings, extensionPath) {
        super._init(0.5, 'Jetson', false);
        this._settings = settings;
        this._values = null;
        // Samples received and refreshes of what shows them, for the
        // tests (test-shell.py reads them through Eval).
        this._samples = 0;
        this._refreshes = 0;
        this._lastRefreshUs = 0;
        this._throttleEpisode = null;
        this._refreshId = 0;

        const gicon = Gio.icon_new_for_string(`${extensionPath}/icons/jetsond-symbolic.svg`);
        const box = new St.BoxLayout({style_class: 'panel-status-menu-box'});
        box.add_child(new St.Icon({gicon, style_class: 'system-status-icon'}));
        this._label = new St.Label({text: '', y_align: Clutter.ActorAlign.CENTER});
        box.add_child(this._label);
        this.add_child(box);

        this._statusItem = new PopupMenu.PopupMenuItem('', {reactive: false});
        this.menu.addMenuItem(this._statusItem);
        this._detailsSection = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._detailsSection);
        this._modesHeader = new PopupMenu.PopupSeparatorMenuItem('Power mode');
        this.menu.addMenuItem(this._modesHeader);
        this._modesSection = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._modesSection);
        this._controlsSeparator = new PopupMenu.PopupSeparatorMenuItem();
        this.menu.addMenuItem(this._controlsSeparator);
        this._clocksItem = new PopupMenu.PopupSwitchMenuItem('jetson_clocks', false);
        this._clocksItem.connect('toggled', (_item, state) => this._setClocks(state));
        this.menu.addMenuItem(this._clocksItem);
        this._gpuScalingItem = new PopupMenu.PopupSwitchMenuItem('GPU 3D scaling', false);
        this._gpuScalingItem.connect('toggled', (_item, state) => this._setGpuScaling(state));
        this.menu.addMenuItem(this._gpuScalingItem);
        this._fansSection = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._fansSection);
        this._fanItems = new Map();

        this._notifier = new Notifier(gicon);
        this._settingsId = settings.connect('changed', () => this._updateLabel());
        this._client = new JetsondClient();
        this._clientIds = [
            this._client.connect('running', () => this._syncAll()),
            this._client.connect('sample', (_c, values) => this._onSample(values)),
            this._client.connect('changed', (_c, iface) => this._sync(iface)),
        ];
        this._client.start();
        this._syncAll();
    }

    _onDestroy() {
        if (this._refreshId)
            GLib.source_remove(this._refreshId);
        this._refreshId = 0;
        this._throttleEpisode = null; // a snapshot still on its way shows nothing
        this._clientIds.forEach(id => this._client.disconnect(id));
        this._client.destroy();
        this._notifier.destroy();
        this._settings.disconnect(this._settingsId);
        super._onDestroy();
    }

    _syncAll() {
        if (!this._client.running) {
            this._values = null;
            this._throttleEpisode = null; // a jetsond that comes back starts anew
        }
        for (const iface of [IFACE.board, IFACE.nvpmodel, IFACE.clocks, IFACE.gpu, IFACE.fan])
            this._sync(iface);
        this._updateLabel();
        this._updateDetails();
    }

    _sync(iface) {
        switch (iface) {
        case IFACE.board:
            return this._syncStatus();
        case IFACE.nvpmodel:
            return this._syncModes();
        case IFACE.clocks:
            return this._syncClocks();
        case IFACE.gpu:
            return this._syncGpu();
        case IFACE.fan:
            return this._syncFans();
        }
        return undefined;
    }

    // ---- live values -------------------------------------------------
    _onSample(values) {
        this._values = values;
        this._followThrottling(values);
        this._samples++;
        if (this._refreshId)
            return; // the refresh due shows this sample
        const wait = this._lastRefreshUs + REFRESH_MS * 1000 - GLib.get_monotonic_time();
        if (wait <= 0) {
            this._refresh();
            return;
        }
        this._refreshId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, Math.ceil(wait / 1000), () => {
            this._refreshId = 0;
            this._refresh();
            return GLib.SOURCE_REMOVE;
        });
    }

    // Issue 39: one notification a throttling episode (from the first
    // sample held down, the first of all included, to the next that is
    // not), in jetsonctl status's words. A reason that joins while it lasts
    // is added to the same notification rather than lost or told twice:
    // causes that come together can reach two samples (each is a file read
    // at its own moment), and an over-current reason holds only for the
    // sample whose counter rose. The reasons come from the sample's own
    // numbers; only a discrete GPU's reason names need a snapshot.
    _followThrottling(values) {
        const reasons = Format.throttleReasons(values);
        if (reasons.length === 0) {
            this._throttleEpisode = null;
            return;
        }
        if (!this._throttleEpisode)
            this._throttleEpisode = {reasons: [], dgpuNames: {}, notification: null, dismissed: false};
        const episode = this._throttleEpisode;
        const joined = reasons.filter(r => !episode.reasons.includes(r));
        if (joined.length === 0)
            return;
        episode.reasons.push(...joined);
        episode.events = values['throttle.oc_events'];
        const gpus = joined.filter(r => r.startsWith('dgpu.'));
        const named = gpus.length === 0 ? Promise.resolve() : this._client.snapshot().then(snapshot => {
            for (const gpu of gpus)
                episode.dgpuNames[gpu] = snapshot[`${gpu}.throttle_reasons`];
        }).catch(e => log(`jetsond: GetSnapshot failed: ${e.message}`));
        named.then(() => this._showThrottleNotice(episode));
    }

    _showThrottleNotice(episode) {
        if (episode !== this._throttleEpisode || episode.dismissed)
            return; // it ended meanwhile, or the user closed its notification
        const notice = Format.throttleNotice(episode.reasons, episode.dgpuNames, episode.events);
        if (!notice)
            return;
        if (episode.notification) {
            this._notifier.update(episode.notification, notice.title, notice.body);
            return;
        }
        const notification = this._notifier.show(notice.title, notice.body);
        episode.notification = notification;
        notification.connect('destroy', () => {
            if (episode.notification === notification)
                episode.dismissed = true;
        });
    }

    _refresh() {
        this._lastRefreshUs = GLib.get_monotonic_time();
        this._refreshes++;
        this._updateLabel();
        this._updateDetails();
        for (const [index, item] of this._fanItems)
            item.label.text = this._fanText(index);
    }

    _enabledItems() {
        const enabled = {};
        for (const item of Format.PANEL_ITEMS)
            enabled[item.key] = this._settings.get_boolean(item.key);
        return enabled;
    }

    _updateLabel() {
        if (!this._client.running)
            this._label.text = 'jetsond not running';
        else if (this._values === null)
            this._label.text = '…';
        else
            this._label.text = Format.panelText(this._values, this._enabledItems());
        this._label.visible = this._label.text !== '';
    }

    _updateDetails() {
        const lines = this._values ? Format.detailLines(this._values) : [];
        const items = this._detailsSection._getMenuItems();
        lines.forEach((line, i) => {
            if (i < items.length) {
                items[i].label.text = line;
            } else {
                this._detailsSection.addMenuItem(
                    new PopupMenu.PopupMenuItem(line, {reactive: false}));
            }
        });
        items.slice(lines.length).forEach(item => item.destroy());
    }

    _syncStatus() {
        if (!this._client.running) {
            this._statusItem.label.text = 'jetsond is not running: start it with “systemctl start jetsond”';
            return;
        }
        this._statusItem.label.text = Format.boardLine(
            this._client.property(IFACE.board, 'Model'), this._client.property(IFACE.board, 'JetPack'));
    }

    // ---- power modes -------------------------------------------------
    _syncModes() {
        this._modesSection.removeAll();
        const modes = this._client.has(IFACE.nvpmodel) ? this._client.property(IFACE.nvpmodel, 'Modes') : [];
        this._modesHeader.visible = modes.length > 0;
        const current = this._client.property(IFACE.nvpmodel, 'Mode');
        const atBoot = this._client.property(IFACE.nvpmodel, 'DefaultMode');
        for (const [id, name] of modes) {
            let text = Format.modeLabel(id, name);
            if (id === atBoot && id !== current)
                text += ' (at next boot)';
            const item = new PopupMenu.PopupMenuItem(text);
            item.setOrnament(id === current ? PopupMenu.Ornament.DOT : PopupMenu.Ornament.NONE);
            item.connect('activate', () => this.chooseMode(id));
            this._modesSection.addMenuItem(item);
        }
        this._syncSeparator();
    }

    // What activating a mode's item does; public so that the tests drive
    // the same path a click takes.
    chooseMode(id) {
        if (id === this._client.property(IFACE.nvpmodel, 'Mode'))
            return Promise.resolve();
        const name = Format.modeLabel(id, this._modeName(id));
        return this._client.call(IFACE.nvpmodel, 'SetMode', new GLib.Variant('(u)', [id]))
            .catch(error => this._notifyError(`Power mode ${name}`, error, [{
                label: 'Apply at next boot',
                callback: () => this._setDefaultMode(id, name),
            }]));
    }

    _modeName(id) {
        const modes = this._client.property(IFACE.nvpmodel, 'Modes') || [];
        const mode = modes.find(([modeId]) => modeId === id);
        return mode ? mode[1] : '';
    }

    _setDefaultMode(id, name) {
        return this._client.call(IFACE.nvpmodel, 'SetDefaultMode', new GLib.Variant('(u)', [id]))
            .then(() => this._notifier.show(`Power mode ${name} at next boot`,
                'The board starts in this mode after the next reboot.'))
            .catch(error => this._notifyError(`Power mode ${name} at next boot`, error));
    }

    // ---- jetson_clocks -----------------------------------------------
    _syncClocks() {
        const present = this._client.has(IFACE.clocks);
        this._clocksItem.visible = present;
        if (present)
            this._clocksItem.setToggleState(this._client.property(IFACE.clocks, 'Active') === true);
        this._syncSeparator();
    }

    _setClocks(active) {
        return this._client.call(IFACE.clocks, 'SetActive', new GLib.Variant('(b)', [active]))
            .catch(error => {
                // The switch shows what is true, not what was asked.
                this._clocksItem.setToggleState(this._client.property(IFACE.clocks, 'Active') === true);
                this._notifyError(`jetson_clocks ${active ? 'on' : 'off'}`, error);
            });
    }

    // ---- GPU 3D scaling ----------------------------------------------
    // Shown where the board has an integrated GPU (not on a PC).
    _syncGpu() {
        const present = this._client.has(IFACE.gpu);
        this._gpuScalingItem.visible = present;
        if (present)
            this._gpuScalingItem.setToggleState(this._client.property(IFACE.gpu, 'Scaling3D') === true);
        this._syncSeparator();
    }

    _setGpuScaling(enabled) {
        return this._client.call(IFACE.gpu, 'SetScaling3D', new GLib.Variant('(b)', [enabled]))
            .catch(error => {
                // The switch shows what is true, not what was asked.
                this._gpuScalingItem.setToggleState(this._client.property(IFACE.gpu, 'Scaling3D') === true);
                this._notifyError(`GPU 3D scaling ${enabled ? 'on' : 'off'}`, error);
            });
    }

    // ---- fans --------------------------------------------------------
    _fanText(index) {
        const fan = this._fanItems.get(index);
        const speed = this._values ? this._values[`fan.${index}.speed`] : undefined;
        return Format.fanLabel(index, this._client.property(IFACE.fan, 'Name', fan.path),
            this._client.property(IFACE.fan, 'Profile', fan.path), speed);
    }

    _syncFans() {
        this._fansSection.removeAll();
        this._fanItems.clear();
        for (const {index, path} of this._client.fans()) {
            const item = new PopupMenu.PopupSubMenuMenuItem('');
            item.path = path;
            this._fanItems.set(index, item);
            item.label.text = this._fanText(index);
            const current = this._client.property(IFACE.fan, 'Profile', path);
            for (const profile of this._client.property(IFACE.fan, 'Profiles', path) || []) {
                const choice = new PopupMenu.PopupMenuItem(profile);
                choice.setOrnament(profile === current ? PopupMenu.Ornament.DOT : PopupMenu.Ornament.NONE);
                choice.connect('activate', () => this.chooseFanProfile(index, profile));
                item.menu.addMenuItem(choice);
            }
            this._fansSection.addMenuItem(item);
        }
        this._syncSeparator();
    }

    chooseFanProfile(index, profile) {
        const fan = this._fanItems.get(index);
        return this._client.call(IFACE.fan, 'SetProfile', new GLib.Variant('(s)', [profile]), fan.path)
            .catch(error => this._notifyError(`Fan ${index} profile ${profile}`, error));
    }

    _syncSeparator() {
        this._controlsSeparator.visible = this._clocksItem.visible || this._gpuScalingItem.visible ||
            this._fanItems.size > 0;
    }

    // rebootActions: offered only when the error says a reboot is needed.
    _notifyError(action, error, rebootActions = []) {
        const notice = Format.errorNotice(action, error.name, error.message);
        this._notifier.show(notice.title, notice.body, notice.offer === 'default-mode' ? rebootActions : []);
    }

    get notifier() {
        return this._notifier;
    }
});
