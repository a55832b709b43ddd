#!/usr/bin/env bash
# Build the evalgui bundle (one folder) from a clean virtual environment:
#     packaging/build.sh [OUTPUT_DIR]          (default: dist/ in the checkout)
# leaves OUTPUT_DIR/evalgui/ (start OUTPUT_DIR/evalgui/evalgui) and OUTPUT_DIR/build-info.txt.
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
# The project as a user installs it (its resources inside the package), and the bundler.
"$venv_python" -m pip install --quiet "$repo" "pyinstaller>=6.10"

echo "evalgui build: pyinstaller"
rm -rf "$out/evalgui"
# From the work folder, so that the checkout's evalgui/ is not what gets bundled.
(cd "$work" && "$venv_python" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$out" --workpath "$work/build" "$repo/packaging/pyinstaller/evalgui.spec")

seconds=$((SECONDS - started))
size_mb=$(du -sm "$out/evalgui" | cut -f1)
{
    echo "version: $("$venv_python" -c 'import importlib.metadata as m; print(m.version("evalgui"))')"
    echo "pyinstaller: $("$venv_python" -m PyInstaller --version)"
    echo "python: $("$venv_python" -c 'import platform; print(platform.python_version())')"
    echo "platform: $(uname -sm)"
    echo "build_seconds: $seconds"
    echo "bundle_mb: $size_mb"
} > "$out/build-info.txt"
echo "evalgui build: $out/evalgui (${size_mb} MB) in ${seconds} s; start it with $out/evalgui/evalgui"
