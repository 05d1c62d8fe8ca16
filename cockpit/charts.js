// SPDX-License-Identifier: MIT
//
// The live charts: the last 15 minutes of samples kept per key, drawn with
// uPlot over the window the user picks (1, 5 or 15 minutes). A chart's
// series are the keys of the samples it matches, found as they come (the
// cores, rails, zones and GPUs of the board), so one definition serves
// every board. The x axis is jetsond's own timestamp, not the browser's
// clock. Each chart element carries data-points, the number of points it
// draws, and data-series, its keys (for tests and for the curious).

/* global uPlot */

import {h, $, decimal} from "./dom.js";

const KEEP_SECONDS = 15 * 60;
const HEIGHT = 190;
const PALETTE = ["#0066cc", "#f0ab00", "#3e8635", "#c9190b", "#8476d1", "#009596", "#ec7a08",
                 "#6a6e73", "#004b95", "#b8bbbe", "#7cc674", "#a30000", "#73c5c5", "#f4c145",
                 "#2b9af3", "#5752d1"];

const percent = {unit: "%", range: [0, 100], scale: 1, text: v => `${decimal(v)} %`};
const indexed = (re, label) => key => {
    const m = re.exec(key);
    return m ? label(m) : null;
};

// label(key) gives the series' name for the keys a chart draws, else null.
const CHARTS = [
    {id: "cpu", title: "CPU", ...percent,
     label: key => key === "cpu.load" ? "All" : indexed(/^cpu\.(\d+)\.load$/, m => `CPU ${m[1]}`)(key)},
    {id: "gpu", title: "GPU", ...percent,
     label: key => key === "gpu.load" ? "GPU" : indexed(/^dgpu\.(\d+)\.load$/, m => `GPU ${m[1]} (NVML)`)(key)},
    {id: "emc", title: "Memory controller (EMC)", ...percent,
     label: key => key === "emc.load" ? "EMC" : null},
    {id: "memory", title: "RAM and swap", unit: "GiB", scale: 1 / (1024 * 1024), text: v => `${decimal(v, 2)} GiB`,
     label: key => ({"ram.used": "RAM used", "swap.used": "Swap used"})[key] || null},
    {id: "power", title: "Power", unit: "W", scale: 1 / 1000, text: v => `${decimal(v, 2)} W`,
     label: key => key === "power.total" ? "Board" : indexed(/^power\.(.+)\.power$/, m => m[1])(key)},
    {id: "temp", title: "Temperatures", unit: "°C", scale: 1, text: v => `${decimal(v)} °C`,
     label: indexed(/^temp\.(.+)$/, m => m[1])},
    {id: "fan", title: "Fan", ...percent,
     label: indexed(/^fan\.(\d+)\.speed$/, m => `Fan ${m[1]}`)},
];

// Ticks on whole seconds and minutes, labelled with the time of day.
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900];
function clockTime(seconds) {
    return new Date(seconds * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false});
}

function themeColor(name, fallback) {
    const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
}

class Chart {
    constructor(def, container) {
        this.def = def;
        this.keys = [];
        this.plot = null;
        this.body = h("div", {class: "jetsond-chart", id: `chart-${def.id}`, dataset: {points: "0", series: ""},
                              role: "img", "aria-label": `${def.title} over time`});
        this.card = h("section", {class: "pf-v6-c-card jetsond-chart-card", id: `chart-card-${def.id}`, hidden: true,
                                  "aria-labelledby": `chart-title-${def.id}`},
                      h("div", {class: "pf-v6-c-card__title"},
                        h("h3", {class: "pf-v6-c-card__title-text", id: `chart-title-${def.id}`},
                          `${def.title} (${def.unit})`)),
                      h("div", {class: "pf-v6-c-card__body"}, this.body));
        container.append(this.card);
        new ResizeObserver(() => this.resize()).observe(this.body);
    }

    width() {
        return Math.max(200, this.body.clientWidth);
    }

    resize() {
        if (this.plot && this.plot.width !== this.width())
            this.plot.setSize({width: this.width(), height: HEIGHT});
    }

    build() {
        if (this.plot)
            this.plot.destroy();
        this.plot = null;
        this.card.hidden = this.keys.length === 0;
        this.body.dataset.series = this.keys.join(" ");
        if (this.keys.length === 0)
            return;
        const axis = themeColor("--jetsond-chart-axis", "#6a6e73");
        const grid = themeColor("--jetsond-chart-grid", "#d2d2d2");
        const def = this.def;
        const axisStyle = {stroke: axis, grid: {stroke: grid, width: 1}, ticks: {stroke: grid, width: 1}};
        this.plot = new uPlot({
            width: this.width(),
            height: HEIGHT,
            scales: {x: {time: true}, y: def.range ? {range: def.range} : {}},
            series: [
                {},
                ...this.keys.map((key, i) => ({
                    label: def.label(key),
                    stroke: PALETTE[i % PALETTE.length],
                    width: key === "cpu.load" || key === "power.total" ? 2.5 : 1.5,
                    points: {show: false},
                })),
            ],
            axes: [{...axisStyle, space: 80, incrs: TIME_STEPS, values: (u, splits) => splits.map(clockTime)},
                   {...axisStyle, size: 56, values: (u, splits) => splits.map(v => decimal(v, 2))}],
            legend: {live: false},
            cursor: {drag: {x: false, y: false}},
        }, [[], ...this.keys.map(() => [])], this.body);
    }

    // KEYS: the history's keys this chart draws; DATA: [x, ...columns].
    draw(keys, data) {
        if (keys.join("\n") !== this.keys.join("\n")) {
            this.keys = keys;
            this.build();
        }
        if (this.plot)
            this.plot.setData(data);
        this.body.dataset.points = String(this.plot ? data[0].length : 0);
    }
}

export class Charts {
    constructor(container, windowButtons) {
        this.times = [];
        this.columns = new Map(); // key -> values (scaled), aligned with times
        this.windowSeconds = 60;
        this.charts = CHARTS.map(def => new Chart(def, container));
        for (const button of windowButtons) {
            button.addEventListener("click", () => this.setWindow(Number(button.dataset.minutes) * 60, windowButtons));
        }
    }

    setWindow(seconds, buttons) {
        this.windowSeconds = seconds;
        for (const button of buttons) {
            const selected = Number(button.dataset.minutes) * 60 === seconds;
            button.classList.toggle("pf-m-selected", selected);
            button.setAttribute("aria-pressed", String(selected));
        }
        this.redraw();
    }

    chartOf(key) {
        return this.charts.find(chart => chart.def.label(key) !== null);
    }

    // A Sample (or GetSnapshot) at TIMESTAMP_USEC with VALUES ({key: {t, v}}).
    add(timestampUsec, values) {
        const t = Number(timestampUsec) / 1e6;
        if (this.times.length > 0 && t <= this.times[this.times.length - 1])
            return; // the snapshot and the first Sample can be the same reading
        this.times.push(t);
        const n = this.times.length;
        for (const [key, entry] of Object.entries(values)) {
            if (typeof entry.v !== "number")
                continue;
            const chart = this.chartOf(key);
            if (!chart)
                continue;
            let column = this.columns.get(key);
            if (!column) {
                column = new Array(n - 1).fill(null);
                this.columns.set(key, column);
            }
            column.push(entry.v * chart.def.scale);
        }
        for (const column of this.columns.values()) {
            if (column.length < n)
                column.push(null); // the key is absent from this sample: a gap
        }
        let old = 0;
        while (old < n && this.times[old] < t - KEEP_SECONDS)
            old++;
        if (old > 0) {
            this.times.splice(0, old);
            for (const column of this.columns.values())
                column.splice(0, old);
        }
        this.redraw();
    }

    // A gap in every line (samples were not asked for while hidden).
    gap() {
        if (this.times.length === 0)
            return;
        this.times.push(this.times[this.times.length - 1] + 0.001);
        for (const column of this.columns.values())
            column.push(null);
    }

    redraw() {
        const last = this.times.length > 0 ? this.times[this.times.length - 1] : 0;
        let first = 0;
        while (first < this.times.length && this.times[first] < last - this.windowSeconds)
            first++;
        const x = this.times.slice(first);
        for (const chart of this.charts) {
            const keys = [...this.columns.keys()].filter(key => this.chartOf(key) === chart).sort(compareKeys);
            chart.draw(keys, [x, ...keys.map(key => this.columns.get(key).slice(first))]);
        }
    }

    // Colours come from the theme: rebuild every chart after a change.
    restyle() {
        for (const chart of this.charts)
            chart.build();
        this.redraw();
    }
}

// Totals first, then numbers in numeric order (CPU 2 before CPU 10).
function compareKeys(a, b) {
    const rank = k => (k === "cpu.load" || k === "gpu.load" || k === "power.total" || k === "ram.used") ? 0 : 1;
    return rank(a) - rank(b) || a.localeCompare(b, undefined, {numeric: true});
}

export function windowButtons() {
    return [...$("chart-window").querySelectorAll("button")];
}
