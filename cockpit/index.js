// SPDX-License-Identifier: MIT
//
// jetsond's page in Cockpit: follows jetsond on the system bus and shows
// the board, live values, charts, processes, engines and settings; one
// empty state while jetsond is absent or restarting, from which the page
// comes back by itself. Samples are followed only while the page is
// visible, at the charts' rate: jetsond's Sample where that is its
// DefaultInterval, else a Subscribe() request of the page's own and its
// SampleAt signals; both are released when the page is hidden.
//
// State for tests and for people: <body data-state> is "loading", "absent"
// or "ready"; data-samples counts the samples received, data-stream names
// the signal the page listens to ("Sample", "SampleAt", or "" while it
// listens to none), data-subscribed says whether the page holds a
// Subscribe() request.

/* global cockpit */

import {$} from "./dom.js";
import {followTheme} from "./theme.js";
import {Session, watchJetsond} from "./jetsond.js";
import {Charts, windowButtons} from "./charts.js";
import {Controls} from "./controls.js";
import {showIdentity, showNow, showThrottle, ProcessTable, showEngines} from "./overview.js";

const body = document.body;
const charts = new Charts($("charts"), windowButtons());
// For tests and the browser console: the charts and their history.
window.jetsondCharts = charts;
const controls = new Controls($("controls"));
const processes = new ProcessTable();
let session = null;
let samples = 0;

followTheme(() => charts.restyle());

function setState(state) {
    body.dataset.state = state;
    $("empty").hidden = state !== "absent";
    $("main").hidden = state !== "ready";
}

function onSample(timestamp, values) {
    samples++;
    body.dataset.samples = String(samples);
    showNow(values);
    showThrottle(values);
    processes.update(values);
    showEngines(values);
    charts.add(timestamp, values);
}

// Samples while visible, at the charts' rate (Session.startSamples).
function followVisibility(s) {
    if (s !== session)
        return;
    if (cockpit.hidden) {
        if (s.sampleMatch) {
            s.stopSamples().catch(() => {});
            charts.gap();
        }
        body.dataset.stream = "";
        body.dataset.subscribed = "false";
    } else if (!s.sampleMatch) {
        s.startSamples(onSample)
            .then(member => {
                if (s !== session || s.sampleMember !== member)
                    return;
                body.dataset.stream = member;
                body.dataset.subscribed = String(member === "SampleAt");
            })
            .catch(error => console.warn("jetsond: Subscribe failed:", error.message));
        // The current values at once, without waiting for the next Sample.
        s.snapshot().then(({timestamp, values}) => {
            if (s === session)
                onSample(timestamp, values);
        }).catch(() => {});
    }
}

function start(owner) {
    if (session)
        session.close();
    session = null;
    body.dataset.stream = "";
    body.dataset.subscribed = "false";
    if (!owner) {
        setState("absent");
        return;
    }
    const s = new Session(owner);
    session = s;
    s.ready().then(() => {
        if (s !== session)
            return;
        const board = s.get("board");
        showIdentity(board ? board.data : null);
        controls.bind(s);
        s.onChanged(() => {
            if (s === session)
                controls.sync();
        });
        setState("ready");
        followVisibility(s);
    });
}

cockpit.addEventListener("visibilitychange", () => {
    if (session)
        followVisibility(session);
});
watchJetsond(start);
