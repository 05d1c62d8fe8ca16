// SPDX-License-Identifier: MIT
//
// jetsond as the page sees it, through Cockpit's D-Bus channel only
// (cockpit.dbus, as Cockpit 264 offers it): a watcher that follows the
// bus name, and per run of jetsond a Session holding the property proxies
// of /org/jetsond/Jetson1 and of the fan objects, the sample stream at the
// page's rate and the method calls. A new run of jetsond gets a new Session (a new
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

// What a signal of the page's stream carries, by member: Sample is
// (t timestamp, a{sv} values); SampleAt is (s period, t timestamp, a{sv}
// values), its period first so that the bus routes it by arg0.
const STREAM_ARGS = {Sample: 0, SampleAt: 1};

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
        // The member the page listens to while it has a match: "Sample",
        // or "SampleAt" for its own Subscribe() request.
        this.sampleMember = null;
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
    // jetsond broadcasts Sample at its DefaultInterval whatever anybody
    // asked for: where that is the page's rate the page only listens, and
    // holds no request. Otherwise it asks for its own rate (Subscribe) and
    // listens to the SampleAt signals of that period only (arg0): a faster
    // or slower stream of another client never reaches it, and the page's
    // request changes nobody else's Sample. The match goes first, so that
    // no SampleAt of the new request passes before it.
    // Resolves to the stream's member ("Sample" or "SampleAt").
    startSamples(callback) {
        if (this.sampleMatch || this.closed)
            return Promise.resolve(this.sampleMember);
        const metrics = this.get("metrics");
        const defaultInterval = metrics ? Number(metrics.data.DefaultInterval) : NaN;
        const member = defaultInterval === SAMPLE_INTERVAL_USEC ? "Sample" : "SampleAt";
        const match = {path: PATH, interface: IFACE.metrics, member};
        if (member === "SampleAt")
            match.arg0 = String(SAMPLE_INTERVAL_USEC);
        const first = STREAM_ARGS[member];
        this.sampleMember = member;
        this.sampleMatch = this.client.subscribe(match, (path, iface, signal, args) =>
            callback(args[first], args[first + 1]));
        if (member === "Sample")
            return Promise.resolve(member);
        return native(this.client.call(PATH, IFACE.metrics, "Subscribe", [SAMPLE_INTERVAL_USEC]))
            .then(() => member);
    }

    stopSamples() {
        if (!this.sampleMatch)
            return Promise.resolve();
        this.sampleMatch.remove();
        this.sampleMatch = null;
        const requested = this.sampleMember === "SampleAt";
        this.sampleMember = null;
        if (this.closed || !requested)
            return Promise.resolve();
        return native(this.client.call(PATH, IFACE.metrics, "Unsubscribe", []));
    }

    close() {
        if (this.sampleMatch)
            this.sampleMatch.remove();
        this.sampleMatch = null;
        this.sampleMember = null;
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
