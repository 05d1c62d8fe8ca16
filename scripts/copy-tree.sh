#!/bin/sh
# copy-tree.sh SRC DEST: the source tree as a package build sees it: what
# git tracks (plus what is not yet committed), nothing built or ignored.
# Used by scripts/test-debian.sh and scripts/test-vm.sh.
set -eu
src=$1 dest=$2
mkdir -p "$dest"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$src" ls-files -z --cached --others --exclude-standard |
                (cd "$src" && xargs -0 cp -P --parents -t "$dest" 2>/dev/null) || true
        git -C "$src" ls-files -z --deleted | (cd "$dest" && xargs -0 rm -f)
else
        tar -C "$src" --exclude='./build*' -cf - . | tar -C "$dest" -xf -
fi
