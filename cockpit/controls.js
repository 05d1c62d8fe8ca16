// SPDX-License-Identifier: MIT
//
// The settings: power mode (and the boot default when a mode needs a
// reboot), jetson_clocks, each fan's profile and speed, the integrated
// GPU's 3D scaling and rail gating, swap, drop caches and restore
// defaults. Each is shown only where the board has it (its interface or
// object exists). Every change is one D-Bus call with interactive
// authorization; polkit decides, also under Cockpit's "Limited access".
// A denial or error shows jetsond's own message beside the control, and
// the control goes back to the true value (the properties, which only
// jetsond changes).

import {h, $, format, decimal} from "./dom.js";

const UNKNOWN_MODE = 4294967295;
const GIB = 1024 * 1024 * 1024;
const REBOOT_REQUIRED = "org.jetsond.Jetson1.Error.RebootRequired";

function group(id, title, ...children) {
    return h("div", {class: "jetsond-control-group", id: `group-${id}`, role: "group",
                     "aria-labelledby": `group-${id}-title`},
             h("h3", {class: "pf-v6-c-title pf-m-md", id: `group-${id}-title`}, title),
             ...children,
             h("p", {class: "jetsond-message", id: `${id}-message`, role: "status", "aria-live": "polite"}));
}

function select(id, label) {
    return h("div", {class: "jetsond-row"},
             h("label", {for: id}, label),
             h("span", {class: "pf-v6-c-form-control"}, h("select", {id})));
}

function toggle(id, label) {
    return h("label", {class: "pf-v6-c-switch", for: id},
             h("input", {class: "pf-v6-c-switch__input", type: "checkbox", role: "switch", id}),
             h("span", {class: "pf-v6-c-switch__toggle"}),
             h("span", {class: "pf-v6-c-switch__label"}, label));
}

function button(id, label, variant = "secondary") {
    return h("button", {type: "button", class: `pf-v6-c-button pf-m-${variant}`, id},
             h("span", {class: "pf-v6-c-button__text"}, label));
}

function setOptions(selectEl, options, selected) {
    const wanted = options.map(([v, text]) => `${v}\n${text}`).join("\n\n");
    if (selectEl.dataset.options !== wanted) {
        selectEl.replaceChildren(...options.map(([v, text]) => h("option", {value: String(v)}, text)));
        selectEl.dataset.options = wanted;
    }
    selectEl.value = String(selected);
}

// Swap files one by one (the one CreateSwap() makes among them), zram
// devices and partitions counted: a board can have a dozen zram devices.
function describeSwaps(swaps) {
    if (swaps.length === 0)
        return "No swap.";
    const parts = [];
    for (const [path, type, size, used] of swaps.filter(s => s[1] === "file"))
        parts.push(`${path}: ${format.bytes(size)}, ${format.bytes(used)} used`);
    for (const type of ["zram", "partition"]) {
        const areas = swaps.filter(s => s[1] === type);
        if (areas.length === 0)
            continue;
        const size = areas.reduce((sum, s) => sum + s[2], 0), used = areas.reduce((sum, s) => sum + s[3], 0);
        const what = type === "zram" ? "zram device" : "partition";
        parts.push(`${areas.length} ${what}${areas.length > 1 ? "s" : ""}: ${format.bytes(size)}, ${format.bytes(used)} used`);
    }
    return parts.join("; ");
}

export class Controls {
    constructor(container) {
        this.container = container;
        this.session = null;
        this.busy = new Set(); // groups with a call under way: not synced meanwhile
    }

    // A new run of jetsond: build the groups its board has.
    bind(session) {
        this.session = session;
        this.busy.clear();
        this.fanKey = "";
        this.container.replaceChildren(
            group("mode", "Power mode",
                  select("mode", "Mode"),
                  select("mode-default", "At boot"),
                  h("div", {class: "jetsond-row", id: "mode-reboot", hidden: true},
                    button("mode-reboot-button", "Make it the boot default", "primary"))),
            group("clocks", "jetson_clocks",
                  toggle("clocks-active", "Clocks at maximum"),
                  toggle("clocks-onboot", "Also at boot")),
            h("div", {id: "fans", class: "jetsond-control-group-list"}),
            group("gpu", "GPU",
                  toggle("gpu-scaling3d", "3D frequency scaling"),
                  toggle("gpu-railgate", "Rail gating (power off when idle)")),
            group("memory", "Memory",
                  h("p", {id: "swap-state"}),
                  h("div", {class: "jetsond-row"},
                    h("label", {for: "swap-size"}, "Swap file (GiB)"),
                    h("span", {class: "pf-v6-c-form-control"},
                      h("input", {id: "swap-size", type: "number", min: "1", max: "1024", step: "1", value: "4"})),
                    h("label", {class: "pf-v6-c-check"},
                      h("input", {id: "swap-onboot", type: "checkbox", checked: true}), " at boot")),
                  h("div", {class: "jetsond-row"},
                    button("swap-create", "Create swap"), button("swap-remove", "Remove swap"),
                    button("drop-caches", "Drop caches"))),
            group("restore", "Defaults",
                  h("p", {class: "jetsond-muted"},
                    "Puts power mode, jetson_clocks, fans and GPU settings back as the board boots."),
                  h("div", {class: "jetsond-row"}, button("restore", "Restore defaults", "danger")),
                  // A second step: it undoes settings somebody may want.
                  h("div", {class: "jetsond-row", id: "restore-confirm", hidden: true},
                    h("span", {}, "Switch jetson_clocks off and put fans, power mode and GPU back to their defaults?"),
                    button("restore-confirm-button", "Restore", "danger"),
                    button("restore-cancel", "Cancel", "link"))));
        this.wire();
        this.sync();
    }

    // Runs CALL for GROUP: its controls wait, a failure shows jetsond's
    // message, and every control is set again from the properties.
    run(groupId, call, onSuccess) {
        const message = $(`${groupId}-message`);
        const controls = [...$(`group-${groupId}`).querySelectorAll("select, input, button")];
        controls.forEach(c => { c.disabled = true; });
        message.textContent = "";
        message.classList.remove("pf-m-error");
        delete message.dataset.error;
        this.busy.add(groupId);
        return call()
            .then(result => {
                if (onSuccess)
                    onSuccess(result, message);
            })
            .catch(error => {
                message.textContent = error.message || String(error);
                message.dataset.error = error.name || "";
                message.classList.add("pf-m-error");
                message.setAttribute("role", "alert");
                return error;
            })
            .finally(() => {
                this.busy.delete(groupId);
                controls.forEach(c => { c.disabled = false; });
                this.sync();
            });
    }

    wire() {
        const s = this.session;
        $("mode").addEventListener("change", event => {
            const id = Number(event.target.value);
            $("mode-reboot").hidden = true;
            this.run("mode", () => s.write("nvpmodel", "SetMode", [id])).then(error => {
                if (error && error.name === REBOOT_REQUIRED) {
                    const name = $("mode").querySelector(`option[value="${id}"]`);
                    $("mode-reboot").hidden = false;
                    $("mode-reboot-button").dataset.mode = String(id);
                    $("mode-reboot-button").querySelector("span").textContent =
                        `Make ${name ? name.textContent : id} the boot default`;
                }
            });
        });
        $("mode-default").addEventListener("change", event =>
            this.run("mode", () => s.write("nvpmodel", "SetDefaultMode", [Number(event.target.value)])));
        $("mode-reboot-button").addEventListener("click", event => {
            const id = Number(event.currentTarget.dataset.mode);
            $("mode-reboot").hidden = true;
            this.run("mode", () => s.write("nvpmodel", "SetDefaultMode", [id]), (result, message) => {
                message.textContent = "The new mode applies at the next boot.";
            });
        });
        $("clocks-active").addEventListener("change", event =>
            this.run("clocks", () => s.write("clocks", "SetActive", [event.target.checked])));
        $("clocks-onboot").addEventListener("change", event =>
            this.run("clocks", () => s.write("clocks", "SetOnBoot", [event.target.checked])));
        $("gpu-scaling3d").addEventListener("change", event =>
            this.run("gpu", () => s.write("gpu", "SetScaling3D", [event.target.checked])));
        $("gpu-railgate").addEventListener("change", event =>
            this.run("gpu", () => s.write("gpu", "SetRailgate", [event.target.checked])));
        $("swap-create").addEventListener("click", () => {
            const gib = Number($("swap-size").value);
            this.run("memory", () => s.write("memory", "CreateSwap", [Math.round(gib * GIB), $("swap-onboot").checked]));
        });
        $("swap-remove").addEventListener("click", () => this.run("memory", () => s.write("memory", "RemoveSwap", [])));
        $("drop-caches").addEventListener("click", () =>
            this.run("memory", () => s.write("memory", "DropCaches", []), (result, message) => {
                message.textContent = "Caches dropped.";
            }));
        const confirming = on => {
            $("restore").hidden = on;
            $("restore-confirm").hidden = !on;
            $(on ? "restore-cancel" : "restore").focus();
        };
        $("restore").addEventListener("click", () => confirming(true));
        $("restore-cancel").addEventListener("click", () => confirming(false));
        $("restore-confirm-button").addEventListener("click", () => {
            confirming(false);
            this.run("restore", () => s.write("manager", "RestoreDefaults", []), ([steps], message) => {
                message.textContent = steps.join("\n");
            });
        });
    }

    buildFans(fans) {
        $("fans").replaceChildren(...fans.map(({index}) => group(`fan-${index}`, fans.length > 1 ? `Fan ${index}` : "Fan",
            h("p", {id: `fan-${index}-state`}),
            select(`fan-${index}-profile`, "Profile"),
            h("div", {class: "jetsond-row"},
              h("label", {for: `fan-${index}-speed`}, "Speed (%)"),
              h("span", {class: "pf-v6-c-form-control"},
                h("input", {id: `fan-${index}-speed`, type: "number", min: "0", max: "100", step: "1"})),
              button(`fan-${index}-set`, "Set speed")))));
        for (const fan of fans) {
            const i = fan.index;
            $(`fan-${i}-profile`).addEventListener("change", event =>
                this.run(`fan-${i}`, () => this.session.write("fan", "SetProfile", [event.target.value], fan.path)));
            const setSpeed = () => {
                const percent = Number($(`fan-${i}-speed`).value);
                this.run(`fan-${i}`, () => this.session.write("fan", "SetSpeed", [percent], fan.path));
            };
            $(`fan-${i}-set`).addEventListener("click", setSpeed);
            $(`fan-${i}-speed`).addEventListener("keydown", event => {
                if (event.key === "Enter")
                    setSpeed();
            });
        }
    }

    // Every control from the properties (skipping groups with a call under way).
    sync() {
        const s = this.session;
        if (!s)
            return;
        const nvp = s.get("nvpmodel");
        $("group-mode").hidden = !nvp;
        if (nvp && !this.busy.has("mode")) {
            const modes = (nvp.Modes || []).map(([id, name]) => [id, name]);
            const current = nvp.Mode === UNKNOWN_MODE ? [[UNKNOWN_MODE, "unknown"]] : [];
            setOptions($("mode"), [...current, ...modes], nvp.Mode);
            const noDefault = nvp.DefaultMode === UNKNOWN_MODE ? [[UNKNOWN_MODE, "not set"]] : [];
            setOptions($("mode-default"), [...noDefault, ...modes], nvp.DefaultMode);
        }
        const clocks = s.get("clocks");
        $("group-clocks").hidden = !clocks;
        if (clocks && !this.busy.has("clocks")) {
            $("clocks-active").checked = Boolean(clocks.Active);
            $("clocks-onboot").checked = Boolean(clocks.OnBoot);
        }
        const gpu = s.get("gpu");
        $("group-gpu").hidden = !gpu;
        if (gpu && !this.busy.has("gpu")) {
            $("gpu-scaling3d").checked = Boolean(gpu.Scaling3D);
            $("gpu-railgate").checked = Boolean(gpu.Railgate);
        }
        const memory = s.get("memory");
        $("group-memory").hidden = !memory;
        if (memory && !this.busy.has("memory")) {
            $("swap-state").textContent = describeSwaps(memory.Swaps || []);
        }
        $("group-restore").hidden = !s.get("manager");
        const fans = s.fans();
        const fanKey = fans.map(f => f.path).join(" ");
        if (fanKey !== this.fanKey) {
            this.fanKey = fanKey;
            this.buildFans(fans);
        }
        for (const {index, proxy} of fans) {
            if (this.busy.has(`fan-${index}`))
                continue;
            $(`fan-${index}-state`).textContent = `${decimal(proxy.Speed)} %` +
                (proxy.Rpm ? `, ${format.rpm(proxy.Rpm)}` : "") + (proxy.Control ? `, ${proxy.Control}` : "");
            $(`fan-${index}-state`).dataset.speed = String(proxy.Speed);
            setOptions($(`fan-${index}-profile`), (proxy.Profiles || []).map(p => [p, p]), proxy.Profile);
            const speed = $(`fan-${index}-speed`);
            if (document.activeElement !== speed)
                speed.value = String(Math.round(proxy.Speed));
        }
        $("controls-card").hidden = [...this.container.querySelectorAll(".jetsond-control-group")].every(g => g.hidden);
    }
}
