// SPDX-License-Identifier: MIT
//
// Light or dark, as Cockpit's own pages decide it: the shell stores the
// user's choice in localStorage "shell:style" ("auto", "light" or "dark",
// shared by every page of the same origin) and "auto" follows the
// browser's prefers-color-scheme. PatternFly 6 turns dark with the class
// pf-v6-theme-dark on <html>.

const DARK_CLASS = "pf-v6-theme-dark";

function wantsDark(media) {
    let style = null;
    try {
        style = window.localStorage.getItem("shell:style");
    } catch (e) {
        // Storage can be disabled; then the browser's preference decides.
    }
    if (style === "dark")
        return true;
    if (style === "light")
        return false;
    return media.matches;
}

// Applies the theme now and whenever it changes; ON_CHANGE (optional) is
// called after a change, for what draws its own colours (the charts).
export function followTheme(onChange) {
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    const apply = () => {
        const dark = wantsDark(media);
        if (document.documentElement.classList.contains(DARK_CLASS) === dark)
            return;
        document.documentElement.classList.toggle(DARK_CLASS, dark);
        if (onChange)
            onChange(dark);
    };
    apply();
    media.addEventListener("change", apply);
    // Another page (the shell's menu) changed the choice.
    window.addEventListener("storage", event => {
        if (event.key === "shell:style")
            apply();
    });
}
