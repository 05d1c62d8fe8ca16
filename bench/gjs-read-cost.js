// SPDX-License-Identifier: MIT
//
// What a sample costs a gjs client (the GNOME Shell extension's main
// thread): the whole sample as the Sample signal and GetSnapshot carry it
// (ta{sv}), unpacked with recursiveUnpack(), against the compact form as
// the extension reads it from a ValuesAt signal (format.js
// compactValues() of its ad; GetValues carries the same ad). Both are
// taken from the live jetsond once and unpacked CALLS times: the D-Bus
// traffic is the same for a signal, only the unpacking is timed.
//   gjs -m bench/gjs-read-cost.js FORMAT_DIR [CALLS]
// (run by bench/gjs-read-cost.py, which starts jetsond on a private bus).

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import System from 'system';

const Format = await import(`file://${System.programArgs[0]}/format.js`);
const CALLS = Number(System.programArgs[1] || 300);

const bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, null);
const call = method => bus.call_sync('org.jetsond.Jetson1', '/org/jetsond/Jetson1', 'org.jetsond.Jetson1.Metrics',
    method, null, null, Gio.DBusCallFlags.NONE, -1, null);
const snapshot = call('GetSnapshot');
const [, keys] = call('GetKeys').deepUnpack();
const compact = call('GetValues');

function best(what, unpack) {
    let fastest = Infinity, result;
    for (let round = 0; round < 3; round++) {
        const start = GLib.get_monotonic_time();
        for (let i = 0; i < CALLS; i++)
            result = unpack();
        fastest = Math.min(fastest, (GLib.get_monotonic_time() - start) / CALLS);
    }
    print(`figure: gjs ${what}: ${fastest.toFixed(1)} us per sample (best of 3 x ${CALLS}), ` +
          `${Object.keys(result).length} keys`);
}

best('Sample, recursiveUnpack()', () => snapshot.recursiveUnpack()[1]);
best('ValuesAt, compactValues()', () => Format.compactValues(keys, compact.get_child_value(2)));
best('ValuesAt, deepUnpack() of the array', () => {
    const values = {};
    compact.get_child_value(2).deepUnpack().forEach((v, i) => {
        if (!Number.isNaN(v))
            values[keys[i]] = v;
    });
    return values;
});
