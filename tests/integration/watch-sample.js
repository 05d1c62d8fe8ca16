// SPDX-License-Identifier: MIT
//
// What a GNOME Shell extension does with jetsond: a Board proxy built
// from the interface XML (Gio.DBusProxy.makeProxyWrapper, asynchronous
// init as in an extension's enable()) for the identity, and a
// subscription to Metrics.Sample on the system bus for the live values.
//
//   gjs watch-sample.js [BOARD_XML]
//
// Prints
//   Model=<Model>
//   JetPack=<JetPack>
//   Sample keys=<n> nvpmodel.name=<name> cpu.0.freq=<kHz>
// and exits 0 after the first Sample; exits 1 on an error or when no
// Sample arrives within 5 s. BOARD_XML defaults to the repository's
// introspection/org.jetsond.Jetson1.Board.xml (an installed extension
// would read $datadir/dbus-1/interfaces/ or embed the XML).

const { Gio, GLib } = imports.gi;
const System = imports.system;

const BUS_NAME = 'org.jetsond.Jetson1';
const OBJECT_PATH = '/org/jetsond/Jetson1';
const METRICS_IFACE = 'org.jetsond.Jetson1.Metrics';
const TIMEOUT_S = 5;

function boardXmlPath() {
    if (ARGV.length > 0)
        return ARGV[0];
    const here = GLib.path_get_dirname(System.programPath);
    return GLib.build_filenamev([here, '..', '..', 'introspection', 'org.jetsond.Jetson1.Board.xml']);
}

function readText(path) {
    const [, bytes] = GLib.file_get_contents(path);
    return new TextDecoder().decode(bytes);
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
let subscription = 0;
let timeoutId = 0;

function finish(code, error) {
    if (error)
        printerr(`watch-sample: ${error}`);
    status = code;
    loop.quit();
}

function onSample(connection, sender, path, iface, signal, params) {
    // ta{sv}: deepUnpack() leaves the values as GVariants, as a panel
    // indicator would read only the few keys it shows.
    const [timestamp, values] = params.deepUnpack();
    const keys = Object.keys(values);
    const name = values['nvpmodel.name'] ? values['nvpmodel.name'].unpack() : '';
    const freq = values['cpu.0.freq'] ? values['cpu.0.freq'].unpack() : '';
    print(`Sample keys=${keys.length} nvpmodel.name=${name} cpu.0.freq=${freq} timestamp=${timestamp}`);
    finish(0);
}

function main() {
    let BoardProxy;
    try {
        BoardProxy = Gio.DBusProxy.makeProxyWrapper(readText(boardXmlPath()));
    } catch (e) {
        printerr(`watch-sample: cannot load the Board interface: ${e.message}`);
        return false;
    }

    timeoutId = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, TIMEOUT_S, () => {
        timeoutId = 0;
        finish(1, `no Sample signal within ${TIMEOUT_S} s`);
        return GLib.SOURCE_REMOVE;
    });

    BoardProxy(Gio.DBus.system, BUS_NAME, OBJECT_PATH, (proxy, error) => {
        if (error) {
            finish(1, `cannot create the Board proxy: ${error.message}`);
            return;
        }
        // Without an owner the property cache is empty: say so instead
        // of printing "null".
        if (proxy.g_name_owner === null) {
            finish(1, `${BUS_NAME} is not on the system bus`);
            return;
        }
        print(`Model=${proxy.Model}`);
        print(`JetPack=${proxy.JetPack}`);
        subscription = Gio.DBus.system.signal_subscribe(BUS_NAME, METRICS_IFACE, 'Sample', OBJECT_PATH, null,
            Gio.DBusSignalFlags.NONE, onSample);
    });
    return true;
}

let run = false;
try {
    run = main();
} catch (e) {
    printerr(`watch-sample: ${e.message}`);
}
if (run)
    loop.run();
if (subscription)
    Gio.DBus.system.signal_unsubscribe(subscription);
if (timeoutId)
    GLib.source_remove(timeoutId);
System.exit(status);
