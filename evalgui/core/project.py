"""Project files (``.evalgui``): JSON naming the loaded files, every workspace's form and, optionally, results.

File paths are stored relative to the project file when they sit below its
folder or near it (so a project folder can be moved or shared), absolute
otherwise. Reading resolves them against the project file's folder. Forms name
files (the chosen qrels, the ticked runs), and so do results, under the key
``inputs`` (what they were computed with); both are resolved the same way.
"""

from __future__ import annotations

import json
import os

from evalgui.core.errors import EvalInputError

FORMAT = "evalgui-project"
VERSION = 1


def _relative(path: str, folder: str) -> str:
    try:
        rel = os.path.relpath(path, folder)
    except ValueError:          # another drive on Windows
        return path
    # Up to two levels above the project stays relative; further away is clearer absolute.
    return rel if not rel.startswith(os.pardir + os.sep + os.pardir + os.sep + os.pardir) else path


def make_project(project_path: str, files: list[tuple[str, str]], forms: dict, results: dict | None = None) -> dict:
    """The JSON-able project for ``files`` [(path, kind)] as seen from ``project_path``."""
    folder = os.path.dirname(os.path.abspath(project_path))
    paths = {os.path.abspath(p) for p, _ in files}
    return {
        "format": FORMAT,
        "version": VERSION,
        "files": [{"path": _relative(os.path.abspath(p), folder).replace(os.sep, "/"), "kind": kind}
                  for p, kind in files],
        "forms": relative_form_paths(forms, project_path, paths),
        # Only the inputs: the result rows can be large and name no file.
        "results": {k: _with_inputs(v, lambda inputs: relative_form_paths(inputs, project_path, paths))
                    for k, v in (results or {}).items() if v is not None},
    }


def _with_inputs(results, change):
    """``results`` with ``change`` applied to its ``inputs`` (the files the results were computed with)."""
    if isinstance(results, dict) and isinstance(results.get("inputs"), dict):
        return {**results, "inputs": change(results["inputs"])}
    return results


def read_project(path: str) -> dict:
    """Read a project; file paths come back absolute. Raises EvalInputError for a bad file."""
    path = os.path.abspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise EvalInputError(path, "no such file") from None
    except UnicodeDecodeError:
        raise EvalInputError(path, "not a text file (an evalgui project is JSON)") from None
    except json.JSONDecodeError as exc:
        raise EvalInputError(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    except OSError as exc:
        raise EvalInputError(path, exc.strerror or str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise EvalInputError(path, "not an evalgui project (no \"format\": \"evalgui-project\")")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise EvalInputError(path, f"project version {data.get('version')!r} is newer than this evalgui reads "
                                   f"({VERSION})")
    folder = os.path.dirname(path)
    files = []
    for i, entry in enumerate(data.get("files", [])):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise EvalInputError(path, f"file entry {i + 1} has no path")
        file_path = os.path.normpath(os.path.join(folder, entry["path"].replace("/", os.sep)))
        files.append({"path": file_path, "kind": entry.get("kind") if isinstance(entry.get("kind"), str) else None})
    forms = data.get("forms") if isinstance(data.get("forms"), dict) else {}
    results = data.get("results") if isinstance(data.get("results"), dict) else {}
    results = {k: _with_inputs(v, lambda inputs: _absolute_form_paths(inputs, folder)) for k, v in results.items()}
    return {"files": files, "forms": _absolute_form_paths(forms, folder), "results": results}


def _map_strings(value, change):
    """``value`` with ``change`` applied to every string in it, keys included (forms are nested JSON)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {_map_strings(k, change): _map_strings(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    return value


def _absolute_form_paths(forms: dict, folder: str) -> dict:
    """Forms name files by path too (the chosen qrels, ticked runs): resolve those the same way."""
    return _map_strings(forms, lambda text: os.path.normpath(os.path.join(folder, text[5:].replace("/", os.sep)))
                        if text.startswith("file:") else text)


def relative_form_paths(forms: dict, project_path: str, paths: set[str]) -> dict:
    """Replace the file paths in forms (those in ``paths``) with ``file:<relative path>``."""
    folder = os.path.dirname(os.path.abspath(project_path))
    return _map_strings(forms, lambda text: "file:" + _relative(text, folder).replace(os.sep, "/")
                        if text in paths else text)
