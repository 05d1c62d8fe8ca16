// SPDX-License-Identifier: MIT
//
// Small helpers the page's modules share: building DOM nodes (never from
// HTML strings, so process and board names can hold anything) and turning
// jetsond's units into text.

// h("td", {class: "x", dataset: {key: "a"}}, "text", node) -> element.
export function h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false)
            continue;
        if (name === "dataset")
            Object.assign(el.dataset, value);
        else if (name.startsWith("on"))
            el.addEventListener(name.slice(2), value);
        else if (name === "text")
            el.textContent = value;
        else
            el.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
        if (child !== undefined && child !== null && child !== false)
            el.append(child instanceof Node ? child : String(child));
    }
    return el;
}

export function $(id) {
    return document.getElementById(id);
}

// Number with at most DIGITS decimals, without trailing zeros ("12.5", "3").
export function decimal(value, digits = 1) {
    return String(Number(value.toFixed(digits)));
}

export const format = {
    percent: v => `${decimal(v)} %`,
    kHz: v => v >= 1e6 ? `${decimal(v / 1e6, 2)} GHz` : `${decimal(v / 1e3, 0)} MHz`,
    // KiB -> the largest binary unit that keeps the number at or above 1.
    kib: v => {
        const units = ["KiB", "MiB", "GiB", "TiB"];
        let i = 0;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return `${decimal(v, i === 0 ? 0 : 1)} ${units[i]}`;
    },
    bytes: v => format.kib(v / 1024),
    mW: v => v >= 1000 ? `${decimal(v / 1000, 2)} W` : `${decimal(v, 0)} mW`,
    celsius: v => `${decimal(v)} °C`,
    rpm: v => `${decimal(v, 0)} rpm`,
    seconds: v => {
        const d = Math.floor(v / 86400), hh = Math.floor(v % 86400 / 3600), mm = Math.floor(v % 3600 / 60);
        return d > 0 ? `${d} d ${hh} h` : hh > 0 ? `${hh} h ${mm} min` : `${mm} min`;
    },
};

// The value of a Sample or GetSnapshot entry ({t, v}), or undefined.
export function value(values, key) {
    const entry = values[key];
    return entry === undefined ? undefined : entry.v;
}
