// SPDX-License-Identifier: MIT
//
// Whole command lines for the process table. jetsond never sends them: the
// page reads /proc/PID/cmdline through Cockpit's bridge, which runs as the
// logged-in user, so it shows exactly what ps would show that user (a
// process hidden by hidepid, a kernel thread or another machine's PID keeps
// jetsond's name). A line is read once per process: keyed by PID and
// jetsond's start time, so a reused PID is a new process; and only kept
// where /proc/PID is still the process jetsond named (same comm, same
// start time to within the rounding of clock ticks).

/* global cockpit */

const TICKS_PER_S = 100; // USER_HZ: what /proc/PID/stat counts in, on every Linux port

function readText(path, binary) {
    return cockpit.file(path, binary ? {binary: true, max_read_size: 8 << 20} : {}).read();
}

export class CommandLines {
    constructor(onChange) {
        this.onChange = onChange;
        this.lines = new Map(); // "PID:start" -> string, or null: none to show
        this.btime = null;
    }

    // The command line for PID (jetsond's NAME and START_TIME, seconds
    // since the Unix epoch), or undefined until read, null where none.
    lookup(pid, name, start) {
        const key = `${pid}:${start}`;
        if (!this.lines.has(key)) {
            this.lines.set(key, undefined);
            this.read(pid, name, start).then(line => {
                this.lines.set(key, line);
                if (line)
                    this.onChange();
            });
        }
        return this.lines.get(key);
    }

    // Forgets the processes no longer listed.
    keep(keys) {
        for (const key of [...this.lines.keys()]) {
            if (!keys.has(key))
                this.lines.delete(key);
        }
    }

    async read(pid, name, start) {
        try {
            const [raw, comm, stat] = await Promise.all([readText(`/proc/${pid}/cmdline`, true),
                readText(`/proc/${pid}/comm`), readText(`/proc/${pid}/stat`)]);
            if (!raw || !comm || !stat)
                return null;
            if (name && comm.trim().slice(0, 15) !== name.slice(0, 15))
                return null;
            if (start !== undefined) {
                if (this.btime === null) {
                    const m = /\nbtime (\d+)/.exec(await readText("/proc/stat"));
                    this.btime = m ? Number(m[1]) : NaN;
                }
                const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
                if (!(Math.abs(this.btime + ticks / TICKS_PER_S - start) <= 0.5))
                    return null;
            }
            const args = new TextDecoder().decode(raw).split("\0").filter(a => a.length > 0);
            return args.length ? args.join(" ").replace(/[\x00-\x1f\x7f]/g, "?") : null;
        } catch (e) {
            return null; // gone, hidden or not permitted: the name stays
        }
    }
}
