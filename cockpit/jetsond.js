// SPDX-License-Identifier: MIT
//
// jetsond as the page sees it, through Cockpit's D-Bus channel only
// (cockpit.dbus, as Cockpit 264 offers it): a watcher that follows the
// bus name, and per run of jetsond a Session holding the property proxies
// of /org/jetsond/Jetson1 and of the fan objects, the Sample subscription
// and the method calls. A new run of jetsond gets a new Session (a new
// channel), so nothing of the old run's cache survives a restart.

/* global cockpit */

export const BUS_NAME = "org.jetsond.Jetson1";
export const PATH = "/org/jetsond/Jetson1";
export const FAN_PREFIX = "/org/jetsond/Jetson1/fan/";
export const IFACE = {
    board: "org.jetsond.Jetson1.Board",
    metrics: "org.jetsond.Jetson1.Metrics",
    nvpmodel: "org.jetsond.Jetson1.NVPModel",
    clocks: "org.jetsond.Jetson1.JetsonClocks",
    memory: "org.jetsond.Jetson1.Memory",
    gpu: "org.jetsond.Jetson1.Gpu",
    fan: "org.jetsond.Jetson1.Fan",
    manager: "org.jetsond.Jetson1.Manager",
};
const ROOT_INTERFACES = ["board", "metrics", "nvpmodel", "clocks", "memory", "gpu", "manager"];

// The sampling period the charts need while the page is visible: one
// point a second keeps 15 minutes at 900 points per series.
export const SAMPLE_INTERVAL_USEC = 1000000;

// Cockpit's promises (264) are thenables with their own semantics: make
// every result a native Promise that rejects with {name, message}.
function native(thenable) {
    return new Promise((resolve, reject) => {
        thenable.then(resolve, error => reject({
            name: error && error.name ? error.name : "",
            message: error && error.message ? error.message : String(error),
        }));
    });
}

function loaded(proxyOrProxies) {
    return new Promise(resolve => proxyOrProxies.wait(() => resolve(proxyOrProxies)));
}

export class Session {
    constructor(owner) {
        this.owner = owner;
        // As Cockpit's own pages talk to system services: through the
        // administrative bridge when the user turned on administrative
        // access (root, whom polkit allows), else through the user's own
        // (polkit asks or refuses: "Limited access" still offers every control).
        this.client = cockpit.dbus(BUS_NAME, {bus: "system", superuser: "try"});
        this.proxies = {};
        for (const name of ROOT_INTERFACES)
            this.proxies[name] = this.client.proxy(IFACE[name], PATH);
        // Every Fan object below the main one, keyed by path.
        this.fanProxies = this.client.proxies(IFACE.fan, PATH);
        this.sampleMatch = null;
        this.closed = false;
    }

    // Resolves once every proxy has loaded what the bus has.
    ready() {
        return Promise.all([...Object.values(this.proxies), this.fanProxies].map(loaded));
    }

    // The proxy of interface NAME ("board", ...) if the board has it.
    get(name) {
        const proxy = this.proxies[name];
        return proxy && proxy.valid ? proxy : null;
    }

    // The fans as [{index, path, proxy}], by index.
    fans() {
        return Object.keys(this.fanProxies)
            .filter(path => path.startsWith(FAN_PREFIX) && this.fanProxies[path].valid)
            .map(path => ({index: Number(path.slice(FAN_PREFIX.length)), path, proxy: this.fanProxies[path]}))
            .sort((a, b) => a.index - b.index);
    }

    // Calls when anything the controls show changes.
    onChanged(callback) {
        for (const proxy of Object.values(this.proxies))
            proxy.addEventListener("changed", callback);
        for (const event of ["added", "changed", "removed"])
            this.fanProxies.addEventListener(event, callback);
    }

    // A method that changes the board: polkit may ask for a password
    // (the "i" flag sets ALLOW_INTERACTIVE_AUTHORIZATION), so no timeout.
    write(name, method, args, path = PATH) {
        return native(this.client.call(path, IFACE[name], method, args, {flags: "i"}));
    }

    snapshot() {
        return native(this.client.call(PATH, IFACE.metrics, "GetSnapshot", []))
            .then(([timestamp, values]) => ({timestamp, values}));
    }

    // Samples to CALLBACK(timestamp_usec, values) at the page's rate, until
    // stopSamples(); jetsond drops the request itself if the channel goes.
    startSamples(callback) {
        if (this.sampleMatch || this.closed)
            return Promise.resolve();
        this.sampleMatch = this.client.subscribe({path: PATH, interface: IFACE.metrics, member: "Sample"},
                                                 (path, iface, member, args) => callback(args[0], args[1]));
        return native(this.client.call(PATH, IFACE.metrics, "Subscribe", [SAMPLE_INTERVAL_USEC]));
    }

    stopSamples() {
        if (!this.sampleMatch)
            return Promise.resolve();
        this.sampleMatch.remove();
        this.sampleMatch = null;
        if (this.closed)
            return Promise.resolve();
        return native(this.client.call(PATH, IFACE.metrics, "Unsubscribe", []));
    }

    close() {
        if (this.sampleMatch)
            this.sampleMatch.remove();
        this.sampleMatch = null;
        this.closed = true;
        this.client.close();
    }
}

// Follows the bus name: ON_OWNER(owner) with the unique name of each new
// run of jetsond, or null while no jetsond owns the name.
export function watchJetsond(onOwner) {
    let current;
    const follow = owner => {
        owner = owner || null;
        if (owner === current)
            return;
        current = owner;
        onOwner(owner);
    };
    const start = () => {
        const watcher = cockpit.dbus(BUS_NAME, {bus: "system"});
        watcher.addEventListener("owner", (event, owner) => follow(owner));
        // The bridge closed the channel (it restarted, or the bus went):
        // nothing is known until a new channel says so.
        watcher.addEventListener("close", () => {
            follow(null);
            window.setTimeout(start, 2000);
        });
    };
    start();
}
