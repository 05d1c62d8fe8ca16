// SPDX-License-Identifier: MIT
//
// The extension's formatting and key handling (gnome-shell-extension/
// format.js) in plain gjs, without a shell, on a built extension of either
// flavour: its format.js is imported as an ES module (45 and later) or
// through the legacy importer (42-44, as build-extension.py writes it):
//   gjs -m tests/extension/test-format.js EXTENSION_DIR
// Every check prints one line; any failure makes the exit status 1.

import GLib from 'gi://GLib';
import System from 'system';

const dir = GLib.canonicalize_filename(System.programArgs[0], null);
const [, source] = GLib.file_get_contents(`${dir}/format.js`);
let Format;
if (new TextDecoder().decode(source).includes('\nexport function ')) {
    Format = await import(`file://${dir}/format.js`);
} else {
    imports.searchPath.unshift(dir);
    Format = imports.format;
}

let failures = 0;
function check(name, actual, expected) {
    const a = JSON.stringify(actual), e = JSON.stringify(expected);
    if (a === e) {
        print(`ok - ${name}`);
    } else {
        failures++;
        print(`not ok - ${name}\n    expected ${e}\n    got      ${a}`);
    }
}

const ALL = {
    'show-gpu-load': true, 'show-cpu-load': true,
    'show-board-power': true, 'show-hottest-temperature': true,
};

// The AGX Orin fake board's values (tests/fixtures/agx-orin-jp62), as a
// Sample gives them after recursiveUnpack().
const orin = {
    'cpu.load': 12.46, 'cpu.0.online': true, 'cpu.1.online': true, 'cpu.2.online': false,
    'cpu.0.freq': 729600, 'cpu.1.freq': 2201600,
    'gpu.load': 34.7, 'gpu.freq': 306000, 'gpu.min_freq': 306000, 'gpu.max_freq': 1300500,
    'ram.total': 64302080, 'ram.used': 3662848, 'swap.total': 32151024, 'swap.used': 3840,
    'power.VDD_GPU_SOC.power': 2392, 'power.VDD_CPU_CV.power': 401, 'power.VIN_SYS_5V0.power': 4020,
    'power.VDD_GPU_SOC.voltage': 5016,
    'power.total': 7113, 'power.total_is_sum': true,
    'temp.cpu': 46.5, 'temp.gpu': 44.0, 'temp.tj': 46.6, 'temp.soc0': 44.1,
    'fan.0.speed': 40.0,
};

check('panel line with every item', Format.panelText(orin, ALL), 'GPU 35%  CPU 12%  7.1 W  47 °C');
check('panel items follow the settings',
    Format.panelText(orin, {...ALL, 'show-gpu-load': false, 'show-board-power': false}), 'CPU 12%  47 °C');
check('nothing enabled: empty line', Format.panelText(orin, {}), '');
// A PC: no GPU load, no board power. Absent readings are left out, never 0.
const pc = {'cpu.load': 3.2, 'temp.coretemp_package_id_0': 51.0, 'power.RAPL_PACKAGE_0.power': 8200};
check('absent readings are left out', Format.panelText(pc, ALL), 'CPU 3%  51 °C');
check('a load of 0 is shown, not left out', Format.panelText({'gpu.load': 0}, ALL), 'GPU 0%');
check('an empty sample gives an empty line', Format.panelText({}, ALL), '');

// The same sample as the ValuesAt signal carries it: the numeric keys of
// GetKeys (booleans as 1 and 0) and one double each, NaN for a key the
// sample lacks. What the indicator shows must not depend on the form.
const keys = [...Object.keys(orin), 'gpu.temp'];
const doubles = keys.map(k => (k in orin ? Number(orin[k]) : NaN));
const compact = Format.compactValues(keys, new GLib.Variant('ad', doubles));
check('compact form: NaN is left out', 'gpu.temp' in compact, false);
check('compact form: booleans are 1 and 0', [compact['cpu.0.online'], compact['cpu.2.online']], [1, 0]);
check('compact form: the same panel line', Format.panelText(compact, ALL), Format.panelText(orin, ALL));
check('compact form: the same detail lines', Format.detailLines(compact), Format.detailLines(orin));
check('compact form: an array of another list is refused',
    Format.compactValues(keys.slice(1), new GLib.Variant('ad', doubles)), null);
check('compact form: no keys', Format.compactValues([], new GLib.Variant('ad', [])), {});

// The period asked for: jetsond's DefaultInterval, never under the half
// second the indicator refreshes at.
check('period: jetsond\'s default 1 s', Format.valuesInterval(1000000), 1000000);
check('period: a slower default is followed', Format.valuesInterval(5000000), 5000000);
check('period: a faster default, no faster than the refresh', Format.valuesInterval(100000), 500000);
check('period: unknown default, jetsond\'s 1 s', Format.valuesInterval(undefined), 1000000);

check('hottest zone', Format.hottestZone(orin), {zone: 'tj', celsius: 46.6});
check('no zones', Format.hottestZone({'cpu.load': 5}), null);
check('temp. prefix only', Format.hottestZone({'temperature': 99, 'temp.gpu': 40}), {zone: 'gpu', celsius: 40});

check('power below 1 W', Format.formatPower(401), '401 mW');
check('power in W', Format.formatPower(7113), '7.1 W');
check('power above 100 W', Format.formatPower(131000), '131 W');
check('frequency MHz', Format.formatFrequency(1300500), '1.30 GHz');
check('frequency below 1 GHz', Format.formatFrequency(306000), '306 MHz');
check('memory GiB', Format.formatMemory(3662848), '3.5 GiB');
check('memory MiB', Format.formatMemory(3840), '4 MiB');
check('temperature', Format.formatTemperature(46.5), '47 °C');

check('detail lines of the Orin', Format.detailLines(orin), [
    'CPU 12%, 2 of 3 cores online, up to 2.20 GHz',
    'GPU 35% at 306 MHz (306 MHz – 1.30 GHz)',
    'RAM 3.5 GiB of 61.3 GiB, swap 4 MiB of 30.7 GiB',
    'Board ≈7.1 W',
    'VIN_SYS_5V0 4.0 W, VDD_GPU_SOC 2.4 W',
    'VDD_CPU_CV 401 mW',
    'tj 47 °C, cpu 47 °C, soc0 44 °C, gpu 44 °C',
]);
check('rails without a board total (RAPL)', Format.detailLines(pc),
    ['Power', 'RAPL_PACKAGE_0 8.2 W', 'coretemp_package_id_0 51 °C']);
check('five zones take two lines', Format.detailLines({'temp.a': 1, 'temp.b': 2, 'temp.c': 3, 'temp.d': 4, 'temp.e': 5}),
    ['e 5 °C, d 4 °C, c 3 °C, b 2 °C', 'a 1 °C']);
check('a measured total has no ≈', Format.detailLines({'power.total': 9000, 'power.total_is_sum': false}),
    ['Board 9.0 W']);
check('CPUs are ordered by number, not as text',
    Format.detailLines({'cpu.10.online': true, 'cpu.2.online': true, 'cpu.10.freq': 100000, 'cpu.2.freq': 200000}),
    ['CPU –, 2 cores, up to 200 MHz']);
check('swap of 0 is not listed', Format.detailLines({'ram.total': 1048576, 'ram.used': 524288, 'swap.total': 0}),
    ['RAM 512 MiB of 1.0 GiB']);

check('board line', Format.boardLine('NVIDIA Jetson AGX Orin Developer Kit', '6.2'),
    'NVIDIA Jetson AGX Orin Developer Kit · JetPack 6.2');
check('board line without JetPack (a PC)', Format.boardLine('Dell Precision', ''), 'Dell Precision');
check('board line without a model', Format.boardLine('', ''), 'Unknown board');
check('fan label', Format.fanLabel(0, 'pwmfan', 'cool', 40.0), 'Fan 0 (pwmfan): cool, 40%');
check('fan label before the first sample', Format.fanLabel(1, 'pwmfan', 'quiet', undefined), 'Fan 1 (pwmfan): quiet');
check('mode label', Format.modeLabel(2, 'MODE_30W'), 'MODE_30W');
check('mode without a name', Format.modeLabel(7, ''), 'Mode 7');

check('reboot required offers the boot default',
    Format.errorNotice('Power mode MODE_15W', Format.ERROR_REBOOT_REQUIRED, 'Switching needs a reboot.'), {
        title: 'Power mode MODE_15W needs a reboot',
        body: 'Switching needs a reboot. It can be made the mode the board starts in, and applied at the next boot.',
        offer: 'default-mode',
    });
check('denied', Format.errorNotice('jetson_clocks on', 'org.freedesktop.DBus.Error.AccessDenied', 'Not authorized.'),
    {title: 'jetson_clocks on: not authorized', body: 'Not authorized.', offer: null});
check('other errors carry the message',
    Format.errorNotice('Fan 0 profile cool', 'org.jetsond.Jetson1.Error.Busy', 'A power mode change is in progress.'),
    {title: 'Fan 0 profile cool failed', body: 'A power mode change is in progress.', offer: null});

// Issue 39: the throttling notification, from the reasons collected over
// an episode (throttleReasons() of each sample).
check('no notice without a reason', Format.throttleNotice([], {}, 0), null);
check('a cap and over-current events, in jetsonctl status\'s order',
    Format.throttleNotice(['thermal_gpu', 'over_current'], {}, 3),
    {title: 'Jetson is throttled',
     body: 'Clocks held down by over-current, GPU thermal cap. 3 over-current events since boot.'});
check('one event', Format.throttleNotice(['over_current'], {}, 1).body,
    'Clocks held down by over-current. 1 over-current event since boot.');
check('no counter, no count', Format.throttleNotice(['thermal_soc']).body, 'Clocks held down by SoC thermal cap.');
check('discrete GPUs by number, named from a snapshot',
    Format.throttleNotice(['dgpu.10', 'dgpu.2'], {'dgpu.2': 'sw_power_cap,hw_thermal', 'dgpu.10': 'sw_thermal'}),
    {title: 'Jetson is throttled', body: 'Clocks held down by GPU 2: sw_power_cap, hw_thermal; GPU 10: sw_thermal.'});
check('a discrete GPU whose names did not come (or say idle)',
    Format.throttleNotice(['dgpu.0', 'dgpu.1'], {'dgpu.1': 'idle'}).body, 'Clocks held down by GPU 0; GPU 1.');
check('the board and a discrete GPU', Format.throttleNotice(['dgpu.0', 'thermal_cpu'], {'dgpu.0': 'sw_power_cap'}, 0).body,
    'Clocks held down by CPU thermal cap; GPU 0: sw_power_cap. 0 over-current events since boot.');

// Which reasons a sample's numbers name.
check('the summary\'s active reasons', Format.throttleReasons({
    'throttle.reason.over_current.active': 1, 'throttle.reason.thermal_cpu.active': 0,
    'throttle.reason.thermal_gpu.active': 1, 'throttle.active': 1, 'throttle.oc_events': 2,
}), ['over_current', 'thermal_gpu']);
check('discrete GPUs held down by more than idling',
    Format.throttleReasons({'dgpu.0.throttle': 1, 'dgpu.1.throttle': 4, 'dgpu.2.throttle': 0, 'dgpu.3.throttle': 5}),
    ['dgpu.1', 'dgpu.3']);
check('nothing on a board without the keys', Format.throttleReasons(orin), []);

// When the numbers call for a notice: any reason.
check('not throttled: no reason holds', Format.throttleReasons({
    'throttle.active': 0, 'throttle.reason.over_current.active': 0, 'throttle.oc_events': 5}), []);
check('not throttled: a discrete GPU idling', Format.throttleReasons({'dgpu.0.throttle': 1}), []);
check('not throttled: a discrete GPU held by nothing', Format.throttleReasons({'dgpu.0.throttle': 0}), []);
check('throttled: idling and at its power cap', Format.throttleReasons({'dgpu.0.throttle': 5}), ['dgpu.0']);
check('a reason a newer jetsond adds', Format.throttleReasons({'throttle.reason.thermal_cv.active': 1}),
    ['thermal_cv']);
check('a reason this extension does not know is named as jetsond names it, after the known ones',
    Format.throttleNotice(['thermal_cv', 'over_current', 'dgpu.0']).body,
    'Clocks held down by over-current, thermal_cv; GPU 0.');

if (failures > 0) {
    print(`${failures} check(s) failed`);
    System.exit(1);
}
