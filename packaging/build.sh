#!/usr/bin/env bash
# Build the evalgui bundle (one folder) from a clean virtual environment:
#     packaging/build.sh [OUTPUT_DIR]          (default: dist/ in the checkout)
# leaves in OUTPUT_DIR
#     evalgui/                                  the bundle: start evalgui/evalgui; on Linux,
#                                               evalgui/linux/install.sh adds it to the desktop
#     evalgui.app                               on macOS, the same as an application
#     evalgui-VERSION-SYSTEM-MACHINE.tar.gz     the bundle packed for download
#     build-info.txt                            versions, build time, sizes (docs/benchmarks.md)
# PYTHON names the interpreter (default python3, 3.11 or newer). PyInstaller is installed
# only in the build's own environment: it is not one of evalgui's dependencies.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$repo/dist}" && cd "${1:-$repo/dist}" && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

echo "evalgui build: a clean virtual environment in $work"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install --quiet --upgrade pip
# The project as a user installs it (its resources inside the package), and the bundler. From a
# copy of the sources: pip would leave build/ in the checkout, whose stale files later builds reuse.
mkdir "$work/src"
tar -C "$repo" --exclude=./.git --exclude=./dist --exclude=./build --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=./benchmarks/_data --exclude=./.venv -cf - . | tar -C "$work/src" -xf -
"$venv_python" -m pip install --quiet "$work/src" "pyinstaller>=6.10"

echo "evalgui build: pyinstaller"
rm -rf "$out/evalgui"
# From the work folder, so that the checkout's evalgui/ is not what gets bundled.
(cd "$work" && "$venv_python" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$out" --workpath "$work/build" "$repo/packaging/pyinstaller/evalgui.spec")

if [ "$(uname -s)" = Linux ]; then
    mkdir -p "$out/evalgui/linux"
    cp "$repo"/packaging/linux/{evalgui.desktop,evalgui-mime.xml,io.github.evalgui.evalgui.metainfo.xml,install.sh} \
        "$out/evalgui/linux/"
fi

version="$("$venv_python" -c 'import importlib.metadata as m; print(m.version("evalgui"))')"
system="$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)"
archive="$out/evalgui-$version-$system.tar.gz"
packed=evalgui
if [ "$(uname -s)" = Darwin ]; then packed=evalgui.app; fi      # the spec's application bundle
rm -f "$out"/evalgui-*.tar.gz
tar -czf "$archive" -C "$out" "$packed"

seconds=$((SECONDS - started))
size_mb=$(du -sm "$out/evalgui" | cut -f1)
archive_mb=$(du -sm "$archive" | cut -f1)
{
    echo "version: $version"
    echo "pyinstaller: $("$venv_python" -m PyInstaller --version)"
    echo "python: $("$venv_python" -c 'import platform; print(platform.python_version())')"
    echo "platform: $(uname -sm)"
    echo "build_seconds: $seconds"
    echo "bundle_mb: $size_mb"
    echo "archive: $(basename "$archive")"
    echo "archive_mb: $archive_mb"
} > "$out/build-info.txt"
echo "evalgui build: $out/evalgui (${size_mb} MB; packed: $archive, ${archive_mb} MB) in ${seconds} s"
echo "start it with $out/evalgui/evalgui"
