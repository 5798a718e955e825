"""Save and load fitted estimators without pickle.

A saved estimator is one zip archive (by convention with the extension
``.skcodex``) holding

``metadata.json``
    The format name and version, the skcodex version that wrote the file, the
    estimator's class name, its constructor parameters and its fitted
    attributes as tagged JSON, and the SHA-256 digest and size of every other
    member.
``arrays.npz``
    Every numeric array among the fitted attributes, written by NumPy and read
    back with ``allow_pickle=False``.
``<attribute>.nc``
    Each `arviz.InferenceData` attribute (the posterior of
    `BayesianMatchupClassifier`) as NetCDF-4, written by ArviZ through h5netcdf.

Loading executes no code from the file: only the estimator classes and value
types of a fixed whitelist are rebuilt, NumPy refuses pickled arrays, and
NetCDF holds data only. A file of another format version, or one whose
members do not match their recorded digests (corrupted or truncated), is
refused with a `PersistenceError` that says why.

Examples
--------
>>> import tempfile, pathlib
>>> import skcodex
>>> from skcodex import EloClassifier
>>> from skcodex.datasets import make_matches
>>> data = make_matches(n_players=10, n_matches=60, random_state=0)
>>> model = EloClassifier().fit(data.X, data.y)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "elo.skcodex"
>>> _ = model.save(path)
>>> again = skcodex.load(path)
>>> bool((again.predict_proba(data.X) == model.predict_proba(data.X)).all())
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import platform
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from skcodex.codex import Catalogue, Deck

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "SUFFIX",
    "PersistenceError",
    "PersistenceMixin",
    "load",
    "save",
]

#: Written into every file; a file without it is not a saved skcodex estimator.
FORMAT_NAME = "skcodex-model"
#: The version of the layout described in the module docstring. A change that
#: older code cannot read raises it; `load` refuses files of any other version.
FORMAT_VERSION = 1
#: The conventional file extension.
SUFFIX = ".skcodex"

_METADATA = "metadata.json"
_ARRAYS = "arrays.npz"
_TAG = "__skcodex__"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member dates: equal models give equal files

#: The estimators `load` can rebuild, and the module each lives in. The class
#: name read from a file only selects an entry here; nothing else is imported.
_ESTIMATORS = {
    "BayesianMatchupClassifier": "skcodex.classifier",
    "Glicko2Classifier": "skcodex.ratings",
    "EloClassifier": "skcodex.ratings",
    "MatchupEncoder": "skcodex.preprocessing",
}

#: The fitted attributes each estimator must have, checked on save and on load.
#: Every other instance attribute is saved too, so nothing is silently dropped.
_REQUIRED_STATE = {
    "BayesianMatchupClassifier": (
        "classes_",
        "idata_",
        "effect_draws_",
        "spread_draws_",
        "vocabulary_",
        "layout_",
        "_unseen_seed",
    ),
    "Glicko2Classifier": ("classes_", "ratings_", "_players", "_mu", "_phi2"),
    "EloClassifier": ("classes_", "ratings_", "_players", "_rating"),
    "MatchupEncoder": ("vocabulary_", "layout_"),
}

#: Value classes rebuilt from their dataclass fields, by name.
_DATACLASSES = {
    "Vocabulary": "skcodex.data",
    "Layout": "skcodex.model",
    "ModelOptions": "skcodex.model",
    "SpreadPriors": "skcodex.model",
    "PlainCatalogue": "skcodex.codex.plain",
}

# Pandas dtypes a saved column or index may have (others would not round trip exactly).
_PANDAS_DTYPES = ("object", "str", "string", "bool", "category")


class PersistenceError(ValueError):
    """An estimator that cannot be saved, or a file that cannot be loaded; the message says why."""


class PersistenceMixin:
    """Gives an estimator a ``save(path)`` method; `skcodex.load` reads the file back."""

    def save(self, path: str | os.PathLike) -> Path:
        """Write the fitted estimator to one file, without pickle.

        Parameters
        ----------
        path : str or path-like
            Where to write; ``.skcodex`` is the conventional extension. An
            existing file is replaced (atomically: a failed save leaves it as
            it was).

        Returns
        -------
        pathlib.Path
            The file written. Read it back with `skcodex.load`.
        """
        return save(self, path)


# -- encoding values ---------------------------------------------------------------------


class _Writer:
    """Turns attribute values into tagged JSON, collecting arrays and posteriors on the side."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.netcdf: dict[str, Any] = {}

    def array(self, arr: np.ndarray, where: str) -> dict:
        if arr.dtype.kind in "biufcMmU":
            key = f"a{len(self.arrays)}"
            self.arrays[key] = np.ascontiguousarray(arr)
            return {_TAG: "ndarray", "key": key}
        if arr.dtype.kind == "O":
            items = [self.encode(v, f"{where}[...]") for v in arr.ravel(order="C").tolist()]
            return {_TAG: "object_array", "shape": list(arr.shape), "items": items}
        raise PersistenceError(
            f"cannot save {where}: arrays of dtype {arr.dtype} are not supported"
        )

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if type(value) is int:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {_TAG: "float", "value": repr(value)}
        if isinstance(value, np.generic):
            return self._scalar(value, where)
        if type(value) is list:
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if type(value) is tuple:
            return {_TAG: "tuple", "items": [self.encode(v, where) for v in value]}
        if type(value) in (dict, MappingProxyType):
            items = [
                [self.encode(k, where), self.encode(v, f"{where}[{k!r}]")] for k, v in value.items()
            ]
            return {_TAG: "dict", "items": items}
        if type(value) is np.ndarray:
            return self.array(value, where)
        if isinstance(value, pd.Timestamp) or value is pd.NaT:
            return self._timestamp(value)
        if isinstance(value, pd.Timedelta):
            return {_TAG: "timedelta", "value": int(value.value), "unit": value.unit}
        if isinstance(value, pd.Index):
            return self._index(value, where)
        if isinstance(value, pd.Series):
            return {
                _TAG: "series",
                "name": self.encode(value.name, where),
                "index": self._index(value.index, where),
                "column": self._column(value, where),
            }
        if isinstance(value, pd.DataFrame):
            if value.columns.duplicated().any():
                raise PersistenceError(f"cannot save {where}: its columns are not unique")
            return {
                _TAG: "frame",
                "columns": self._index(value.columns, where),
                "index": self._index(value.index, where),
                "data": [self._column(value[c], f"{where}[{c!r}]") for c in value.columns],
                "attrs": self.encode(dict(value.attrs), f"{where}.attrs"),
            }
        if type(value) is Catalogue:
            return {
                _TAG: "Catalogue",
                "spec_colours": [[s, c] for s, c in value.spec_colours.items()],
                "starters": list(value.starters),
                "nicknames": [
                    [name, deck.starter, list(deck.specs)] for name, deck in value.nicknames.items()
                ],
                "specs_per_deck": int(value.specs_per_deck),
            }
        if type(value) is Deck:
            return {_TAG: "Deck", "starter": value.starter, "specs": list(value.specs)}
        if type(value) is np.random.RandomState:
            name, keys, pos, has_gauss, cached = value.get_state(legacy=True)
            return {
                _TAG: "RandomState",
                "state": [name, self.array(keys, where), pos, has_gauss, cached],
            }
        if dataclasses.is_dataclass(value) and type(value).__name__ in _DATACLASSES:
            cls = type(value)
            if cls.__module__ != _DATACLASSES[cls.__name__]:
                raise PersistenceError(
                    f"cannot save {where}: unknown class {cls.__module__}.{cls.__name__}"
                )
            fields = {
                f.name: self.encode(getattr(value, f.name), f"{where}.{f.name}")
                for f in dataclasses.fields(value)
                if f.init
            }
            return {_TAG: "dataclass", "class": cls.__name__, "fields": fields}
        if type(value).__name__ == "InferenceData":
            key = f"{len(self.netcdf)}_{where.rsplit('.', 1)[-1]}.nc"
            self.netcdf[key] = value
            return {_TAG: "InferenceData", "member": key}
        raise PersistenceError(
            f"cannot save {where}: values of type {type(value).__module__}.{type(value).__name__} "
            "are not supported by the skcodex file format"
        )

    def _scalar(self, value: np.generic, where: str) -> dict:
        kind = value.dtype.kind
        if kind in "biuf":
            return {
                _TAG: "scalar",
                "dtype": value.dtype.str,
                "value": self.encode(value.item(), where),
            }
        if kind in "Mm":
            return {_TAG: "scalar", "dtype": value.dtype.str, "value": int(value.view(np.int64))}
        if kind == "U":
            return {_TAG: "scalar", "dtype": value.dtype.str, "value": str(value)}
        raise PersistenceError(
            f"cannot save {where}: NumPy scalars of dtype {value.dtype} are not supported"
        )

    def _timestamp(self, value: Any) -> dict:
        if value is pd.NaT:
            return {_TAG: "NaT"}
        tz = None if value.tz is None else str(value.tz)
        return {_TAG: "timestamp", "value": int(value.value), "unit": value.unit, "tz": tz}

    def _dtype(self, dtype: Any, where: str) -> str:
        name = str(dtype)
        if isinstance(dtype, np.dtype) and dtype.kind in "biufcMmO":
            return name
        if name in _PANDAS_DTYPES or isinstance(dtype, pd.DatetimeTZDtype):
            return name
        raise PersistenceError(f"cannot save {where}: pandas dtype {name!r} is not supported")

    def _index(self, index: pd.Index, where: str) -> dict:
        name = self.encode(index.name, where)
        if isinstance(index, pd.MultiIndex):
            raise PersistenceError(f"cannot save {where}: a MultiIndex is not supported")
        if type(index) is pd.RangeIndex:
            return {
                _TAG: "range_index",
                "start": int(index.start),
                "stop": int(index.stop),
                "step": int(index.step),
                "name": name,
            }
        return {
            _TAG: "index",
            "dtype": self._dtype(index.dtype, where),
            "values": self._values(index.to_numpy(), where),
            "name": name,
        }

    def _column(self, col: pd.Series, where: str) -> dict:
        return {
            "dtype": self._dtype(col.dtype, where),
            "values": self._values(col.to_numpy(), where),
        }

    def _values(self, values: np.ndarray, where: str) -> dict:
        if values.dtype.kind == "O":
            values = np.asarray(values, dtype=object)
        return self.array(values, where)


class _Reader:
    """The inverse of `_Writer`, over the members of an opened file."""

    def __init__(self, arrays: Any, netcdf: Callable[[str], Any]) -> None:
        self.arrays = arrays
        self.netcdf = netcdf

    def decode(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, list):
            return [self.decode(v) for v in obj]
        if not isinstance(obj, dict) or _TAG not in obj:
            raise PersistenceError(f"unrecognised value in the metadata: {str(obj)[:80]}")
        tag = obj[_TAG]
        method = getattr(self, f"_read_{tag}", None)
        if method is None:
            raise PersistenceError(f"unrecognised value type {str(tag)[:40]!r} in the metadata")
        return method(obj)

    def _read_float(self, obj: dict) -> float:
        text = obj["value"]
        if text not in ("nan", "inf", "-inf"):
            raise PersistenceError(f"malformed float {str(text)[:40]!r} in the metadata")
        return float(text)

    def _read_tuple(self, obj: dict) -> tuple:
        return tuple(self.decode(v) for v in obj["items"])

    def _read_dict(self, obj: dict) -> dict:
        return {self.decode(k): self.decode(v) for k, v in obj["items"]}

    def _read_scalar(self, obj: dict) -> np.generic:
        dtype = np.dtype(str(obj["dtype"]))
        if dtype.kind in "biuf":
            return dtype.type(self.decode(obj["value"]))
        if dtype.kind in "Mm":
            return np.int64(obj["value"]).view(dtype)
        if dtype.kind == "U":
            return np.str_(obj["value"])
        raise PersistenceError(f"unsupported scalar dtype {dtype} in the metadata")

    def _read_ndarray(self, obj: dict) -> np.ndarray:
        key = str(obj["key"])
        if key not in self.arrays:
            raise PersistenceError(f"the array {key!r} named in the metadata is missing")
        return self.arrays[key]

    def _read_object_array(self, obj: dict) -> np.ndarray:
        items = [self.decode(v) for v in obj["items"]]
        out = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):  # element by element: items may be sequences
            out[i] = item
        return out.reshape([int(n) for n in obj["shape"]])

    def _read_NaT(self, obj: dict) -> Any:
        return pd.NaT

    def _read_timestamp(self, obj: dict) -> pd.Timestamp:
        value = pd.Timestamp(int(obj["value"]), unit="ns", tz="UTC" if obj["tz"] else None)
        if obj["tz"]:
            value = value.tz_convert(str(obj["tz"]))
        return value.as_unit(str(obj["unit"]))

    def _read_timedelta(self, obj: dict) -> pd.Timedelta:
        return pd.Timedelta(int(obj["value"]), unit="ns").as_unit(str(obj["unit"]))

    def _dtype(self, name: str) -> Any:
        name = str(name)
        if name in _PANDAS_DTYPES:
            return name
        try:
            dtype = pd.api.types.pandas_dtype(name)
        except TypeError:
            raise PersistenceError(f"unsupported dtype {name[:40]!r} in the metadata") from None
        if isinstance(dtype, pd.DatetimeTZDtype) or (
            isinstance(dtype, np.dtype) and dtype.kind in "biufcMmO"
        ):
            return dtype
        raise PersistenceError(f"unsupported dtype {name[:40]!r} in the metadata")

    def _read_range_index(self, obj: dict) -> pd.RangeIndex:
        return pd.RangeIndex(
            int(obj["start"]), int(obj["stop"]), int(obj["step"]), name=self.decode(obj["name"])
        )

    def _read_index(self, obj: dict) -> pd.Index:
        values = self.decode(obj["values"])
        dtype = self._dtype(obj["dtype"])
        if str(dtype) == "object":
            return pd.Index(values, dtype=object, name=self.decode(obj["name"]))
        return pd.Index(values, name=self.decode(obj["name"])).astype(dtype)

    def _series(self, column: dict, name: Any) -> pd.Series:
        values = self.decode(column["values"])
        dtype = self._dtype(column["dtype"])
        if str(dtype) == "object":
            return pd.Series(values, name=name, dtype=object)
        return pd.Series(values, name=name).astype(dtype)

    def _read_series(self, obj: dict) -> pd.Series:
        out = self._series(obj["column"], self.decode(obj["name"]))
        out.index = self.decode(obj["index"])
        return out

    def _read_frame(self, obj: dict) -> pd.DataFrame:
        columns = self.decode(obj["columns"])
        index = self.decode(obj["index"])
        data = [self._series(col, i) for i, col in enumerate(obj["data"])]
        if len(data) != len(columns):
            raise PersistenceError("a table in the metadata has mismatched columns")
        frame = pd.concat(data, axis=1) if data else pd.DataFrame(index=range(len(index)))
        frame.columns = columns
        frame.index = index
        frame.attrs.update(self.decode(obj["attrs"]))
        return frame

    def _read_Catalogue(self, obj: dict) -> Any:
        return Catalogue(
            {str(s): str(c) for s, c in obj["spec_colours"]},
            tuple(str(s) for s in obj["starters"]),
            {str(n): Deck(str(st), [str(s) for s in specs]) for n, st, specs in obj["nicknames"]},
            int(obj["specs_per_deck"]),
        )

    def _read_Deck(self, obj: dict) -> Any:
        return Deck(str(obj["starter"]), [str(s) for s in obj["specs"]])

    def _read_RandomState(self, obj: dict) -> np.random.RandomState:
        name, keys, pos, has_gauss, cached = obj["state"]
        rng = np.random.RandomState()
        rng.set_state((str(name), self.decode(keys), int(pos), int(has_gauss), float(cached)))
        return rng

    def _read_dataclass(self, obj: dict) -> Any:
        name = str(obj["class"])
        if name not in _DATACLASSES:
            raise PersistenceError(f"unknown value class {name[:40]!r} in the metadata")
        cls = getattr(import_module(_DATACLASSES[name]), name)
        fields = {str(k): self.decode(v) for k, v in obj["fields"].items()}
        return cls(**fields)

    def _read_InferenceData(self, obj: dict) -> Any:
        return self.netcdf(str(obj["member"]))


# -- the file ----------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    import sklearn

    out = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scikit-learn": sklearn.__version__,
    }
    for name in ("arviz", "xarray", "h5netcdf", "pymc"):
        try:
            out[name] = import_module(name).__version__
        except ImportError:
            pass
    return out


def _estimator_name(estimator: Any) -> str:
    name = type(estimator).__name__
    if name not in _ESTIMATORS or type(estimator).__module__.split(".")[0] != "skcodex":
        raise PersistenceError(
            f"cannot save a {type(estimator).__module__}.{name}: the skcodex file format holds "
            f"{', '.join(sorted(_ESTIMATORS))}; use joblib or pickle for other objects"
        )
    return name


def _missing_state(name: str, state: dict) -> list[str]:
    return [attr for attr in _REQUIRED_STATE[name] if attr not in state]


def _netcdf_bytes(idata: Any) -> bytes:
    with tempfile.TemporaryDirectory(prefix="skcodex-") as folder:
        path = os.path.join(folder, "posterior.nc")
        idata.to_netcdf(path, engine="h5netcdf")
        with open(path, "rb") as fh:
            return fh.read()


def _netcdf_read(data: bytes, member: str) -> Any:
    import arviz as az

    with tempfile.TemporaryDirectory(prefix="skcodex-") as folder:
        path = os.path.join(folder, "posterior.nc")
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            with az.rc_context({"data.load": "eager"}):
                return az.from_netcdf(path, engine="h5netcdf")
        except (OSError, ValueError, KeyError) as err:
            raise PersistenceError(f"the posterior {member} cannot be read: {err}") from None


def save(estimator: Any, path: str | os.PathLike) -> Path:
    """Write a fitted skcodex estimator to one file, without pickle.

    Parameters
    ----------
    estimator : BayesianMatchupClassifier, Glicko2Classifier, EloClassifier or MatchupEncoder
        A fitted estimator.
    path : str or path-like
        Where to write (``.skcodex`` is the conventional extension). An
        existing file is replaced atomically.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator has not been fitted.
    PersistenceError
        If the estimator is not one of the supported classes or holds a value
        the format cannot represent.
    """
    from sklearn.exceptions import NotFittedError

    import skcodex

    name = _estimator_name(estimator)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    params = estimator.get_params(deep=False)
    state = {k: v for k, v in vars(estimator).items() if k not in params}
    missing = _missing_state(name, state)
    if missing:
        raise NotFittedError(
            f"this {name} is not fitted (it has no {', '.join(missing)}); fit it before saving"
        )
    writer = _Writer()
    meta: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "skcodex_version": skcodex.__version__,
        "library_versions": _versions(),
        "estimator": name,
        "params": {k: writer.encode(v, f"{name}.{k}") for k, v in params.items()},
        "state": {k: writer.encode(v, f"{name}.{k}") for k, v in state.items()},
    }
    members: dict[str, bytes] = {}
    if writer.arrays:
        buffer = io.BytesIO()
        np.savez(buffer, **writer.arrays)
        members[_ARRAYS] = buffer.getvalue()
    for member, idata in writer.netcdf.items():
        members[member] = _netcdf_bytes(idata)
    meta["members"] = {
        m: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        for m, data in members.items()
    }
    text = json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False).encode("utf-8")

    target = Path(path)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            _write_member(archive, _METADATA, text, zipfile.ZIP_DEFLATED)
            for member, data in members.items():
                method = zipfile.ZIP_STORED if member.endswith(".nc") else zipfile.ZIP_DEFLATED
                _write_member(archive, member, data, method)
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    return target


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes, method: int) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = method
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def _read_member(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    try:
        return archive.read(name)
    except KeyError:
        raise PersistenceError(
            f"{where} is not a saved skcodex estimator: it has no {name}"
        ) from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as err:
        raise PersistenceError(
            f"{where} is corrupted or truncated: its member {name} cannot be read ({err})"
        ) from None


def _metadata(archive: zipfile.ZipFile, where: str) -> dict:
    raw = _read_member(archive, _METADATA, where)
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise PersistenceError(
            f"{where} is corrupted: its metadata is not valid JSON ({err})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise PersistenceError(f"{where} is not a saved skcodex estimator (unknown format)")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        import skcodex

        by = meta.get("skcodex_version", "an unknown version")
        raise PersistenceError(
            f"{where} is in skcodex file format version {str(version)[:20]} (written by skcodex "
            f"{str(by)[:20]}), but this skcodex {skcodex.__version__} reads format version "
            f"{FORMAT_VERSION} only; load it with the skcodex version that wrote it, or refit"
        )
    return meta


def load(path: str | os.PathLike) -> Any:
    """Read an estimator written by ``estimator.save(path)`` (or `save`).

    Loading executes no code from the file: the estimator class is chosen from
    a fixed list, arrays are read with ``allow_pickle=False`` and the
    posterior is plain NetCDF.

    Parameters
    ----------
    path : str or path-like
        The file written by ``save``.

    Returns
    -------
    estimator
        The fitted estimator; its ``predict_proba`` gives bit-for-bit the
        probabilities of the one that was saved.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    PersistenceError
        If the file is not a saved skcodex estimator, is of another format
        version, or is corrupted or truncated.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    where = os.fspath(path)
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "no saved estimator at this path", where)
    if p.is_dir():
        raise PersistenceError(f"{where} is a folder, not a saved skcodex estimator")
    try:
        archive = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, EOFError, ValueError) as err:
        raise PersistenceError(
            f"{where} is not a saved skcodex estimator, or it is truncated or corrupted ({err})"
        ) from None
    with archive:
        meta = _metadata(archive, where)
        listed = meta.get("members")
        if not isinstance(listed, dict):
            raise PersistenceError(f"{where} is corrupted: its metadata lists no members")
        present = set(archive.namelist()) - {_METADATA}
        if present != set(listed):
            extra, lost = sorted(present - set(listed)), sorted(set(listed) - present)
            raise PersistenceError(
                f"{where} is corrupted or was altered: "
                + (f"missing {', '.join(lost)}" if lost else f"unexpected {', '.join(extra)}")
            )
        blobs = {}
        for member, record in listed.items():
            data = _read_member(archive, member, where)
            if (
                not isinstance(record, dict)
                or len(data) != record.get("bytes")
                or hashlib.sha256(data).hexdigest() != record.get("sha256")
            ):
                raise PersistenceError(
                    f"{where} is corrupted or truncated: the checksum of {member} does not match"
                )
            blobs[member] = data

    name = meta.get("estimator")
    if name not in _ESTIMATORS:
        raise PersistenceError(f"{where} holds an unknown estimator class {str(name)[:60]!r}")
    arrays: Any = {}
    if _ARRAYS in blobs:
        try:
            with np.load(io.BytesIO(blobs[_ARRAYS]), allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
        except (ValueError, OSError, zipfile.BadZipFile, zlib.error) as err:
            raise PersistenceError(f"{where}: the arrays cannot be read ({err})") from None

    def netcdf(member: str) -> Any:
        if member not in blobs or not member.endswith(".nc"):
            raise PersistenceError(f"{where}: the posterior {member[:60]!r} is missing")
        return _netcdf_read(blobs[member], member)

    reader = _Reader(arrays, netcdf)
    try:
        params = {str(k): reader.decode(v) for k, v in meta["params"].items()}
        state = {str(k): reader.decode(v) for k, v in meta["state"].items()}
    except PersistenceError as err:
        raise PersistenceError(f"{where}: {err}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise PersistenceError(
            f"{where} has malformed metadata ({type(err).__name__}: {err})"
        ) from None
    missing = _missing_state(name, state)
    if missing:
        raise PersistenceError(f"{where} lacks the fitted attribute(s) {', '.join(missing)}")

    cls = getattr(import_module(_ESTIMATORS[name]), name)
    try:
        estimator = cls(**params)
    except TypeError as err:
        raise PersistenceError(
            f"{where} sets parameters this skcodex's {name} does not have ({err})"
        ) from None
    for key, value in state.items():
        setattr(estimator, key, value)
    return estimator
