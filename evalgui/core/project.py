"""Project files (``.evalgui``): JSON naming the loaded files, every workspace's form, its workflow
requests and, optionally, results. The format is documented in ``docs/project-format.md``.

File paths are stored relative to the project file when they sit below its
folder or near it (so a project folder can be moved or shared), absolute
otherwise. Reading resolves them against the project file's folder. Forms name
files (the chosen qrels, the ticked runs), and so do requests and results, as
``file:<path>`` strings; all are resolved the same way.

Version 2 adds each file's size and content hash (a file changed since the
project was saved is named when it is opened) and the workflow requests
(``requests``: what ``evalgui-cli run`` re-runs). Version-1 projects still open:
they have no hashes and no requests, and their results are in each
workspace's own version-1 layout, which the workspace migrates.

A project is untrusted input: it is checked against its schema before
anything is used, and a bad one is one EvalInputError naming the file.
"""

from __future__ import annotations

import json
import os
import re

from evalgui.core.errors import EvalInputError

FORMAT = "evalgui-project"
VERSION = 2
READABLE_VERSIONS = (1, 2)
# The kind of a similarity model file a project names (``eg.save_project``): hashed, never loaded as a data file.
MODEL_KIND = "similarity model"
# A project's JSON is refused past this size (a project holds results, not data: the data stays in its files).
MAX_PROJECT_BYTES = 512 << 20
ENCODE_CHECK_PIECES = 5_000      # a save's cancel check every this many pieces of JSON (about 20 ms of encoding)
# What opening a project may take in memory, estimated before parsing it (the parsed JSON takes many times its text).
MAX_PROJECT_MEMORY = 4 << 30
# Python's cost of each parsed piece, in bytes: an object (a dict with a few keys), a list, an item after a comma
# (its pointer and a boxed value); the text itself is held twice (bytes read, then decoded).
OBJECT_BYTES, LIST_BYTES, ITEM_BYTES, TEXT_FACTOR = 232, 64, 36, 2
SCAN_CHUNK = 1 << 20
FLAT = ("data", "rows")       # the keys of saved tables' columns
MAX_DEPTH = 100          # forms, requests and results' inputs nest a few levels; deeper is a crafted file


def _relative(path: str, folder: str) -> str:
    try:
        rel = os.path.relpath(path, folder)
    except ValueError:          # another drive on Windows
        return path
    # Up to two levels above the project stays relative; further away is clearer absolute.
    return rel if not rel.startswith(os.pardir + os.sep + os.pardir + os.sep + os.pardir) else path


def make_project(project_path: str, files: list[tuple[str, str]], forms: dict, results: dict | None = None,
                 requests: dict | None = None, *, hashes=None, state=None) -> dict:
    """The JSON-able project for ``files`` [(path, kind)] as seen from ``project_path``; ``requests``:
    workflow key -> the request's JSON (``Request.to_json``), whose file paths are made relative too.
    ``hashes``: a :class:`evalgui.core.hashing.HashCache` (files it knows are not read again); ``state``:
    the job's, which sees the hashing's progress and may cancel it."""
    from evalgui.core.hashing import content_hash
    from evalgui.core.jobs import state_or_default

    state = state_or_default(state)
    digest = hashes.content_hash if hashes is not None else content_hash
    folder = os.path.dirname(os.path.abspath(project_path))
    paths = {os.path.abspath(p) for p, _ in files}
    paths.update(p for p in form_files(forms) if os.path.isabs(p))
    for request in (requests or {}).values():
        paths.update(_request_paths(request))
    for saved in (results or {}).values():
        paths.update(_outcome_paths(saved))

    def entry(i: int, path: str, kind: str) -> dict:
        state.check()
        state.progress(i / max(len(files), 1), f"Hashing {os.path.basename(path)} ({i + 1:,} of {len(files):,})")
        item = {"path": _relative(os.path.abspath(path), folder).replace(os.sep, "/"), "kind": kind}
        if os.path.isfile(path):
            item["size"] = os.path.getsize(path)
            item["hash"] = digest(path, state.check)
        return item

    entries = [entry(i, p, kind) for i, (p, kind) in enumerate(files)]
    state.progress(1.0, "Hashed the files")
    return {
        "format": FORMAT,
        "version": VERSION,
        "files": entries,
        "forms": relative_form_paths(forms, project_path, paths),
        "requests": relative_form_paths(requests or {}, project_path, paths),
        # Only the inputs: the result rows can be large and name no file.
        "results": {k: _with_inputs(v, lambda inputs: relative_form_paths(inputs, project_path, paths))
                    for k, v in (results or {}).items() if v is not None},
    }


def saving_job(path: str, files: list[tuple[str, str]], forms: dict, results: dict, requests: dict,
               hashes=None):
    """An engine job writing the project ``path`` (absolute) atomically: what the window gathered on its own
    thread (``files``, ``forms``, ``requests``; ``results``: workspace -> a callable giving its results' JSON,
    called here), then the results' JSON, the files' hashes (``hashes``: a HashCache, or None), the encoding
    and the write done on the worker. A cancel or an error leaves the old file as it was and no temporary
    file. The project is then recorded as saved by this user (:mod:`evalgui.core.trust`)."""
    def job(state) -> str:
        from evalgui.core import trust
        from evalgui.core.export import atomic_path

        name = os.path.basename(path)
        state.progress(0.0, f"Saving {name}: the results")
        saved = {}
        for key, make in results.items():
            state.check()
            saved[key] = make() if callable(make) else make
        project = make_project(path, files, forms, saved, requests, hashes=hashes,
                               state=state.scaled(0.1, 0.8, f"Saving {name}: "))
        state.check()
        state.progress(0.8, f"Saving {name}: writing")
        # Encoded piece by piece into the temporary file: no second copy of the project as one string, and a
        # cancel check every few thousand pieces (the results of many runs take seconds to encode).
        encoder = json.JSONEncoder(indent=1, allow_nan=True)
        try:
            with atomic_path(path) as tmp:
                with open(tmp, "w", encoding="utf-8", newline="") as fh:
                    for i, piece in enumerate(encoder.iterencode(project)):
                        if not i % ENCODE_CHECK_PIECES:
                            state.check()
                        fh.write(piece)
                    fh.write("\n")
                state.check()
        except OSError as exc:          # a full disk, a folder gone: one line naming the file
            raise EvalInputError(path, exc.strerror or str(exc)) from None
        trust.record_saved(path)          # saved by this user here: it may read its files without asking
        state.progress(1.0, f"Saved {name}")
        return path
    return job


def _is_outcome(value) -> bool:
    return isinstance(value, dict) and "workspace" in value and "tables" in value


def _with_inputs(results, change):
    """``results`` with ``change`` applied to what names files: a workspace layout's ``inputs``, an
    Outcome's request and provenance (never its tables: they are large and name no file)."""
    if not isinstance(results, dict):
        return results
    if isinstance(results.get("inputs"), dict):
        results = {**results, "inputs": change(results["inputs"])}
    return {key: {k: (v if k == "tables" else change(v)) for k, v in value.items()} if _is_outcome(value) else value
            for key, value in results.items()}


def _outcome_paths(results) -> set[str]:
    """The absolute paths the Outcomes in a workspace's ``results`` name: in their requests and provenance."""
    out = set()
    for value in results.values() if isinstance(results, dict) else ():
        if not _is_outcome(value):
            continue
        provenance = value.get("provenance") if isinstance(value.get("provenance"), dict) else {}
        for request in (value.get("request"), provenance.get("request")):
            out |= _request_paths(request)
        for item in provenance.get("inputs") or ():
            if isinstance(item, dict) and isinstance(item.get("path"), str) and os.path.isabs(item["path"]):
                out.add(item["path"])
    return out


def _request_paths(request) -> set[str]:
    """The absolute paths a request's JSON names (its file parameters hold absolute paths or <names>)."""
    out = set()
    for value in request.values() if isinstance(request, dict) else ():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and os.path.isabs(item):
                out.add(item)
    return out


def read_project(path: str, hash_files: bool = True, in_pieces: bool = False) -> dict:
    """Read and check a project; file paths come back absolute. Raises EvalInputError for a bad file.

    Returns ``files`` [{path, kind, hash?}], ``forms``, ``results``, ``requests`` (workflow key -> the
    request's JSON), ``version`` and ``changed``: the files whose content differs from when the project
    was saved (their results are stale). ``hash_files=False``: ``changed`` is left empty, no named file
    is read (the window asks first about files outside the project's folder: :func:`checking_job`).
    ``in_pieces``: parse it with :func:`parse_in_pieces` (a worker beside the window's thread)."""
    from evalgui.core.hashing import content_hash

    path = os.path.abspath(path)
    data = _load_json(path, in_pieces)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise EvalInputError(path, "not an evalgui project (no \"format\": \"evalgui-project\")")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise EvalInputError(path, "the project has no valid \"version\" (a whole number)")
    if version not in READABLE_VERSIONS:
        shown = str(version) if version < 10**6 else "a later one"
        raise EvalInputError(path, f"project version {shown} is newer than this evalgui reads ({VERSION}); "
                                   "open it with a newer evalgui")
    for key, kind in (("files", list), ("forms", dict), ("results", dict), ("requests", dict)):
        if key in data and not isinstance(data[key], kind):
            raise EvalInputError(path, f"\"{key}\" must be a JSON {'list' if kind is list else 'object'}, "
                                       f"not {_json_type(data[key])}")
    folder = os.path.dirname(path)
    files = {}          # path -> entry: a file listed again is read once (its first entry counts)
    for i, entry in enumerate(data.get("files", [])):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
            raise EvalInputError(path, f"file entry {i + 1} has no path")
        _check_path(path, f"file entry {i + 1}", entry["path"])
        file_path = os.path.normpath(os.path.join(folder, entry["path"].replace("/", os.sep)))
        if file_path in files:
            continue
        item = {"path": file_path, "kind": entry.get("kind") if isinstance(entry.get("kind"), str) else None}
        if isinstance(entry.get("hash"), str):
            item["hash"] = entry["hash"]
        files[file_path] = item
    files = list(files.values())
    forms = data.get("forms", {})
    results = data.get("results", {})
    for key in ("forms", "requests", "results"):
        _check_nesting(path, key, data.get(key, {}))
    for key in ("forms", "requests"):
        _check_form_paths(path, key, data.get(key, {}))
    for key, value in results.items():
        _with_inputs(value, lambda inputs, key=key: _check_form_paths(path, f"results \"{key}\"", inputs))
    results = {k: _with_inputs(v, lambda inputs: _absolute_form_paths(inputs, folder)) for k, v in results.items()}
    requests = {str(k): v for k, v in data.get("requests", {}).items() if isinstance(v, dict)}
    changed = [f["path"] for f in files if hash_files and "hash" in f and os.path.isfile(f["path"])
               and content_hash(f["path"]) != f["hash"]]
    return {"files": files, "forms": _absolute_form_paths(forms, folder), "results": results,
            "requests": _absolute_form_paths(requests, folder), "version": version, "changed": changed}


def _path_problem(text: str) -> str | None:
    """Why ``text`` cannot name a file (None: it can): a NUL, or a character no file name holds (a lone
    surrogate other than those standing for a name's undecodable bytes)."""
    if "\0" in text:
        return "has a NUL character"
    try:
        os.fsencode(text)
    except UnicodeError:
        return "has a character that is not text (a lone surrogate)"
    return None


def _check_path(project_path: str, where: str, text: str) -> None:
    problem = _path_problem(text)
    if problem is not None:
        raise EvalInputError(project_path, f"{where}: the path {ascii(text)} {problem}")


def _check_form_paths(project_path: str, where: str, value) -> None:
    """Every path a form, request or result names (its ``file:`` strings, a request's file values) can name a file."""
    stack = [(value, where)]
    while stack:
        item, place = stack.pop()
        if isinstance(item, str):
            if item.startswith("file:") or os.path.isabs(item):
                _check_path(project_path, place, item)
        elif isinstance(item, dict):
            stack.extend((v, f"{place}, \"{k}\"") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{place}, item {i + 1}") for i, v in enumerate(item))
    return value


def _check_nesting(project_path: str, where: str, value) -> None:
    """Refuse ``value`` nested deeper than MAX_DEPTH (the walks after this one recurse); saved tables' columns
    (``FLAT``: long, and read as flat columns) are not walked."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise EvalInputError(project_path, f"\"{where}\" is nested too deeply to be a project "
                                               f"(more than {MAX_DEPTH} levels)")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for k, v in item.items() if k not in FLAT and isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))


def _json_type(value) -> str:
    return {type(None): "null", bool: "true or false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _load_json(path: str, in_pieces: bool = False):
    """The project's JSON; EvalInputError for what is not a regular file, too large, or not JSON."""
    import stat

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise EvalInputError(path, "no such file") from None
    except OSError as exc:
        raise EvalInputError(path, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise EvalInputError(path, "not a regular file (a project is a JSON file)")
    if info.st_size > MAX_PROJECT_BYTES:
        raise EvalInputError(path, f"{info.st_size:,} bytes is too large for a project "
                                   f"(at most {MAX_PROJECT_BYTES >> 20} MB)")
    try:
        _check_memory(path)
        with open(path, "rb") as fh:
            text = fh.read(MAX_PROJECT_BYTES + 1).decode("utf-8")
        return parse_in_pieces(text) if in_pieces else json.loads(text)
    except EvalInputError:
        raise
    except MemoryError:
        from evalgui.core.memory import out_of_memory

        raise EvalInputError(path, out_of_memory(path)) from None
    except UnicodeDecodeError:
        raise EvalInputError(path, "not a text file (an evalgui project is JSON)") from None
    except json.JSONDecodeError as exc:
        raise EvalInputError(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    except RecursionError:
        raise EvalInputError(path, "the JSON is nested too deeply to be a project") from None
    except ValueError as exc:        # e.g. a number of more digits than Python converts
        raise EvalInputError(path, f"not a valid project: {exc}") from None
    except OSError as exc:
        raise EvalInputError(path, exc.strerror or str(exc)) from None


PIECE_CHARS = 1 << 20          # the most text one call of the C parser reads (about 15 ms of numbers)
FIRST_PIECE = 64               # a list's first piece: a short list costs one short failed try
_SPACE = re.compile(r"[ \t\n\r]*")


def parse_in_pieces(text: str):
    """``json.loads(text)``, with no C call longer than PIECE_CHARS of text: json.loads holds the GIL for
    the whole text (a 100 MB project froze the window's thread for seconds while its worker parsed it).
    Objects and lists are walked here; scalars, and runs of items in a list (saved tables' columns), are
    the C parser's. Bad JSON: json.loads's own error."""
    scan = json.JSONDecoder().scan_once

    def skip(i: int) -> int:
        return _SPACE.match(text, i).end()

    def value(i: int):
        i = skip(i)
        opening = text[i:i + 1]
        if opening == "{":
            return members(i + 1)
        if opening == "[":
            return items(i + 1)
        return scan(text, i)

    def following(i: int, end: str) -> int:
        """After an item: where the next one starts (past the comma), or minus where the text goes on past
        ``end``."""
        i = skip(i)
        if text[i:i + 1] == end:
            return -(i + 1)
        if text[i:i + 1] != ",":
            raise ValueError
        return skip(i + 1)

    def members(i: int):
        out = {}
        i = skip(i)
        if text[i:i + 1] == "}":
            return out, i + 1
        while True:
            if text[i:i + 1] != '"':
                raise ValueError
            key, i = scan(text, i)
            i = skip(i)
            if text[i:i + 1] != ":":
                raise ValueError
            out[key], i = value(i + 1)
            i = following(i, "}")
            if i < 0:
                return out, -i

    def items(i: int):
        out = []
        i = skip(i)
        if text[i:i + 1] == "]":
            return out, i + 1
        size, closing = FIRST_PIECE, ""
        while True:
            # The items up to a comma, as one piece for the C parser: a piece it takes holds whole items (a
            # comma inside a string or a nested list, or past this list's end, leaves it invalid). Pieces grow
            # while they parse, up to PIECE_CHARS; one that does not is parsed item by item here. The comma
            # cut at follows what closed the last item ("}," after an object: not a comma inside one).
            cut = text.rfind(closing + ",", i, i + size) if i + size < len(text) else -1
            cut += len(closing) if cut >= 0 else 0
            if cut > i:
                try:
                    out.extend(json.loads("[" + text[i:cut] + "]"))
                    i = skip(cut + 1)
                    size = min(2 * size, PIECE_CHARS)
                    continue
                except ValueError:
                    size = FIRST_PIECE
            item, i = value(i)
            out.append(item)
            closing = text[i - 1] if text[i - 1] in '}]"' else ""
            i = following(i, "]")
            if i < 0:
                return out, -i

    try:
        result, end = value(0)
        if skip(end) != len(text):
            raise ValueError
        return result
    except (ValueError, StopIteration, IndexError):
        return json.loads(text)               # raises json's own error (or, were this walk wrong, parses it)


def _check_memory(path: str) -> None:
    """Refuse a project whose parsed JSON would not fit, before parsing it: a scan in chunks (constant memory)
    counts its objects, lists and items, each of which Python holds as an object; refuse a JSON value other
    than an object (a project is one) from its first character."""
    from evalgui.core.memory import _mib, room

    objects = lists = items = size = 0
    first = None
    with open(path, "rb") as fh:
        while chunk := fh.read(SCAN_CHUNK):
            if first is None and chunk.strip():
                first = chunk.lstrip()[:1]
                if first in b'["-0123456789tfn':
                    raise EvalInputError(path, "not an evalgui project (its JSON is not an object)")
            size += len(chunk)
            objects += chunk.count(b"{")
            lists += chunk.count(b"[")
            items += chunk.count(b",")
    need = TEXT_FACTOR * size + OBJECT_BYTES * objects + LIST_BYTES * lists + ITEM_BYTES * items
    limit, what = MAX_PROJECT_MEMORY, f"the {_mib(MAX_PROJECT_MEMORY)} a project may take"
    free = room()
    if free is not None and free.free < limit:
        limit, what = free.free, f"the {_mib(free.free)} that remain under {free.what}"
    if need > limit:
        raise EvalInputError(path, f"opening it would take about {_mib(need)} of memory ({objects + lists:,} "
                                   f"objects and lists, {items:,} items), more than {what}")


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


# ---------------------------------------------------------------- opening a project in steps (the window)
def form_files(forms) -> list[str]:
    """The files the forms read themselves, beside the session's files: the case base's MAC model."""
    casebase = forms.get("casebase") if isinstance(forms, dict) else None
    mac = casebase.get("mac_model") if isinstance(casebase, dict) else None
    return [mac] if isinstance(mac, str) and mac else []


def drop_form_files(forms: dict, paths) -> dict:
    """``forms`` without the form files in ``paths`` (not to be read)."""
    paths = set(paths)
    casebase = forms.get("casebase")
    if isinstance(casebase, dict) and casebase.get("mac_model") in paths:
        forms = {**forms, "casebase": {**casebase, "mac_model": None}}
    return forms


def reading_job(path: str):
    """An engine job reading and checking the project (no file it names is read): the
    :func:`read_project` dict plus ``outside``, the named files outside its folder (links resolved),
    and ``trusted``: whether they may be read (True, False, or None: ask the user)."""
    def job(state) -> dict:
        from evalgui.core import trust

        state.progress(0.0, f"Reading {os.path.basename(path)}")
        project = read_project(path, hash_files=False, in_pieces=True)
        state.check()
        named = [f["path"] for f in project["files"]] + form_files(project["forms"])
        project["outside"] = trust.outside_folder(path, named)
        project["trusted"] = trust.decision(path) if project["outside"] else True
        state.progress(1.0, "Read the project")
        return project
    return job


def checking_job(path: str, files: list[dict], form_paths: list[str], answer: bool | None = None, hashes=None):
    """An engine job sorting the files a project may read (``files`` [{path, kind, hash?}] and the forms'
    own ``form_paths``): returns ``present`` (files to load), ``missing``, ``refused`` (path -> why:
    a FIFO, a device, a folder) and ``changed`` (content differs from the saved hash). ``answer``: the
    user's trust answer, remembered first. ``hashes``: a HashCache that keeps the hashes worked out here
    (the window's session: saving the project again reads none of its files)."""
    def job(state) -> dict:
        from evalgui.core import trust
        from evalgui.core.formats._text import check_regular
        from evalgui.core.hashing import content_hash

        digest = content_hash if hashes is None else hashes.content_hash
        if answer is not None:
            trust.remember_answer(path, answer)
        out = {"present": [], "missing": [], "refused": {}, "changed": []}
        entries = list(files) + [{"path": p, "kind": None, "form": True} for p in form_paths]
        n = len(entries)
        for i, entry in enumerate(entries):
            state.check()
            state.progress(i / max(n, 1), f"Checking {os.path.basename(entry['path'])} ({i + 1} of {n})")
            file_path = entry["path"]
            if not os.path.lexists(file_path):
                out["missing"].append(file_path)
                continue
            try:
                check_regular(file_path)
            except EvalInputError as exc:
                out["refused"][file_path] = str(exc)
                continue
            if "hash" in entry and digest(file_path, state.check) != entry["hash"]:
                out["changed"].append(file_path)
            if not entry.get("form"):
                out["present"].append(entry)
        state.progress(1.0, "Checked the project's files")
        return out
    return job
