#!/usr/bin/env bash
# Register evalgui with the Linux desktop, for the current user: the menu entry, the icon, the
# AppStream metadata and the .evalgui project type, so that double-clicking a project opens it.
#     evalgui/linux/install.sh              in an unpacked bundle: registers that bundle's program
#     packaging/linux/install.sh            in a checkout: registers the `evalgui` command on PATH
#                                           (pip install / pipx install)
#     ... install.sh --uninstall            removes all of it again
# Files go under ${XDG_DATA_HOME:-~/.local/share}.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
app_id="io.github.evalgui.evalgui"

if [ -x "$here/../evalgui" ] && [ -d "$here/../_internal" ]; then       # a bundle
    program="$(cd "$here/.." && pwd)/evalgui"
    icons="$(cd "$here/.." && pwd)/_internal/evalgui/_resources/icons"
else                                                                      # a checkout
    program="evalgui"
    icons="$(cd "$here/../.." && pwd)/resources/icons"
fi

installed=(
    "$data/applications/evalgui.desktop"
    "$data/mime/packages/evalgui-mime.xml"
    "$data/metainfo/$app_id.metainfo.xml"
    "$data/icons/hicolor/scalable/apps/evalgui.svg"
    "$data/icons/hicolor/48x48/apps/evalgui.png"
    "$data/icons/hicolor/256x256/apps/evalgui.png"
)

refresh() {
    if command -v update-mime-database >/dev/null; then update-mime-database "$data/mime"; fi
    if command -v update-desktop-database >/dev/null; then update-desktop-database "$data/applications"; fi
    if command -v gtk-update-icon-cache >/dev/null; then gtk-update-icon-cache -q -t "$data/icons/hicolor" || true; fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "${installed[@]}"
    refresh
    echo "evalgui: removed from the desktop"
    exit 0
fi

mkdir -p "$data/applications" "$data/mime/packages" "$data/metainfo" \
    "$data/icons/hicolor/scalable/apps" "$data/icons/hicolor/48x48/apps" "$data/icons/hicolor/256x256/apps"
# The entry runs this program; quoted, as the Desktop Entry spec wants for paths with blanks.
sed "s|^Exec=evalgui |Exec=\"$program\" |" "$here/evalgui.desktop" > "$data/applications/evalgui.desktop"
cp "$here/evalgui-mime.xml" "$data/mime/packages/evalgui-mime.xml"
cp "$here/$app_id.metainfo.xml" "$data/metainfo/$app_id.metainfo.xml"
cp "$icons/evalgui.svg" "$data/icons/hicolor/scalable/apps/evalgui.svg"
cp "$icons/evalgui-48.png" "$data/icons/hicolor/48x48/apps/evalgui.png"
cp "$icons/evalgui-256.png" "$data/icons/hicolor/256x256/apps/evalgui.png"
refresh
echo "evalgui: added to the desktop (runs $program)"
