// SPDX-License-Identifier: MIT
//
// jetsond as the indicator sees it, through the public D-Bus API only:
// an object manager client for the properties of /org/jetsond/Jetson1 and
// the fan objects (it follows the service as it leaves and comes back), a
// subscription to the Sample signal for live values, and method calls that
// let polkit ask for a password (the shell's own dialog).
// No GNOME Shell imports: the same class runs in plain gjs. An ES module,
// shared by both flavours of the extension (build-extension.py).

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';

export const BUS_NAME = 'org.jetsond.Jetson1';
export const OBJECT_PATH = '/org/jetsond/Jetson1';
const FAN_PATH_PREFIX = '/org/jetsond/Jetson1/fan/';
export const IFACE = {
    board: 'org.jetsond.Jetson1.Board',
    metrics: 'org.jetsond.Jetson1.Metrics',
    nvpmodel: 'org.jetsond.Jetson1.NVPModel',
    clocks: 'org.jetsond.Jetson1.JetsonClocks',
    gpu: 'org.jetsond.Jetson1.Gpu',
    fan: 'org.jetsond.Jetson1.Fan',
};

// The interfaces of /org/jetsond/Jetson1 itself. GetManagedObjects()
// lists only the objects below it (the fans), so these have proxies of
// their own; a proxy follows the service as it leaves and comes back and
// holds no properties when the board lacks its interface.
const ROOT_INTERFACES = [IFACE.board, IFACE.nvpmodel, IFACE.clocks, IFACE.gpu];

// Signals: 'running' (bool) when the service appears or leaves; 'sample'
// (values object) for every Sample; 'changed' (interface name) when the
// properties or the objects of an interface change. GObject signals, as
// GNOME Shell 42 and 48 both have them (gjs's legacy Signals module is not
// an ES module); whoever connects disconnects.
export const JetsondClient = GObject.registerClass({
    Signals: {
        'running': {param_types: [GObject.TYPE_BOOLEAN]},
        'sample': {param_types: [GObject.TYPE_JSOBJECT]},
        'changed': {param_types: [GObject.TYPE_STRING]},
    },
}, class JetsondClient extends GObject.Object {
    _init(busType = Gio.BusType.SYSTEM) {
        super._init();
        this._busType = busType;
        this._cancellable = new Gio.Cancellable();
        this._manager = null;
        this._managerIds = [];
        this._proxies = new Map();
        this._sampleId = 0;
        this._connection = null;
    }

    start() {
        this._connection = Gio.bus_get_sync(this._busType, null);
        this._sampleId = this._connection.signal_subscribe(BUS_NAME, IFACE.metrics, 'Sample',
            OBJECT_PATH, null, Gio.DBusSignalFlags.NONE,
            (_c, _sender, _path, _iface, _signal, params) => this._onSample(params));
        // Without DO_NOT_AUTO_START the bus starts jetsond if it is
        // installed but not running yet (it is D-Bus activatable).
        Gio.DBusObjectManagerClient.new_for_bus(this._busType, Gio.DBusObjectManagerClientFlags.NONE,
            BUS_NAME, OBJECT_PATH, null, this._cancellable, (_o, result) => {
                const manager = this._finish(() => Gio.DBusObjectManagerClient.new_for_bus_finish(result));
                if (!manager)
                    return;
                this._manager = manager;
                const fansChanged = () => this.emit('changed', IFACE.fan);
                this._managerIds = [
                    manager.connect('notify::name-owner', () => this.emit('running', this.running)),
                    manager.connect('object-added', fansChanged),
                    manager.connect('object-removed', fansChanged),
                    manager.connect('interface-added', fansChanged),
                    manager.connect('interface-removed', fansChanged),
                    manager.connect('interface-proxy-properties-changed', fansChanged),
                ];
                this.emit('running', this.running);
            });
        for (const iface of ROOT_INTERFACES)
            this._addRootProxy(iface);
        // An interface of the main object that appears later (NVPModel,
        // once a stuck sensor tier answers; Gpu, once a late GPU is
        // found) is announced here.
        this._addedId = this._connection.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.ObjectManager',
            'InterfacesAdded', OBJECT_PATH, OBJECT_PATH, Gio.DBusSignalFlags.NONE, () => {
                for (const iface of ROOT_INTERFACES) {
                    if (!this.has(iface))
                        this._addRootProxy(iface);
                }
            });
    }

    _finish(finish) {
        try {
            return finish();
        } catch (e) {
            if (!e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                logError(e, 'jetsond: cannot follow the service');
            return null;
        }
    }

    _addRootProxy(iface) {
        Gio.DBusProxy.new(this._connection, Gio.DBusProxyFlags.DO_NOT_AUTO_START, null,
            BUS_NAME, OBJECT_PATH, iface, this._cancellable, (_o, result) => {
                const proxy = this._finish(() => Gio.DBusProxy.new_finish(result));
                if (!proxy)
                    return;
                const old = this._proxies.get(iface);
                if (old)
                    old.disconnect(old._jetsondChangedId);
                proxy._jetsondChangedId = proxy.connect('g-properties-changed', () => this.emit('changed', iface));
                this._proxies.set(iface, proxy);
                this.emit('changed', iface);
            });
    }

    destroy() {
        this._cancellable.cancel();
        for (const id of [this._sampleId, this._addedId]) {
            if (id)
                this._connection.signal_unsubscribe(id);
        }
        this._sampleId = this._addedId = 0;
        for (const proxy of this._proxies.values())
            proxy.disconnect(proxy._jetsondChangedId);
        this._proxies.clear();
        if (this._manager) {
            this._managerIds.forEach(id => this._manager.disconnect(id));
            this._managerIds = [];
            this._manager = null;
        }
        this._connection = null;
    }

    get running() {
        return this._manager !== null && this._manager.name_owner !== null;
    }

    _onSample(params) {
        const [, values] = params.recursiveUnpack();
        this.emit('sample', values);
    }

    _proxy(path, iface) {
        if (!this.running)
            return null;
        if (path === OBJECT_PATH) {
            const proxy = this._proxies.get(iface);
            return proxy && (proxy.get_cached_property_names() || []).length > 0 ? proxy : null;
        }
        const object = this._manager.get_object(path);
        return object ? object.get_interface(iface) : null;
    }

    // A property of an interface on the main object, unpacked; undefined
    // if the service or the interface (the board lacks it) is absent.
    property(iface, name, path = OBJECT_PATH) {
        const proxy = this._proxy(path, iface);
        const value = proxy ? proxy.get_cached_property(name) : null;
        return value ? value.deepUnpack() : undefined;
    }

    has(iface) {
        return this._proxy(OBJECT_PATH, iface) !== null;
    }

    // The fans as [{index, path}], by index.
    fans() {
        if (!this.running)
            return [];
        return this._manager.get_objects()
            .map(o => o.get_object_path())
            .filter(p => p.startsWith(FAN_PATH_PREFIX) && this._proxy(p, IFACE.fan))
            .map(p => ({index: Number(p.slice(FAN_PATH_PREFIX.length)), path: p}))
            .sort((a, b) => a.index - b.index);
    }

    // Calls a write method; polkit may ask for a password, so no timeout.
    // Resolves when jetsond answers; rejects with the D-Bus error, as
    // {name, message} (message: jetsond's human text).
    call(iface, method, args, path = OBJECT_PATH) {
        return new Promise((resolve, reject) => {
            this._connection.call(BUS_NAME, path, iface, method, args, null,
                Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION, GLib.MAXINT32, this._cancellable,
                (connection, result) => {
                    try {
                        resolve(connection.call_finish(result));
                    } catch (e) {
                        if (e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                            return;
                        const name = Gio.DBusError.get_remote_error(e);
                        Gio.DBusError.strip_remote_error(e);
                        reject({name, message: e.message});
                    }
                });
        });
    }
});
