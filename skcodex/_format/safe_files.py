"""Reading bytes someone else wrote, within fixed bounds and without running any of them.

The primitives `skcodex.load` builds on, each refusing with a `PersistenceError`
that says why:

- `read_regular_file`: only a regular file (not a device, FIFO or folder), at
  most ``limit`` bytes, read in bounded chunks (a file that grows while read is
  cut off);
- `parse_json`: JSON nested at most `MAX_JSON_DEPTH` levels;
- `read_npz`: the arrays of an uncompressed ``.npz``, each ``.npy`` header
  checked against the bytes present before an array is built, no Python
  objects;
- `check_hdf5_self_contained`: an HDF5 (NetCDF-4) file that reads nothing
  outside itself (no external storage, virtual datasets or external links),
  whose datasets fit a memory budget.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
import zipfile
from typing import Any

import numpy as np

__all__ = [
    "MAX_JSON_DEPTH",
    "PersistenceError",
    "check_hdf5_self_contained",
    "parse_json",
    "read_npz",
    "read_regular_file",
]

#: The deepest nesting of lists and objects accepted in JSON.
MAX_JSON_DEPTH = 64

_CHUNK = 1 << 20
_NPY = re.compile(r"a[0-9]{1,6}\.npy")
_MAX_ARRAYS = 100_000
# Memory of one decoded variable-length text entry: its Python object and its pointer.
_TEXT_OBJECT_BYTES = 64
#: Array kinds a file may hold: numbers, dates, durations and text; never objects.
ARRAY_KINDS = "biufcMmU"


class PersistenceError(ValueError):
    """An estimator that cannot be saved, or a file that cannot be loaded; the message says why."""


def read_regular_file(path: str | os.PathLike, where: str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Parameters
    ----------
    path : str or path-like
    where : str
        The name errors give the file.
    limit : int
        The most bytes read.

    Returns
    -------
    bytes

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    PersistenceError
        If it is not a regular file, cannot be opened, or is larger than ``limit``.
    """
    # O_NONBLOCK: opening a FIFO must not wait for a writer
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(2, "no saved estimator at this path", where) from None
    except OSError as err:
        raise PersistenceError(f"{where} cannot be opened: {err.strerror or err}") from None
    except UnicodeEncodeError:
        raise PersistenceError(
            f"{where} cannot be opened: the file name is not valid in this file system's encoding"
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise PersistenceError(f"{where} is a folder, not a saved skcodex estimator")
        raise PersistenceError(
            f"{where} is not a regular file (a device, pipe or socket); a saved skcodex "
            "estimator is a regular file"
        )
    with os.fdopen(fd, "rb") as fh:
        if info.st_size > limit:
            raise PersistenceError(
                f"{where} is {info.st_size} bytes, more than the {limit} bytes load reads; "
                "pass max_bytes= to read larger files"
            )
        chunks, size = [], 0
        while chunk := fh.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise PersistenceError(f"{where} grew past {limit} bytes while being read")
            chunks.append(chunk)
    return b"".join(chunks)


def parse_json(raw: bytes, what: str) -> Any:
    """Parse UTF-8 JSON nested at most `MAX_JSON_DEPTH` levels deep.

    Parameters
    ----------
    raw : bytes
    what : str
        The name errors give it ("its metadata ...").

    Returns
    -------
    object
    """
    try:
        value = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise PersistenceError(f"its {what} is nested too deeply") from None
    except ValueError as err:  # UnicodeDecodeError is a ValueError
        raise PersistenceError(f"its {what} is not valid JSON ({err})") from None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise PersistenceError(f"its {what} is nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return value


def stored(info: zipfile.ZipInfo) -> bool:
    """Whether a zip member is stored as is (its size in the file is its size in memory)."""
    return info.compress_type == zipfile.ZIP_STORED and info.file_size == info.compress_size


def read_npz(blob: bytes, limit: int) -> dict[str, np.ndarray]:
    """The arrays of an uncompressed ``.npz`` (members ``a<n>.npy``), checked before building.

    Parameters
    ----------
    blob : bytes
    limit : int
        The most bytes one array may take.

    Returns
    -------
    dict of str to ndarray
    """
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(blob)) as npz:
        infos = npz.infolist()
        if len(infos) > _MAX_ARRAYS:
            raise PersistenceError(f"arrays.npz holds {len(infos)} arrays")
        for info in infos:
            name = info.filename
            if not _NPY.fullmatch(name) or name[:-4] in out:
                raise PersistenceError(f"arrays.npz holds an unexpected {name[:40]!r}")
            if not stored(info):
                raise PersistenceError(f"arrays.npz: {name} is compressed")
            # zipfile reads a member no further than its declared size, then checks its CRC
            raw = npz.read(info)
            out[name[:-4]] = _npy(raw, name, limit)
    return out


def _npy(raw: bytes, name: str, limit: int) -> np.ndarray:
    """One ``.npy`` member's array; its header is checked against the bytes present."""
    fh = io.BytesIO(raw)
    version = np.lib.format.read_magic(fh)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise PersistenceError(f"arrays.npz: {name} has .npy version {version}")
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    if dtype.hasobject or dtype.kind not in ARRAY_KINDS or dtype.fields is not None:
        raise PersistenceError(f"arrays.npz: {name} has dtype {dtype}")
    nbytes, present = math.prod(shape) * dtype.itemsize, len(raw) - fh.tell()
    if nbytes > limit or nbytes != present:
        raise PersistenceError(
            f"arrays.npz: the header of {name} claims {nbytes} bytes of data "
            f"but the member holds {present}"
        )
    fh.seek(0)
    return np.lib.format.read_array(fh)  # never unpickles (and no objects got this far)


def check_hdf5_self_contained(path: str | os.PathLike, max_bytes: int | None = None) -> int:
    """Refuse an HDF5 (NetCDF-4) file that would read data from outside itself.

    HDF5 lets a dataset keep its values in other files (external storage),
    assemble them from datasets of other files (virtual datasets), and lets a
    group link to objects of another file (external links). Opening such a
    file reads whatever local file its author named. This walks every group
    and dataset, without reading any data, and refuses all three.

    Parameters
    ----------
    path : str, path-like or binary file object
        The HDF5 file (an `io.BytesIO` of its bytes is read in memory).
    max_bytes : int, optional
        Refuse the file when its datasets would take more than this many bytes
        in memory once read (decompressed).

    Returns
    -------
    int
        The bytes all datasets take once read.

    Raises
    ------
    PersistenceError
        Naming the offending object.
    """
    import h5py

    total = 0
    seen: set = set()
    try:
        source = path if hasattr(path, "read") else os.fspath(path)
        with h5py.File(source, "r") as fh:
            stack = [fh]
            while stack:
                group = stack.pop()
                for name in group:
                    link = group.get(name, getlink=True)
                    where = f"{group.name.rstrip('/')}/{name}"
                    if isinstance(link, h5py.ExternalLink):
                        raise PersistenceError(
                            f"the posterior's {where!r} is an external link to another file "
                            f"({link.filename[:60]!r}); refused"
                        )
                    if isinstance(link, h5py.SoftLink):
                        continue  # a name for an object reached through its hard link
                    obj = group.get(name)
                    address = h5py.h5o.get_info(obj.id).addr
                    if address in seen:
                        continue
                    seen.add(address)
                    if isinstance(obj, h5py.Group):
                        stack.append(obj)
                    elif isinstance(obj, h5py.Dataset):
                        left = None if max_bytes is None else max_bytes - total
                        total += _dataset_bytes(obj, where, left)
                    if max_bytes is not None and total > max_bytes:
                        raise PersistenceError(
                            f"the posterior's datasets would take more than {max_bytes} "
                            "bytes once read; refused"
                        )
    except PersistenceError:
        raise
    except Exception as err:  # h5py raises OSError, KeyError, ValueError, RuntimeError ...
        raise PersistenceError(f"the posterior is not a readable HDF5 file ({err})") from None
    return total


def _dataset_bytes(dataset: Any, where: str, left: int | None = None) -> int:
    """The bytes a dataset takes once read; refuses data kept in other files.

    Variable-length text (level names) is counted twice over: as the Python
    objects h5py reads, and as the fixed-width text array xarray decodes it
    into, every entry as wide as the longest (4 bytes a character). Its
    entries are read only when the objects alone fit in ``left`` bytes.
    """
    import h5py

    plist = dataset.id.get_create_plist()
    if plist.get_layout() == h5py.h5d.VIRTUAL:
        raise PersistenceError(
            f"the posterior's dataset {where!r} is a virtual dataset (data from other "
            "files); refused"
        )
    if plist.get_external_count() > 0:
        name = plist.get_external(0)[0].decode("utf-8", "replace")
        raise PersistenceError(
            f"the posterior's dataset {where!r} keeps its data in the external file "
            f"{name[:60]!r}; refused"
        )
    n = math.prod(dataset.shape or ())
    text = h5py.check_string_dtype(dataset.dtype)
    if text is None or text.length is not None:
        return n * dataset.dtype.itemsize
    objects = n * _TEXT_OBJECT_BYTES
    if n == 0 or (left is not None and objects > left):
        return objects
    # UTF-8 bytes are at least as many as characters: an upper bound on the width
    longest = max(len(value) for value in np.asarray(dataset[()], dtype=object).ravel())
    return objects + n * longest * 4
