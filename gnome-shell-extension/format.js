// SPDX-License-Identifier: MIT
//
// Turns jetsond's samples and D-Bus errors into the words the indicator
// shows. Pure functions on plain JavaScript values (key -> value: the
// numbers of a ValuesAt signal as compactValues() gives them, or a whole
// snapshot as recursiveUnpack() gives it), so tests/extension/
// test-format.js runs them in plain gjs, without a shell. Units in, as the
// Metrics contract says: kHz, KiB, mW, °C, %.

export const ERROR_REBOOT_REQUIRED = 'org.jetsond.Jetson1.Error.RebootRequired';

// The top-bar items, in the order shown, each with the settings key that
// switches it on and the text it makes from a sample (null: the board has
// no such reading, so the item is left out rather than shown as 0).
export const PANEL_ITEMS = [
    {key: 'show-gpu-load', text: v => percentItem('GPU', v['gpu.load'])},
    {key: 'show-cpu-load', text: v => percentItem('CPU', v['cpu.load'])},
    {key: 'show-board-power', text: v => isNumber(v['power.total']) ? formatPower(v['power.total']) : null},
    {key: 'show-hottest-temperature', text: v => {
        const hottest = hottestZone(v);
        return hottest ? formatTemperature(hottest.celsius) : null;
    }},
];

function isNumber(value) {
    return typeof value === 'number' && Number.isFinite(value);
}

function percentItem(label, load) {
    return isNumber(load) ? `${label} ${Math.round(load)}%` : null;
}

// enabled: settings key -> boolean. '' when nothing is left to show (the
// indicator then shows only its icon).
export function panelText(values, enabled) {
    return PANEL_ITEMS.filter(item => enabled[item.key])
        .map(item => item.text(values))
        .filter(text => text !== null)
        .join('  ');
}

// The period the indicator asks jetsond for (SubscribeValues), in µs,
// from jetsond's DefaultInterval: that period, so the board is never read
// faster for the top bar, but never under half a second: the indicator
// shows at most two samples a second (indicator.js, REFRESH_MS), and a
// faster stream would only be decoded on the compositor's thread to be
// dropped. jetsond's own default (1 s) where DefaultInterval is unknown.
export function valuesInterval(defaultInterval) {
    const period = isNumber(defaultInterval) && defaultInterval > 0 ? defaultInterval : 1000000;
    return Math.max(period, 500000);
}

// The values object of a compact sample: KEYS (GetKeys) and ARRAY, the
// ValuesAt signal's `ad` as a GLib.Variant, read as one Float64Array (a
// GVariant holds its doubles in this machine's byte order) instead of a
// variant per value. NaN is a key the sample lacks: left out, as Sample
// leaves it out. null if the array does not match the key list.
export function compactValues(keys, array) {
    const raw = array.get_data_as_bytes().toArray();
    const bytes = raw.byteOffset % 8 === 0 ? raw : raw.slice();
    if (bytes.byteLength !== keys.length * 8)
        return null;
    const doubles = new Float64Array(bytes.buffer, bytes.byteOffset, keys.length);
    const values = {};
    for (let i = 0; i < keys.length; i++) {
        if (!Number.isNaN(doubles[i]))
            values[keys[i]] = doubles[i];
    }
    return values;
}

// The hottest temp.ZONE of a sample: {zone, celsius}, or null if none.
export function hottestZone(values) {
    let hottest = null;
    for (const [key, value] of Object.entries(values)) {
        if (!key.startsWith('temp.') || !isNumber(value))
            continue;
        if (hottest === null || value > hottest.celsius)
            hottest = {zone: key.slice(5), celsius: value};
    }
    return hottest;
}

export function formatPower(milliwatts) {
    if (milliwatts < 1000)
        return `${Math.round(milliwatts)} mW`;
    return `${(milliwatts / 1000).toFixed(milliwatts < 100000 ? 1 : 0)} W`;
}

export function formatFrequency(khz) {
    if (khz >= 1000000)
        return `${(khz / 1000000).toFixed(2)} GHz`;
    return `${Math.round(khz / 1000)} MHz`;
}

export function formatMemory(kib) {
    if (kib >= 1024 * 1024)
        return `${(kib / (1024 * 1024)).toFixed(1)} GiB`;
    return `${Math.round(kib / 1024)} MiB`;
}

export function formatTemperature(celsius) {
    return `${Math.round(celsius)} °C`;
}

// Keys of the form PREFIX.INSTANCE.FIELD (cpu.3.freq, power.VDD_IN.power):
// instance -> value, in a stable order (numbers numerically).
function instances(values, prefix, field) {
    const found = [];
    for (const [key, value] of Object.entries(values)) {
        if (!key.startsWith(prefix) || !key.endsWith(`.${field}`))
            continue;
        const instance = key.slice(prefix.length, key.length - field.length - 1);
        if (instance !== '' && !instance.includes('.'))
            found.push([instance, value]);
    }
    return found.sort(([a], [b]) => {
        const na = Number(a), nb = Number(b);
        return Number.isInteger(na) && Number.isInteger(nb) ? na - nb : a.localeCompare(b);
    });
}

function cpuLine(values) {
    const online = instances(values, 'cpu.', 'online');
    if (online.length === 0)
        return null;
    const up = online.filter(([, on]) => on).length;
    const freqs = instances(values, 'cpu.', 'freq').map(([, f]) => f);
    let line = `CPU ${isNumber(values['cpu.load']) ? `${Math.round(values['cpu.load'])}%` : '–'}`;
    line += up === online.length ? `, ${up} cores` : `, ${up} of ${online.length} cores online`;
    if (freqs.length > 0)
        line += `, up to ${formatFrequency(Math.max(...freqs))}`;
    return line;
}

function gpuLine(values) {
    if (!isNumber(values['gpu.load']) && !isNumber(values['gpu.freq']))
        return null;
    let line = `GPU ${isNumber(values['gpu.load']) ? `${Math.round(values['gpu.load'])}%` : '–'}`;
    if (isNumber(values['gpu.freq']))
        line += ` at ${formatFrequency(values['gpu.freq'])}`;
    if (isNumber(values['gpu.min_freq']) && isNumber(values['gpu.max_freq']))
        line += ` (${formatFrequency(values['gpu.min_freq'])} – ${formatFrequency(values['gpu.max_freq'])})`;
    return line;
}

function memoryLine(values) {
    if (!isNumber(values['ram.total']) || !isNumber(values['ram.used']))
        return null;
    let line = `RAM ${formatMemory(values['ram.used'])} of ${formatMemory(values['ram.total'])}`;
    if (isNumber(values['swap.total']) && values['swap.total'] > 0 && isNumber(values['swap.used']))
        line += `, swap ${formatMemory(values['swap.used'])} of ${formatMemory(values['swap.total'])}`;
    return line;
}

// Items joined a few to a line, so the menu stays narrow.
function wrap(parts, perLine) {
    const lines = [];
    for (let i = 0; i < parts.length; i += perLine)
        lines.push(parts.slice(i, i + perLine).join(', '));
    return lines;
}

// The board total (a total that is only the sum of the rails is an
// estimate: it says so), then the rails, highest first.
function powerLines(values) {
    const rails = instances(values, 'power.', 'power').filter(([, mw]) => isNumber(mw))
        .sort(([, a], [, b]) => b - a);
    const lines = [];
    if (isNumber(values['power.total']))
        lines.push(`Board ${values['power.total_is_sum'] ? '≈' : ''}${formatPower(values['power.total'])}`);
    else if (rails.length > 0)
        lines.push('Power');
    return lines.concat(wrap(rails.map(([rail, mw]) => `${rail} ${formatPower(mw)}`), 2));
}

// Every thermal zone, hottest first.
function temperatureLines(values) {
    const zones = Object.keys(values).filter(k => k.startsWith('temp.') && isNumber(values[k]))
        .sort((a, b) => values[b] - values[a]);
    return wrap(zones.map(k => `${k.slice(5)} ${formatTemperature(values[k])}`), 4);
}

// The menu's detail lines for a sample: the CPU, the GPU, memory, power
// and temperatures, each left out when the board has none of it.
export function detailLines(values) {
    return [cpuLine(values), gpuLine(values), memoryLine(values)].filter(line => line !== null)
        .concat(powerLines(values), temperatureLines(values));
}

export function boardLine(model, jetpack) {
    const name = model || 'Unknown board';
    return jetpack ? `${name} · JetPack ${jetpack}` : name;
}

export function fanLabel(index, name, profile, speed) {
    let label = `Fan ${index}`;
    if (name)
        label += ` (${name})`;
    if (profile)
        label += `: ${profile}`;
    if (isNumber(speed))
        label += `, ${Math.round(speed)}%`;
    return label;
}

export function modeLabel(id, name) {
    return name ? name : `Mode ${id}`;
}

// What a failed write becomes as a notification: {title, body, offer}.
// offer is 'default-mode' when the way forward is SetDefaultMode (the
// mode needs a reboot), else null. message is the D-Bus error's own
// human message, which jetsond writes for people.
export function errorNotice(action, errorName, message) {
    if (errorName === ERROR_REBOOT_REQUIRED) {
        return {
            title: `${action} needs a reboot`,
            body: `${message} It can be made the mode the board starts in, and applied at the next boot.`,
            offer: 'default-mode',
        };
    }
    if (errorName === 'org.freedesktop.DBus.Error.AccessDenied' ||
        errorName === 'org.freedesktop.DBus.Error.InteractiveAuthorizationRequired')
        return {title: `${action}: not authorized`, body: message, offer: null};
    return {title: `${action} failed`, body: message, offer: null};
}

// Issue 39: the notification while the clocks are held down, in jetsonctl
// status's words.
const THROTTLE_REASONS = {
    over_current: 'over-current', thermal_cpu: 'CPU thermal cap', thermal_gpu: 'GPU thermal cap',
    thermal_soc: 'SoC thermal cap',
};

// What holds the clocks down in one sample's numbers, as reasons: a name of
// jetsond's summary (throttle.reason.NAME.active is 1; jetsond's
// throttle.active is 1 exactly while one is) or 'dgpu.N' for a discrete
// GPU whose clock event reasons (dgpu.N.throttle) are more than idling
// alone (bit 0) or none. Empty: not throttled. The indicator collects them
// over a throttling episode, so that a reason which joins is named too.
export function throttleReasons(values) {
    const reasons = [];
    for (const key of Object.keys(values)) {
        const m = /^throttle\.reason\.(\w+)\.active$|^(dgpu\.\d+)\.throttle$/.exec(key);
        if (m?.[1] && values[key])
            reasons.push(m[1]);
        else if (m?.[2] && values[key] > 1)
            reasons.push(m[2]);
    }
    return reasons;
}

// The notice for the reasons seen (throttleReasons()'s, in any order):
// {title, body}, or null for none. dgpuNames: 'dgpu.N' -> that GPU's
// dgpu.N.throttle_reasons from a snapshot (a string: ValuesAt carries only
// numbers); events: throttle.oc_events. In jetsonctl status's order: the
// summary's reasons, then the GPUs by number.
export function throttleNotice(reasons, dgpuNames = {}, events = undefined) {
    const parts = [];
    // The names this extension knows in their order, then any a newer
    // jetsond adds, as it names them.
    const summary = Object.keys(THROTTLE_REASONS).filter(r => reasons.includes(r))
        .concat(reasons.filter(r => !(r in THROTTLE_REASONS) && !/^dgpu\.\d+$/.test(r)));
    if (summary.length > 0)
        parts.push(summary.map(r => THROTTLE_REASONS[r] || r).join(', '));
    const gpus = reasons.filter(r => /^dgpu\.\d+$/.test(r))
        .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
    for (const gpu of gpus) {
        const names = dgpuNames[gpu];
        const named = typeof names === 'string' && names !== 'none' && names !== 'idle';
        parts.push(`GPU ${gpu.split('.')[1]}${named ? `: ${names.split(',').join(', ')}` : ''}`);
    }
    if (parts.length === 0)
        return null;
    return {
        title: 'Jetson is throttled',
        body: `Clocks held down by ${parts.join('; ')}.` +
              (isNumber(events) ? ` ${events} over-current event${events === 1 ? '' : 's'} since boot.` : ''),
    };
}
