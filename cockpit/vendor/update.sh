#!/bin/sh
# Refreshes the vendored web libraries of the Cockpit page from npm, at the
# versions pinned below, and checks each tarball against its pinned sha256.
# Only a developer runs this (npm needed); building and packaging use the
# committed files. To move to a new version: change the version, run
# `npm pack PACKAGE@VERSION`, put its sha256 here and in README.md, run
# this script, and look at the page (tests/cockpit/).
set -eu

UPLOT_VERSION=1.6.32
UPLOT_SHA256=4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d
PATTERNFLY_VERSION=6.6.1
PATTERNFLY_SHA256=6ee4b5baac7e1319f121b2e95aaf76a24c7a4525e80185468f59300aabf4eb14

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fetch() { # PACKAGE VERSION SHA256 -> unpacked in $work/NAME/package
        name=$(echo "$1" | tr -d @ | tr / -)
        (cd "$work" && npm pack --silent "$1@$2" >/dev/null)
        echo "$3  $work/$name-$2.tgz" | sha256sum -c --quiet
        mkdir -p "$work/$name"
        tar -xzf "$work/$name-$2.tgz" -C "$work/$name"
}

# uPlot: the unminified browser build (a global uPlot) and its stylesheet,
# which npm ships only minified.
fetch uplot "$UPLOT_VERSION" "$UPLOT_SHA256"
rm -rf "$here/uplot"
mkdir -p "$here/uplot"
cp "$work/uplot/package/dist/uPlot.iife.js" "$work/uplot/package/dist/uPlot.min.css" \
   "$work/uplot/package/LICENSE" "$here/uplot/"

# PatternFly: the base stylesheet (variables, reset, light and dark theme,
# fonts) and the stylesheets of the components the page uses, with the
# variable fonts the base stylesheet names. Icons are not used.
fetch @patternfly/patternfly "$PATTERNFLY_VERSION" "$PATTERNFLY_SHA256"
pf="$work/patternfly-patternfly/package"
# LICENSE is ours (the npm package has no licence file) and stays.
rm -rf "$here/patternfly/components" "$here/patternfly/assets" "$here/patternfly/patternfly-base.css"
mkdir -p "$here/patternfly/assets/fonts"
cp "$pf/patternfly-base.css" "$here/patternfly/"
for component in Alert Button Card DescriptionList EmptyState Form FormControl HelperText Label Switch Table Title ToggleGroup; do
        mkdir -p "$here/patternfly/components/$component"
        cp "$pf/components/$component/"*.css "$here/patternfly/components/$component/"
done
for family in RedHatText RedHatDisplay RedHatMono; do
        mkdir -p "$here/patternfly/assets/fonts/$family"
        cp "$pf/assets/fonts/$family/${family}VF.woff2" "$pf/assets/fonts/$family/${family}VF-Italic.woff2" \
           "$here/patternfly/assets/fonts/$family/"
done
echo "vendored uPlot $UPLOT_VERSION and PatternFly $PATTERNFLY_VERSION into $here"
