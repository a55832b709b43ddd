"""The `evalgui` entry point: the desktop application.

    evalgui                     an empty session
    evalgui FILE...             load qrels / runs (kind from the content) and evaluate them, or open a .evalgui project
    evalgui --demo              load the bundled sample data and evaluate it
    evalgui --demo --self-test  the same, then check the installation and quit: exit 0 if all is well
    evalgui --version

``--self-test`` (or ``EVALGUI_SMOKE_TEST=1``) makes the window quit by itself once start-up
work (loading, the demo's evaluation) is done, exiting 0 on success and 1 if an error dialog
was shown or the installation lacks something (version, licences, resources, a module, the
icon): CI runs the README's ``evalgui --demo`` that way, and the bundle's test runs the bundle so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


DESKTOP_FILE = "evalgui"     # packaging/linux/evalgui.desktop
SELF_TEST_PATIENCE = 600     # seconds; a self-test never hangs


def create_main_window():
    from evalgui.gui.mainwindow import MainWindow

    return MainWindow()


def installation_problems(window) -> list[str]:
    """What the self-test finds missing: metadata, resources, modules (see core.distribution), the icon."""
    from evalgui.core import distribution

    problems = [f"self-test: {problem}" for problem in
                distribution.installation_problems() + distribution.unimportable_modules()]
    if window.windowIcon().isNull():
        problems.append("self-test: the window has no icon")
    return problems


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="evalgui", description="A desktop workbench for evaluating retrieval systems.")
    parser.add_argument("--demo", action="store_true", help="load the bundled sample data and evaluate it")
    parser.add_argument("--self-test", action="store_true",
                        help="quit once the files (or the demo) are loaded and evaluated, after checking the "
                             "installation; exit 1 on any error")
    parser.add_argument("files", nargs="*", help="qrels, runs or an .evalgui project to open")
    from evalgui.core.distribution import VersionAction

    parser.add_argument("--version", action=VersionAction, template="evalgui {version}")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    from evalgui.gui.platform_check import platform_problem

    # Qt would abort (status 134) with a message naming one library; say what to do instead.
    problem = platform_problem()
    if problem:
        print(f"evalgui: {problem}", file=sys.stderr)
        return 1
    projects = [f for f in args.files if f.endswith(".evalgui")] if not args.demo else []
    if projects:
        # A bad project is said before any window opens, in one line, as the CLI does (exit 2).
        from evalgui.core.errors import EvalInputError
        from evalgui.core.project import read_project

        try:
            read_project(projects[0], hash_files=False)
        except EvalInputError as exc:
            print(f"evalgui: error: {exc}", file=sys.stderr)
            return 2
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from evalgui.gui.about import application_icon

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("evalgui")
    app.setOrganizationName("evalgui")
    app.setDesktopFileName(DESKTOP_FILE)        # Wayland finds the icon and name through it
    app.setWindowIcon(application_icon())
    from evalgui.gui.style import install

    install(app)              # empty check boxes in lists stay visible on a dark palette
    window = create_main_window()
    window.show()

    smoke = args.self_test or os.environ.get("EVALGUI_SMOKE_TEST") == "1"
    errors: list[str] = []
    if smoke:
        window.ask_before_discarding = False       # nobody is there to answer
        window.error_shown.connect(lambda title, message: errors.append(f"{title}: {message}"))

    def finish_smoke_test():
        if not smoke:
            return
        started = time.monotonic()

        def quit_when_idle():
            busy = [ws.title for ws in window.workspaces.values() if ws.is_busy()]
            if window._loaders:
                busy.append("loading files")
            if window.demo_running():
                busy.append("the demo")
            if busy and time.monotonic() - started < SELF_TEST_PATIENCE:
                QTimer.singleShot(100, quit_when_idle)
                return
            if busy:
                errors.append(f"self-test: still busy after {SELF_TEST_PATIENCE} s: {', '.join(busy)}")
            failed = True
            try:          # whatever happens here, the test ends (an exception is printed, status 1)
                errors.extend(installation_problems(window))
                if args.demo and not busy:
                    errors.extend(f"self-test: the demo left {ws.title} without results"
                                  for ws in window.workspaces.values() if not ws.has_results())
                for message in errors:
                    print(message, file=sys.stderr)
                if not errors:
                    summary = window.workspaces["ranked"].summary_frame()
                    print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
                failed = bool(errors)
            finally:
                app.exit(1 if failed else 0)
        QTimer.singleShot(0, quit_when_idle)

    if args.demo:
        window.open_demo()
    # Data files land in the ranked workspace, evaluated when they hold qrels and runs.
    window.open_command_line([f for f in args.files if not (args.demo and f.endswith(".evalgui"))],
                             evaluate=not args.demo)
    QTimer.singleShot(0, finish_smoke_test)
    status = app.exec()
    from evalgui.gui.worker import cancel_all, wait_all

    cancel_all()          # app.exit() without closing the window (smoke test) leaves jobs to stop
    if not wait_all(5000):
        # A job still blocked in a system call: Python's exit would destroy its running QThread,
        # which aborts (status 134). Leave at once instead, as cleanly as that can be.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    sys.exit(main())
