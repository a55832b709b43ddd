"""A smaller libicudata for the bundle: ICU's data less the parts Qt never reads.

Qt Core calls ICU only for collation (ucol_*, QCollator: the file dialog sorts names with it), time zones
(ucal_*), case mapping (u_strTo*) and legacy text encodings (ucnv_*, QStringDecoder by name, which evalgui
never uses). PySide6's libicudata (31 MB) also holds break-iteration dictionaries, transliterators,
spell-out rules, character names, and display names of units, currencies, languages and regions, and the
converter tables: no function Qt links reaches them. This rewrites ICU's common data package
(the "CmnD" table of contents inside the library's icudtNN_dat symbol) without those items and links it
as a new libicudata with the same soname, with binutils (ld, objcopy) only.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

# Folders and files of the package (names after "icudtNNl/") that Qt cannot reach.
LEFT_OUT = re.compile(r"(brkitr|translit|rbnf|unit|curr|lang|region)/.*|unames\.icu|confusables.*\.cfu|.*\.cnv")
ALIGNMENT = 16            # ICU aligns each item so


def _dynamic_symbol(data: bytes, name: str) -> tuple[str, bytes]:
    """The bytes of the first dynamic symbol whose name matches ``name`` (64-bit little-endian ELF)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF library")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for section in sections:
        if section[1] != 11:                                    # SHT_DYNSYM
            continue
        strings = sections[section[6]][4]
        for offset in range(section[4], section[4] + section[5], 24):
            st_name, _, _, shndx, value, size = struct.unpack_from("<IBBHQQ", data, offset)
            symbol = data[strings + st_name:data.index(b"\0", strings + st_name)].decode()
            if re.fullmatch(name, symbol) and size:
                holder = sections[shndx]
                start = value - holder[3] + holder[4]
                return symbol, data[start:start + size]
    raise ValueError(f"no symbol {name}")


def _without(package: bytes, left_out: re.Pattern) -> tuple[bytes, int]:
    """ICU's common data ``package`` less the items whose names match ``left_out``; and how many remain."""
    header_size, = struct.unpack_from("<H", package, 0)
    if package[2:4] != b"\xda\x27" or package[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package")
    toc = package[header_size:]
    count, = struct.unpack_from("<I", toc, 0)
    entries = [struct.unpack_from("<II", toc, 4 + 8 * i) for i in range(count)]
    ends = [data for _, data in entries[1:]] + [len(toc)]
    items = []                                     # (name, data), in the table's (sorted) order
    for (name_at, data_at), end in zip(entries, ends):
        name = toc[name_at:toc.index(b"\0", name_at)]
        if not left_out.fullmatch(name.decode().split("/", 1)[1]):
            items.append((name, toc[data_at:end]))
    names_at = 4 + 8 * len(items)
    names = b"".join(name + b"\0" for name, _ in items)
    offset = names_at + len(names)
    offset += -offset % ALIGNMENT
    table, blobs, name_offset = [struct.pack("<I", len(items))], [], names_at
    for name, data in items:
        table.append(struct.pack("<II", name_offset, offset))
        name_offset += len(name) + 1
        blobs.append(data + b"\0" * (-len(data) % ALIGNMENT))
        offset += len(blobs[-1])
    body = b"".join(table) + names
    body += b"\0" * (-(header_size + len(body)) % ALIGNMENT)
    return package[:header_size] + body + b"".join(blobs), len(items)


def smaller_icu_data(library: str, folder: Path) -> Path | None:
    """A copy of ``library`` (libicudataNN) without the LEFT_OUT items, made in ``folder``; None without binutils."""
    ld, objcopy = shutil.which("ld"), shutil.which("objcopy")
    if ld is None or objcopy is None:
        return None
    original = Path(library).read_bytes()
    symbol, package = _dynamic_symbol(original, r"icudt\d+_dat")
    smaller, _ = _without(package, LEFT_OUT)
    soname = Path(library).name
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"{symbol}.bin"
    data.write_bytes(smaller)
    obj, result = folder / f"{symbol}.o", folder / soname
    # ld -b binary names the data _binary_<path>_start; ICU's libraries look for icudtNN_dat, read-only
    subprocess.run([ld, "-r", "-b", "binary", "-o", str(obj), data.name], cwd=folder, check=True)
    mangled = re.sub(r"[^A-Za-z0-9]", "_", data.name)
    subprocess.run([objcopy, "--rename-section", ".data=.rodata,alloc,load,readonly,data,contents",
                    "--set-section-alignment", f".rodata={ALIGNMENT}",
                    "--redefine-sym", f"_binary_{mangled}_start={symbol}",
                    "--strip-symbol", f"_binary_{mangled}_end", "--strip-symbol", f"_binary_{mangled}_size",
                    str(obj)], check=True)
    subprocess.run([ld, "-shared", "-soname", soname, "-z", "noexecstack", "-o", str(result), str(obj)], check=True)
    return result
