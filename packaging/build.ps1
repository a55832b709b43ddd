# Build the evalgui bundle on Windows (one folder) from a clean virtual environment, as build.sh
# does on Linux and macOS:
#     powershell -ExecutionPolicy Bypass -File packaging\build.ps1 [-Output DIR] [-Python python]
# leaves in DIR (default: dist\ in the checkout)
#     evalgui\                                   the bundle: start evalgui\evalgui.exe
#     evalgui-VERSION-windows-MACHINE.zip        the bundle packed for download
#     build-info.txt                             versions, build time, sizes
# PyInstaller is installed only in the build's own environment: it is not one of evalgui's dependencies.
param(
    [string]$Output = (Join-Path (Split-Path -Parent $PSScriptRoot) "dist"),
    [string]$Python = "python"      # 3.11 or newer; e.g. -Python "C:\Python312\python.exe"
)
$ErrorActionPreference = "Stop"

function Invoke-Checked {
    # A plain function (no param block), so that options such as -m reach the program in $args.
    $program, $arguments = $args
    & $program @arguments
    if ($LASTEXITCODE -ne 0) { throw "$program $($arguments -join ' ') failed with exit code $LASTEXITCODE" }
}

$repo = Split-Path -Parent $PSScriptRoot
New-Item -ItemType Directory -Force -Path $Output | Out-Null
$out = (Resolve-Path $Output).Path
$work = Join-Path ([IO.Path]::GetTempPath()) ("evalgui-build-" + [guid]::NewGuid().ToString("N"))
$timer = [Diagnostics.Stopwatch]::StartNew()
try {
    Write-Host "evalgui build: a clean virtual environment in $work"
    Invoke-Checked $Python -m venv "$work\venv"
    $venvPython = "$work\venv\Scripts\python.exe"
    Invoke-Checked $venvPython -m pip install --quiet --upgrade pip
    # The project as a user installs it, from a copy of the sources (pip would leave build\ behind).
    robocopy $repo "$work\src" /E /XD .git dist build __pycache__ .venv _data /XF *.pyc /NFL /NDL /NJH /NJS /NP | Out-Null
    if ($LASTEXITCODE -ge 8) { throw "copying the sources failed (robocopy exit code $LASTEXITCODE)" }
    Invoke-Checked $venvPython -m pip install --quiet "$work\src" "pyinstaller>=6.10"

    Write-Host "evalgui build: pyinstaller"
    if (Test-Path "$out\evalgui") { Remove-Item -Recurse -Force "$out\evalgui" }
    Push-Location $work      # not the checkout: its evalgui\ is not what gets bundled
    try {
        Invoke-Checked $venvPython -m PyInstaller --noconfirm --log-level WARN --distpath $out `
            --workpath "$work\build" "$repo\packaging\pyinstaller\evalgui.spec"
    } finally { Pop-Location }

    $version = (& $venvPython -c "import importlib.metadata as m; print(m.version('evalgui'))").Trim()
    $machine = $env:PROCESSOR_ARCHITECTURE.ToLower()
    $archive = "$out\evalgui-$version-windows-$machine.zip"
    Get-ChildItem "$out\evalgui-*.zip" -ErrorAction SilentlyContinue | Remove-Item -Force
    Compress-Archive -Path "$out\evalgui" -DestinationPath $archive

    $bundleMb = [math]::Round(((Get-ChildItem -Recurse -File "$out\evalgui" | Measure-Object Length -Sum).Sum) / 1MB)
    $archiveMb = [math]::Round((Get-Item $archive).Length / 1MB)
    $seconds = [math]::Round($timer.Elapsed.TotalSeconds)
    @(
        "version: $version"
        "pyinstaller: $((& $venvPython -m PyInstaller --version).Trim())"
        "python: $((& $venvPython -c 'import platform; print(platform.python_version())').Trim())"
        "platform: Windows $machine"
        "build_seconds: $seconds"
        "bundle_mb: $bundleMb"
        "archive: $(Split-Path -Leaf $archive)"
        "archive_mb: $archiveMb"
    ) | Set-Content -Encoding utf8 "$out\build-info.txt"
    Write-Host "evalgui build: $out\evalgui ($bundleMb MB; packed: $archive, $archiveMb MB) in $seconds s"
    Write-Host "start it with $out\evalgui\evalgui.exe"
} finally {
    if (Test-Path $work) { Remove-Item -Recurse -Force $work }
}
