"""The one "Export…" dialog: every table, plot and matrix saves through ``export_dialog``.

    export_dialog(parent, "summary", TABLE_FORMATS, lambda path: export_frame(frame, path))

It asks for a file name in the folder of the last export, adds the chosen
format's extension when the typed name has none, calls the writer, remembers
the folder when it worked, and reports a failure in a message box naming the path (an
exception never escapes the menu or button slot that called it). Writers
should write atomically (``evalgui.core.export.atomic_path``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from evalgui.gui.plain_text import tip as plain_tip

LAST_FOLDER_KEY = "last_export_folder"

TABLE_FORMATS = (("CSV", ".csv"), ("TSV", ".tsv"), ("LaTeX", ".tex"), ("Markdown", ".md"), ("JSON", ".json"))
PLOT_FORMATS = (("PNG image", ".png"), ("SVG", ".svg"))
# Formats of per-query tables written as tidy rows (run, query, measure, value): what the per-query
# scores input kind reads back and evalgui-cli evaluate --per-query writes. The others (LaTeX,
# Markdown) are for reading and keep the table's shape.
TIDY_FORMATS = ("csv", "tsv", "json")


def file_filter(formats: Sequence[tuple[str, str]]) -> str:
    """Qt's filter string: "CSV (*.csv);;TSV (*.tsv)"."""
    return ";;".join(f"{label} (*{ext})" for label, ext in formats)


def with_extension(path: str, chosen_filter: str) -> str:
    """Add the chosen filter's extension (e.g. "LaTeX (*.tex)") when the name typed has none."""
    if not path or os.path.splitext(path)[1]:
        return path
    found = re.search(r"\*(\.\w+)", chosen_filter or "")
    return path + (found.group(1) if found else "")


def last_export_folder() -> str:
    from evalgui.gui.settings import app_settings

    return str(app_settings().value(LAST_FOLDER_KEY, "") or "")


def remember_export_folder(path: str) -> None:
    from evalgui.gui.settings import app_settings

    app_settings().setValue(LAST_FOLDER_KEY, os.path.dirname(os.path.abspath(path)))


def failure_text(path: str, exc: BaseException) -> str:
    """"<path the user chose>: <reason>" (an OSError's own file name may be a temporary file)."""
    return f"{path}: {getattr(exc, 'strerror', None) or exc}"


def nothing_to_export(parent: QWidget | None) -> None:
    """Say so instead of writing an empty file."""
    QMessageBox.information(parent, "Nothing to export", "There is nothing to export yet: run an evaluation first.")


_NOT_IN_FILE_NAMES = re.compile(r'[/\\:*?"<>|]+')


def file_words(*parts: str) -> str:
    """A file name people read, from the words the window shows (a plot, a measure, a choice): the parts
    joined by " - "; a part that is a machine name (per_query) written as words (Per query), a measure as papers
    write it; characters no file system takes replaced."""
    from evalgui.core.display import plain_words
    from evalgui.gui.naming import label

    shown = []
    for part in parts:
        if not part:
            continue
        words = label(str(part))
        # the first part names the table or plot: a machine name there (comparison, per_query) becomes words
        machine = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)" + ("*" if not shown else "+")
        if words == part and re.fullmatch(machine, part):
            words = plain_words(part)
        shown.append(_NOT_IN_FILE_NAMES.sub("-", words))
    return " - ".join(shown)


def export_dialog(parent: QWidget | None, default_name: str, formats: Sequence[tuple[str, str]],
                  write: Callable[[str], None], *, title: str = "Export") -> str | None:
    """Ask where to save, then ``write(path)``. ``formats``: (label, ".ext") pairs, the first is the default.

    Returns the path written, or None when the dialog was cancelled or writing failed."""
    stem, extension = os.path.splitext(default_name)
    name = (file_words(stem) + extension) if extension else file_words(default_name) + formats[0][1]
    path, chosen = QFileDialog.getSaveFileName(parent, title, os.path.join(last_export_folder(), name),
                                               file_filter(formats))
    if not path:
        return None
    path = with_extension(path, chosen)
    try:
        write(path)
    except Exception as exc:   # never let a failed export escape the slot that opened the dialog
        QMessageBox.critical(parent, "Export failed", plain_tip(failure_text(path, exc)))
        return None
    remember_export_folder(path)   # only a folder that worked: a failed one would be offered again
    return path
