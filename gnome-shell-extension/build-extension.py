#!/usr/bin/python3
"""Builds one flavour of the extension into a directory named after its
UUID, as GNOME Shell loads it and extensions.gnome.org takes it (zipped):

    build-extension.py esm|legacy SOURCE_DIR COMPILED_SCHEMA OUT_DIR [ZIP]

esm (GNOME Shell 45 and later): the modules as written, ES modules.
legacy (GNOME Shell 42 to 44): the entry points and metadata of legacy/,
and the shared modules (SHARED) turned into the legacy imports form by
to_legacy(). The shared modules are written once, as ES modules, in the
small form to_legacy() understands; anything else in them is an error
here, at build time, not a surprise in a shell."""

import os
import re
import shutil
import sys
import zipfile

SHARED = ["format.js", "client.js", "indicator.js", "notify.js", "preferences.js"]
ESM_ONLY = ["extension.js", "prefs.js", "metadata.json"]
LEGACY_ONLY = ["extension.js", "prefs.js", "metadata.json"]

# ES module import -> the legacy importer expression.
IMPORT_SOURCES = [
    (re.compile(r"gi://(\w+)(\?version=[\d.]+)?$"), lambda m: f"imports.gi.{m.group(1)}"),
    (re.compile(r"resource:///org/gnome/shell/(ui|misc)/(\w+)\.js$"), lambda m: f"imports.{m.group(1)}.{m.group(2)}"),
    (re.compile(r"\./(\w+)\.js$"), lambda m: f"Me.imports.{m.group(1)}"),
]
IMPORT = re.compile(r"^import (?:(\w+)|\* as (\w+)|(\{[\w, ]+\})) from '([^']+)';$")


def legacy_source(source):
    for pattern, replace in IMPORT_SOURCES:
        m = pattern.match(source)
        if m:
            return replace(m)
    return None


def to_legacy(name, text):
    """The ES module TEXT (file NAME) in the legacy form: imports become
    importer lookups, exported bindings become `var`s and functions (what a
    legacy importer exposes)."""
    out, exported, needs_me = [], [], False
    for number, line in enumerate(text.split("\n"), 1):
        where = f"{name}:{number}"
        if line.startswith("import "):
            m = IMPORT.match(line)
            source = legacy_source(m.group(4)) if m else None
            if source is None:
                raise SystemExit(f"{where}: an import to_legacy() cannot translate: {line}")
            needs_me |= source.startswith("Me.")
            if m.group(2) or m.group(1):
                line = f"const {m.group(1) or m.group(2)} = {source};"
            else:
                line = f"const {m.group(3)} = {source};"
        elif line.startswith("export "):
            m = re.match(r"^export (function|const|class) (\w+)(.*)$", line)
            if not m:
                raise SystemExit(f"{where}: an export to_legacy() cannot translate: {line}")
            kind, ident, rest = m.groups()
            exported.append(ident)
            if kind == "function":
                line = f"function {ident}{rest}"
            elif kind == "const":
                line = f"var {ident}{rest}"
            else:
                line = f"var {ident} = class {ident}{rest}"
        elif re.search(r"^\s*(import|export)\b", line):
            raise SystemExit(f"{where}: an import or export to_legacy() cannot translate: {line}")
        out.append(line)
    header = [f"// Generated from {name} by gnome-shell-extension/build-extension.py for GNOME Shell 42-44:",
              f"// edit {name}, not this file.",
              f"/* exported {', '.join(exported)} */"]
    if needs_me:
        header.append("const Me = imports.misc.extensionUtils.getCurrentExtension();")
    return "\n".join(header) + "\n" + "\n".join(out)


def build(flavour, src, schema, out):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "schemas"))
    for name in SHARED:
        text = open(os.path.join(src, name), encoding="utf-8").read()
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text if flavour == "esm" else to_legacy(name, text))
    for name in ESM_ONLY if flavour == "esm" else LEGACY_ONLY:
        shutil.copy(os.path.join(src, name) if flavour == "esm" else os.path.join(src, "legacy", name), out)
    shutil.copytree(os.path.join(src, "icons"), os.path.join(out, "icons"))
    shutil.copy(os.path.join(src, "schemas", "org.gnome.shell.extensions.jetsond.gschema.xml"),
                os.path.join(out, "schemas"))
    shutil.copy(schema, os.path.join(out, "schemas"))


def pack(out, zip_path, flavour):
    """The directory's files at the zip's top level, as gnome-extensions pack
    makes it for extensions.gnome.org. GNOME Shell 44 and later compile the
    schemas of an extension installed from a zip themselves (and the site
    asks 45+ uploads not to carry them), so the 45+ zip has no
    gschemas.compiled; the installed directories keep it."""
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for base, _dirs, files in sorted(os.walk(out)):
            for name in sorted(files):
                if flavour == "esm" and name == "gschemas.compiled":
                    continue
                path = os.path.join(base, name)
                z.write(path, os.path.relpath(path, out))


def main():
    flavour, src, schema, out = sys.argv[1:5]
    if flavour not in ("esm", "legacy"):
        raise SystemExit(f"unknown flavour {flavour}")
    build(flavour, src, schema, out)
    if len(sys.argv) > 5:
        pack(out, sys.argv[5], flavour)


if __name__ == "__main__":
    main()
