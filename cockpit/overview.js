// SPDX-License-Identifier: MIT
//
// What the page shows without changing anything: the board's identity
// (Board properties), the current values of the latest sample, the GPU
// process table (sortable by any column) and the hardware engines. Every
// value element carries data-value, the raw value from jetsond, beside
// its formatted text.

import {h, $, format, value} from "./dom.js";
import {CommandLines} from "./cmdline.js";

const IDENTITY = [
    ["Model", "Model"], ["Module", "Module"], ["PartNumber", "Part number"], ["SoC", "SoC"],
    ["JetPack", "JetPack"], ["L4T", "L4T"], ["CudaArch", "CUDA architecture"], ["Codename", "Code name"],
    ["Distribution", "Distribution"], ["KernelRelease", "Kernel"], ["Machine", "Machine"],
];

export function showIdentity(board) {
    const list = $("identity");
    list.replaceChildren();
    const item = (id, label, text, raw) => list.append(
        h("div", {class: "pf-v6-c-description-list__group"},
          h("dt", {class: "pf-v6-c-description-list__term"}, h("span", {class: "pf-v6-c-description-list__text"}, label)),
          h("dd", {class: "pf-v6-c-description-list__description"},
            h("div", {class: "pf-v6-c-description-list__text", id, dataset: {value: raw}}, text))));
    for (const [property, label] of IDENTITY) {
        const v = board ? board[property] : undefined;
        if (v)
            item(`board-${property}`, label, v, v);
    }
    const libraries = board && board.Libraries ? Object.entries(board.Libraries) : [];
    if (libraries.length > 0) {
        libraries.sort(([a], [b]) => a.localeCompare(b));
        item("board-Libraries", "Libraries", libraries.map(([name, version]) => `${name} ${version}`).join(", "),
             JSON.stringify(Object.fromEntries(libraries)));
    }
}

// [id, label, key whose raw value is data-value, text(values) or undefined]
const NOW = [
    ["cpu", "CPU", "cpu.load", v => format.percent(v["cpu.load"])],
    ["gpu", "GPU", "gpu.load", v => format.percent(v["gpu.load"])],
    ["gpu-freq", "GPU clock", "gpu.freq", v => format.kHz(v["gpu.freq"])],
    ["emc", "EMC", "emc.load", v => format.percent(v["emc.load"])],
    ["ram", "RAM used", "ram.used", v => `${format.kib(v["ram.used"])} of ${format.kib(v["ram.total"])}`],
    ["swap", "Swap used", "swap.used", v => v["swap.total"] > 0 ? `${format.kib(v["swap.used"])} of ${format.kib(v["swap.total"])}` : "none"],
    ["power", "Board power", "power.total", v => format.mW(v["power.total"]) + (v["power.total_is_sum"] ? " (sum of rails)" : "")],
    ["fan", "Fan", "fan.0.speed", v => format.percent(v["fan.0.speed"]) + (v["fan.0.rpm"] !== undefined ? `, ${format.rpm(v["fan.0.rpm"])}` : "")],
    ["mode", "Power mode", "nvpmodel.name", v => v["nvpmodel.name"]],
    ["clocks", "jetson_clocks", "jetson_clocks.active", v => v["jetson_clocks.active"] ? "on" : "off"],
    ["uptime", "Up", "uptime", v => format.seconds(v["uptime"])],
];

// The hottest sensor as one more tile.
function hottest(values) {
    let best = null;
    for (const key of Object.keys(values)) {
        if (key.startsWith("temp.") && (best === null || values[key] > values[best]))
            best = key;
    }
    return best;
}

// Is it throttled, and why (issue 39): jetsond's summary, said as
// jetsonctl status says it; an alert while a reason holds or a discrete GPU
// is held down for more than idling, hidden otherwise. data-reasons holds
// throttle.reasons as jetsond sent it.
const REASON_LABELS = {
    over_current: "over-current", thermal_cpu: "CPU thermal cap", thermal_gpu: "GPU thermal cap",
    thermal_soc: "SoC thermal cap",
};

export function showThrottle(sample) {
    const v = {};
    for (const key of Object.keys(sample))
        v[key] = value(sample, key);
    const reasons = v["throttle.reasons"];
    const parts = [];
    let active = reasons !== undefined && reasons !== "none";
    if (reasons !== undefined)
        parts.push(`${reasons.split(",").map(r => REASON_LABELS[r] || r).join(", ")} now`);
    if (v["throttle.oc_events"] !== undefined)
        parts.push(`${v["throttle.oc_events"]} over-current event${v["throttle.oc_events"] === 1 ? "" : "s"} since boot`);
    for (const key of Object.keys(v).filter(k => /^dgpu\.\d+\.throttle_reasons$/.test(k)).sort()) {
        if (v[key] === "none" || v[key] === "idle")
            continue;
        active = true;
        parts.push(`GPU ${key.split(".")[1]}: ${v[key].split(",").join(", ")}`);
    }
    const alert = $("throttle");
    alert.dataset.reasons = reasons === undefined ? "" : reasons;
    alert.dataset.ocEvents = v["throttle.oc_events"] === undefined ? "" : String(v["throttle.oc_events"]);
    $("throttle-text").textContent = parts.join("; ");
    alert.hidden = !active;
}

export function showNow(sample) {
    const plain = {};
    for (const key of Object.keys(sample))
        plain[key] = value(sample, key);
    const tiles = [];
    for (const [id, label, key, text] of NOW) {
        if (plain[key] === undefined)
            continue;
        tiles.push([id, label, key, text(plain)]);
    }
    // Every NVIDIA GPU NVML lists (a PC's cards, Thor's JetPack 7.2 dGPU).
    for (const key of Object.keys(plain).filter(k => /^dgpu\.\d+\.load$/.test(k)).sort()) {
        const n = key.split(".")[1];
        const mem = plain[`dgpu.${n}.mem_used`], total = plain[`dgpu.${n}.mem_total`];
        tiles.push([`dgpu-${n}`, `GPU ${n} (NVML)`, key, format.percent(plain[key]) +
                    (mem !== undefined && total ? `, ${format.kib(mem)} of ${format.kib(total)}` : "")]);
    }
    const hot = hottest(plain);
    if (hot)
        tiles.push(["temp", `Hottest (${hot.slice(5)})`, hot, format.celsius(plain[hot])]);
    const list = $("now");
    list.replaceChildren(...tiles.map(([id, label, key, text]) =>
        h("div", {},
          h("dt", {}, label),
          h("dd", {id: `now-${id}`, dataset: {key, value: JSON.stringify(plain[key])}}, text))));
}

const COLUMNS = [
    {field: "pid", label: "PID", text: p => String(p.pid), numeric: true},
    // The whole command line where this user may read it, as nvitop's
    // COMMAND; jetsond's name (comm) otherwise.
    {field: "command", label: "Command", text: p => p.command || ""},
    {field: "user", label: "User", text: p => p.user || ""},
    {field: "gpu_mem", label: "GPU memory", text: p => p.gpu_mem === undefined ? "" : format.kib(p.gpu_mem), numeric: true},
    {field: "cpu", label: "CPU", text: p => p.cpu === undefined ? "" : format.percent(p.cpu), numeric: true},
    {field: "rss", label: "RSS", text: p => p.rss === undefined ? "" : format.kib(p.rss), numeric: true},
];

export class ProcessTable {
    constructor() {
        this.sort = {field: "gpu_mem", descending: true};
        this.processes = [];
        this.lines = new CommandLines(() => this.update(this.sample));
        this.head = $("processes-head");
        this.sortSelect = $("processes-sort");
        this.sortSelect.replaceChildren(...COLUMNS.flatMap(c => [
            h("option", {value: `${c.field}:asc`}, `${c.label}, ascending`),
            h("option", {value: `${c.field}:desc`}, `${c.label}, descending`),
        ]));
        this.sortSelect.addEventListener("change", () => {
            const [field, direction] = this.sortSelect.value.split(":");
            this.sort = {field, descending: direction === "desc"};
            this.buildHead();
            this.render();
        });
        this.buildHead();
    }

    buildHead() {
        this.sortSelect.value = `${this.sort.field}:${this.sort.descending ? "desc" : "asc"}`;
        this.head.replaceChildren(...COLUMNS.map(column => {
            const sorted = this.sort.field === column.field;
            return h("th", {class: `pf-v6-c-table__th pf-v6-c-table__sort${sorted ? " pf-m-selected" : ""}`,
                            scope: "col", "aria-sort": sorted ? (this.sort.descending ? "descending" : "ascending") : "none",
                            dataset: {field: column.field}},
                     h("button", {type: "button", class: "pf-v6-c-table__button",
                                  onclick: () => this.sortBy(column.field)},
                       h("div", {class: "pf-v6-c-table__button-content"},
                         h("span", {class: "pf-v6-c-table__text"}, column.label),
                         h("span", {class: "pf-v6-c-table__sort-indicator", "aria-hidden": "true"},
                           sorted ? (this.sort.descending ? "▼" : "▲") : "⇅"))));
        }));
    }

    sortBy(field) {
        if (this.sort.field === field)
            this.sort.descending = !this.sort.descending;
        else
            this.sort = {field, descending: COLUMNS.find(c => c.field === field).numeric === true};
        this.buildHead();
        this.render();
    }

    update(sample) {
        this.sample = sample;
        const byPid = new Map();
        for (const key of Object.keys(sample)) {
            const m = /^process\.(\d+)\.(name|user|gpu_mem|cpu|rss|start_time)$/.exec(key);
            if (!m)
                continue;
            const pid = Number(m[1]);
            if (!byPid.has(pid))
                byPid.set(pid, {pid});
            byPid.get(pid)[m[2]] = value(sample, key);
        }
        this.processes = [...byPid.values()];
        for (const p of this.processes)
            p.command = this.lines.lookup(p.pid, p.name, p.start_time) || p.name;
        this.lines.keep(new Set(this.processes.map(p => `${p.pid}:${p.start_time}`)));
        this.render();
    }

    render() {
        const {field, descending} = this.sort;
        const sign = descending ? -1 : 1;
        const rows = [...this.processes].sort((a, b) => {
            const x = a[field], y = b[field];
            if (x === y)
                return a.pid - b.pid;
            if (x === undefined)
                return 1;
            if (y === undefined)
                return -1;
            return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y)));
        });
        $("processes-body").replaceChildren(...rows.map(p =>
            h("tr", {class: "pf-v6-c-table__tr", dataset: {pid: String(p.pid)}},
              COLUMNS.map(column => h("td", {class: "pf-v6-c-table__td", "data-label": column.label,
                                             dataset: {field: column.field}}, column.text(p))))));
        $("processes").hidden = rows.length === 0;
        $("processes-sort-row").hidden = rows.length === 0;
        $("processes-empty").hidden = rows.length > 0;
    }
}

export function showEngines(sample) {
    const engines = new Map();
    for (const key of Object.keys(sample)) {
        const m = /^engine\.([^.]+)\.(online|freq)$/.exec(key);
        if (!m)
            continue;
        if (!engines.has(m[1]))
            engines.set(m[1], {});
        engines.get(m[1])[m[2]] = value(sample, key);
    }
    const names = [...engines.keys()].sort();
    $("engines").replaceChildren(...names.map(name => {
        const e = engines.get(name);
        const text = e.online ? (e.freq !== undefined ? `${name} ${format.kHz(e.freq)}` : `${name} on`) : `${name} off`;
        return h("li", {},
                 h("span", {class: `pf-v6-c-label pf-m-compact${e.online ? " pf-m-green" : ""}`,
                            id: `engine-${name}`, dataset: {online: String(Boolean(e.online))}},
                   h("span", {class: "pf-v6-c-label__content"}, h("span", {class: "pf-v6-c-label__text"}, text))));
    }));
    $("engines-empty").hidden = names.length > 0;
}
