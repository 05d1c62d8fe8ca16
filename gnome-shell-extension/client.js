// SPDX-License-Identifier: MIT
//
// jetsond as the indicator sees it, through the public D-Bus API only:
// an object manager client for the properties of /org/jetsond/Jetson1 and
// the fan objects (it follows the service as it leaves and comes back), the
// compact ValuesAt stream for live values (GetKeys once, then a double per
// key: Format.compactValues), and method calls that let polkit ask for a
// password (the shell's own dialog).
// No GNOME Shell imports: as an ES module (45 and later) the class runs
// in plain gjs beside format.js. Shared by both flavours of the extension
// (build-extension.py).

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import * as Format from './format.js';

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

// Why ValuesAt and not Sample: the shell unpacks every signal on its main
// thread, the compositor's. recursiveUnpack() of a Sample (240 keys, each
// a string, a variant and a value) took 2.5 ms in gjs 1.74 here, once a
// second; a ValuesAt array read as a Float64Array takes a few microseconds
// (docs/performance.md). Everything the indicator shows at each sample is
// a number; only a discrete GPU's throttle reason names, which are strings,
// come from one GetSnapshot() when its numbers say it is held down
// (snapshot()).
//
// Signals: 'running' (bool) when the service appears or leaves; 'sample'
// (values object: key -> number, absent keys left out) for every ValuesAt
// signal of its period; 'changed' (interface name) when the
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
        this._valuesId = 0;
        // The period this client asked for, and which its ValuesAt match
        // rule names (arg0); 0 before the first.
        this._valuesPeriod = 0;
        this._connection = null;
        // The compact form's key list (GetKeys), and whether a GetKeys()
        // is on its way.
        this._keys = null;
        this._generation = 0;
        this._fetchingKeys = false;
        // Bumped when the name changes owner: every run numbers its key
        // lists from 1, so an answer of the run before is dropped.
        this._run = 0;
    }

    start() {
        this._connection = Gio.bus_get_sync(this._busType, null);
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
                    manager.connect('notify::name-owner', () => this._ownerChanged()),
                    manager.connect('object-added', fansChanged),
                    manager.connect('object-removed', fansChanged),
                    manager.connect('interface-added', fansChanged),
                    manager.connect('interface-removed', fansChanged),
                    manager.connect('interface-proxy-properties-changed', fansChanged),
                ];
                this._ownerChanged();
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
        // The shell's system bus connection outlives this client: the
        // request is dropped here, not when a connection closes. Sent
        // without the (cancelled) cancellable, and not waited for; it
        // follows a SubscribeValues() still on its way, on the same
        // connection, and is harmless where there was none.
        if (this.running) {
            this._connection.call(BUS_NAME, OBJECT_PATH, IFACE.metrics, 'Unsubscribe', null, null,
                Gio.DBusCallFlags.NO_AUTO_START, -1, null, null);
        }
        for (const id of [this._valuesId, this._addedId]) {
            if (id)
                this._connection.signal_unsubscribe(id);
        }
        this._valuesId = this._addedId = 0;
        this._valuesPeriod = 0;
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

    // A new run of jetsond holds no request of ours, and its key lists
    // and its DefaultInterval are its own: ask again each time the name
    // gets an owner.
    _ownerChanged() {
        this._run++;
        this._keys = null;
        this._generation = 0;
        this._fetchingKeys = false;
        if (this.running) {
            this._subscribeValues();
            this._fetchKeys();
        }
        this.emit('running', this.running);
    }

    // DefaultInterval, then the match rule for the ValuesAt signals of our
    // period only (arg0: jetsond sends one signal per subscribed period,
    // and those of other clients' periods must not reach the shell), then
    // SubscribeValues() for that period: the rule goes first, so that no
    // signal of the request passes before it.
    _subscribeValues() {
        const run = this._run;
        this._metricsProperty('DefaultInterval').catch(e => {
            log(`jetsond: cannot read DefaultInterval: ${e.message}`);
            return undefined;
        }).then(defaultInterval => {
            if (run !== this._run)
                return undefined;
            const period = Format.valuesInterval(defaultInterval);
            this._matchValues(period);
            return this._metricsCall('SubscribeValues', new GLib.Variant('(t)', [period]));
        }).catch(e => log(`jetsond: SubscribeValues failed: ${e.message}`));
    }

    _matchValues(period) {
        if (period === this._valuesPeriod && this._valuesId)
            return;
        if (this._valuesId)
            this._connection.signal_unsubscribe(this._valuesId);
        this._valuesPeriod = period;
        this._valuesId = this._connection.signal_subscribe(BUS_NAME, IFACE.metrics, 'ValuesAt',
            OBJECT_PATH, String(period), Gio.DBusSignalFlags.NONE,
            (_c, _sender, _path, _iface, _signal, params) => this._onValues(params, 1));
    }

    // GetKeys(), then the latest values at once, without waiting for the
    // next tick (at start, and when the list changed).
    _fetchKeys() {
        if (this._fetchingKeys)
            return;
        this._fetchingKeys = true;
        const run = this._run;
        this._metricsCall('GetKeys', null).then(reply => {
            if (run !== this._run)
                return undefined;
            this._fetchingKeys = false;
            const [generation, keys] = reply.deepUnpack();
            this._generation = generation;
            this._keys = keys;
            return this._metricsCall('GetValues', null).then(values => {
                if (run === this._run)
                    this._onValues(values, 0, true);
            });
        }).catch(e => {
            if (run !== this._run)
                return;
            this._fetchingKeys = false;
            log(`jetsond: cannot read the compact values: ${e.message}`);
        });
    }

    // A ValuesAt signal (period, timestamp, generation, ad), read from
    // FIRST = 1, or a GetValues() reply (timestamp, generation, ad), from
    // FIRST = 0. Values of another key list than ours are dropped, and the
    // list asked for again (a newer list can only follow this signal).
    _onValues(params, first, fromCall = false) {
        const generation = params.get_child_value(first + 1).get_uint32();
        if (this._keys === null || generation !== this._generation) {
            if (!fromCall)
                this._fetchKeys();
            return;
        }
        const values = Format.compactValues(this._keys, params.get_child_value(first + 2));
        if (values !== null)
            this.emit('sample', values);
    }

    // The latest sample whole (strings included), unpacked: where the
    // throttle notice finds a discrete GPU's reason names. Resolves to a
    // values object.
    snapshot() {
        return this._metricsCall('GetSnapshot', null).then(reply => reply.recursiveUnpack()[1]);
    }

    // A Metrics method: nothing to authorize, the bus's default timeout.
    _metricsCall(method, args) {
        return this._call(OBJECT_PATH, IFACE.metrics, method, args, Gio.DBusCallFlags.NO_AUTO_START, -1);
    }

    // A Metrics property, unpacked (Metrics has no proxy here: its one
    // property read is this, once a run).
    _metricsProperty(name) {
        return this._call(OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'Get',
            new GLib.Variant('(ss)', [IFACE.metrics, name]), Gio.DBusCallFlags.NO_AUTO_START, -1)
            .then(reply => reply.recursiveUnpack()[0]);
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
        return this._call(path, iface, method, args, Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION,
            GLib.MAXINT32);
    }

    // A call that settles never once this client is destroyed (cancelled).
    _call(path, iface, method, args, flags, timeout) {
        return new Promise((resolve, reject) => {
            this._connection.call(BUS_NAME, path, iface, method, args, null, flags, timeout, this._cancellable,
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
