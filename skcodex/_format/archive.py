"""The skcodex file: a zip archive of named members, a manifest of their digests, a signature.

``manifest.json``
    The format name and version and the SHA-256 digest and size of every
    other member, ``metadata.json`` included.
``metadata.json``
    The skcodex version that wrote the file, the estimator's class name, its
    constructor parameters and its fitted attributes as tagged JSON
    (`skcodex._format.state_codec`).
``arrays.npz``
    Every numeric array among the fitted attributes, written by NumPy
    (uncompressed) and read back without pickle.
``<n>_<attribute>.nc``
    The posterior of `BayesianMatchupClassifier` (``idata_``: an
    `arviz.InferenceData` under ArviZ 0.x, an `xarray.DataTree` under 1.x) as
    NetCDF-4 (HDF5), one netCDF group per ArviZ group, without the groups
    derived from the others (`skcodex._format.posterior_file`). A file written under
    either ArviZ line loads under the other.
``signature``
    Only in files written with a key: the HMAC-SHA256 of ``manifest.json``.

`write_archive` writes the members atomically; `read_archive` reads them back
from bytes someone else may have written, checking before it parses: only the
member names of the format, none encrypted, the JSON members at most
`MAX_JSON_BYTES` once inflated, every other member stored uncompressed (its
size in the file is its size in memory), the signature when a key is given,
and every member's size and digest against the manifest. `zipfile` reads a
member no further than its declared size, then checks its CRC; reading it in
small pieces keeps a member that lies about its size from inflating past that
size in memory first. The digests detect
damage; only the keyed signature shows who wrote a file.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import uuid
import zipfile
from pathlib import Path
from typing import Any

from skcodex._format.safe_files import PersistenceError, parse_json, stored

__all__ = [
    "ARRAYS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_JSON_BYTES",
    "METADATA",
    "key_bytes",
    "read_archive",
    "write_archive",
]

#: Written into every file; a file without it is not a saved skcodex estimator.
FORMAT_NAME = "skcodex-model"
#: The version of the layout described above. A change that
#: older code cannot read raises it; `read_archive` refuses files of any other
#: version. Version 2 added the manifest (covering the metadata too), the
#: optional signature and uncompressed numeric members.
FORMAT_VERSION = 2
#: The largest size ``metadata.json`` and ``manifest.json`` may inflate to.
MAX_JSON_BYTES = 64 * 1024**2

MANIFEST = "manifest.json"
METADATA = "metadata.json"
ARRAYS = "arrays.npz"
SIGNATURE = "signature"
_NETCDF = re.compile(r"[0-9]{1,3}_[A-Za-z_][A-Za-z0-9_]{0,60}\.nc")
_MAX_MEMBERS = 32
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member dates: equal models give equal files


def key_bytes(key: Any) -> bytes | None:
    """The signing key as bytes (``None`` for no key); `TypeError` for anything else."""
    if key is None:
        return None
    if isinstance(key, str):
        try:
            key = key.encode("utf-8")
        except UnicodeEncodeError:
            raise TypeError(
                "key must be non-empty bytes or str (the secret the file is signed with); "
                "this str is not valid Unicode (it holds a lone surrogate)"
            ) from None
    if not isinstance(key, (bytes, bytearray)) or len(key) == 0:
        raise TypeError("key must be non-empty bytes or str (the secret the file is signed with)")
    return bytes(key)


def _sign(key: bytes, manifest: bytes) -> bytes:
    return hmac.new(key, manifest, hashlib.sha256).hexdigest().encode("ascii")


def write_archive(path: str | os.PathLike, members: dict[str, bytes], key: bytes | None) -> Path:
    """Write members and their manifest (signed with ``key`` if given) atomically to ``path``.

    Parameters
    ----------
    path : str or path-like
        Replaced atomically: a failed write leaves an existing file as it was,
        and concurrent writes to one path all succeed, the last one winning.
    members : dict of str to bytes
        ``metadata.json`` (written compressed) and the numeric members
        (stored as they are).
    key : bytes, optional
        The secret key of `key_bytes`.

    Returns
    -------
    pathlib.Path
    """
    manifest = json.dumps(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "members": {
                m: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                for m, data in members.items()
            },
        },
        indent=1,
    ).encode()
    head = {MANIFEST: manifest} if key is None else {MANIFEST: manifest, SIGNATURE: None}
    target = Path(path)
    # A name of its own for every write, in the target's folder, so that concurrent writes
    # never share a temporary file and os.replace stays atomic (same file system).
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}.partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            for name, data in {**head, **members}.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.compress_type = (
                    zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED
                )
                info.external_attr = 0o644 << 16
                archive.writestr(info, _sign(key, manifest) if name == SIGNATURE else data)
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    return target


def _check_members(infos: list[zipfile.ZipInfo]) -> None:
    names = [i.filename for i in infos]
    if len(names) > _MAX_MEMBERS:
        raise PersistenceError(f"it has {len(names)} members; a saved estimator has a few")
    if len(set(names)) != len(names):
        raise PersistenceError("it holds a member name twice")
    for info in infos:
        name = info.filename
        if name not in (MANIFEST, METADATA, ARRAYS, SIGNATURE) and not _NETCDF.fullmatch(name):
            raise PersistenceError(f"it holds an unexpected member {name[:60]!r}")
        if info.flag_bits & 0x1:
            raise PersistenceError(f"its member {name} is encrypted")
        if name not in (MANIFEST, METADATA):
            if not stored(info):
                raise PersistenceError(f"its member {name} is compressed; skcodex stores it as is")
        elif info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise PersistenceError(f"its member {name} uses an unsupported compression")
        elif info.file_size > MAX_JSON_BYTES:
            raise PersistenceError(
                f"its member {name} claims {info.file_size} bytes, more than {MAX_JSON_BYTES}"
            )


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, inflated at most 1 MiB at a time (see the module's docstring)."""
    with archive.open(info) as fh:
        return b"".join(iter(lambda: fh.read(1 << 20), b""))


def _known(document: Any) -> dict:
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise PersistenceError("it is not a saved skcodex estimator (unknown format)")
    return document


def _manifest(archive: zipfile.ZipFile, infos: dict, key: bytes | None, reader: str) -> dict:
    if MANIFEST not in infos:
        if METADATA in infos:
            raise PersistenceError(
                "it has no manifest: it was written in skcodex file format version 1, which "
                f"this skcodex (format version {FORMAT_VERSION}) does not read; refit and save "
                "again"
            )
        raise PersistenceError("it is not a saved skcodex estimator (no manifest)")
    raw = _read(archive, infos[MANIFEST])
    if key is not None:
        if SIGNATURE not in infos:
            raise PersistenceError("it is not signed, but a key was given to check its origin")
        if not hmac.compare_digest(_read(archive, infos[SIGNATURE]), _sign(key, raw)):
            raise PersistenceError(
                "its signature does not match the key: it was not written with this key, "
                "or it was altered since"
            )
    manifest = _known(parse_json(raw, "manifest"))
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise PersistenceError(
            f"it is in skcodex file format version {str(version)[:20]}, but this skcodex "
            f"{reader} reads format version {FORMAT_VERSION} only; load it with "
            "the skcodex version that wrote it, or refit"
        )
    if not isinstance(manifest.get("members"), dict):
        raise PersistenceError("its manifest lists no members")
    return manifest["members"]


def read_archive(raw: bytes, key: bytes | None, *, reader: str) -> tuple[dict, dict[str, bytes]]:
    """The parsed metadata and the checked other members of a file's bytes.

    Parameters
    ----------
    raw : bytes
        The whole file.
    key : bytes, optional
        When given, the file must carry a signature made with it.
    reader : str
        The version of skcodex reading the file, named when the file is of
        another format version.

    Returns
    -------
    metadata : dict
    members : dict of str to bytes
        Every member but the manifest, the signature and the metadata.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except Exception as err:
        raise PersistenceError(
            f"it is not a saved skcodex estimator, or it is truncated or corrupted ({err})"
        ) from None
    with archive:
        _check_members(archive.infolist())
        infos = {i.filename: i for i in archive.infolist()}
        listed = _manifest(archive, infos, key, reader)
        present = set(infos) - {MANIFEST, SIGNATURE}
        if present != set(listed):
            extra, lost = sorted(present - set(listed)), sorted(set(listed) - present)
            raise PersistenceError(
                "it is corrupted or was altered: "
                + (f"missing {', '.join(lost)}" if lost else f"unexpected {', '.join(extra)}")
            )
        blobs: dict[str, bytes] = {}
        for member in sorted(listed):
            record = listed[member]
            if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
                raise PersistenceError(f"it is corrupted: the manifest entry of {member} is wrong")
            if record.get("bytes") != infos[member].file_size:
                raise PersistenceError(
                    f"it is corrupted or truncated: the size of {member} does not match"
                )
            data = _read(archive, infos[member])
            digest = hashlib.sha256(data).hexdigest()
            if len(data) != record["bytes"] or not hmac.compare_digest(digest, record["sha256"]):
                raise PersistenceError(
                    f"it is corrupted or truncated: the checksum of {member} does not match"
                )
            blobs[member] = data
    if METADATA not in blobs:
        raise PersistenceError("it is not a saved skcodex estimator: it has no metadata.json")
    meta = _known(parse_json(blobs.pop(METADATA), "metadata"))
    if meta.get("format_version") != FORMAT_VERSION:
        raise PersistenceError("its metadata and manifest disagree on the format version")
    return meta, blobs
