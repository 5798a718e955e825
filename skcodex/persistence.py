"""Save and load fitted estimators without pickle.

A saved estimator is one zip archive (by convention with the extension
``.skcodex``) holding

``manifest.json``
    The format name and version and the SHA-256 digest and size of every
    other member, ``metadata.json`` included.
``metadata.json``
    The skcodex version that wrote the file, the estimator's class name, its
    constructor parameters and its fitted attributes as tagged JSON.
``arrays.npz``
    Every numeric array among the fitted attributes, written by NumPy
    (uncompressed) and read back without pickle.
``<n>_<attribute>.nc``
    The posterior of `BayesianMatchupClassifier` (``idata_``: an
    `arviz.InferenceData` under ArviZ 0.x, an `xarray.DataTree` under 1.x) as
    NetCDF-4 (HDF5), one netCDF group per ArviZ group, without the groups
    derived from the others (the pointwise log-likelihood is recomputed on
    load). A file written under either ArviZ line loads under the other.
``signature``
    Only in files saved with a ``key``: the HMAC-SHA256 of ``manifest.json``.

What an estimator saves is what its class declares: every estimator class
that can be saved names its fitted attributes in the class attribute
``_persisted_state`` and registers itself with this module by subclassing
`PersistenceMixin`. A file's state must name exactly those attributes, so
nothing in a file can set any other name, such as a method or ``__class__``.
Value classes among the fitted attributes (frozen dataclasses such as
`skcodex.data.Vocabulary`) register themselves with the `value_class`
decorator and are rebuilt from their fields. This module imports none of the
classes it saves.

Loading executes no code from the file and reads it within fixed bounds:

- only a regular file is read (not a device, FIFO or folder), and at most
  ``max_bytes`` of it;
- the archive may hold only the members above; numeric members are stored
  uncompressed, so their size in the file is their size in memory, and the
  JSON members may inflate to at most `MAX_JSON_BYTES`;
- every member's digest is checked before it is parsed;
- every array header is checked against its member's size before an array
  is built, and arrays of Python objects are refused;
- JSON nested deeper than `MAX_JSON_DEPTH` is refused;
- a posterior whose HDF5 datasets use external storage, virtual datasets or
  external links is refused before it is opened (`check_hdf5_self_contained`),
  and so is one whose datasets would inflate past `MAX_POSTERIOR_BYTES` (or
  100 times the member's size, if larger).

Every failure to load is a `PersistenceError` that says why (a missing file
is a `FileNotFoundError`). The digests detect damage (truncation, flipped
bytes, an edited member); they do not show who wrote a file, since anyone
can recompute them. Saving with ``key=`` adds a keyed signature that only a
holder of the key can make, and ``load(path, key=...)`` refuses a file whose
signature does not match (see docs/reliability.md).

Examples
--------
>>> import tempfile, pathlib
>>> import skcodex
>>> from skcodex import EloClassifier
>>> from skcodex.datasets import make_matches
>>> data = make_matches(n_players=10, n_matches=60, random_state=0)
>>> model = EloClassifier().fit(data.X, data.y)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "elo.skcodex"
>>> _ = model.save(path, key=b"our team's secret")
>>> again = skcodex.load(path, key=b"our team's secret")
>>> bool((again.predict_proba(data.X) == model.predict_proba(data.X)).all())
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import io
import json
import math
import os
import platform
import re
import stat
import tempfile
import uuid
import zipfile
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from skcodex import posterior as posterior_io
from skcodex.codex import Catalogue, Deck, PlainCatalogue

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_FILE_BYTES",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_POSTERIOR_BYTES",
    "SUFFIX",
    "PersistenceError",
    "PersistenceMixin",
    "check_hdf5_self_contained",
    "load",
    "read_posterior",
    "save",
    "value_class",
    "write_posterior",
]

#: Written into every file; a file without it is not a saved skcodex estimator.
FORMAT_NAME = "skcodex-model"
#: The version of the layout described in the module docstring. A change that
#: older code cannot read raises it; `load` refuses files of any other version.
#: Version 2 added the manifest (covering the metadata too), the optional
#: signature and uncompressed numeric members.
FORMAT_VERSION = 2
#: The conventional file extension.
SUFFIX = ".skcodex"

#: The largest file `load` reads unless told otherwise (``max_bytes``); it also
#: bounds the memory the posterior's arrays may take once read.
MAX_FILE_BYTES = 2 * 1024**3
#: A posterior's datasets may take this much memory once read, or 100 times the
#: size of its member, whichever is larger (within ``max_bytes``).
MAX_POSTERIOR_BYTES = 256 * 1024**2
#: The largest size ``metadata.json`` and ``manifest.json`` may inflate to.
MAX_JSON_BYTES = 64 * 1024**2
#: The deepest nesting of lists and objects accepted in the JSON members.
MAX_JSON_DEPTH = 64

_MANIFEST = "manifest.json"
_METADATA = "metadata.json"
_ARRAYS = "arrays.npz"
_SIGNATURE = "signature"
_NETCDF = re.compile(r"[0-9]{1,3}_[A-Za-z_][A-Za-z0-9_]{0,60}\.nc")
_NPY = re.compile(r"a[0-9]{1,6}\.npy")
_MAX_MEMBERS = 32
_MAX_ARRAYS = 100_000
_TAG = "__skcodex__"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member dates: equal models give equal files
_CHUNK = 1 << 20

#: The estimator classes that can be saved, filled by `PersistenceMixin` as each
#: class that declares ``_persisted_state`` is defined.
_REGISTRY: dict[str, type] = {}

#: Value classes rebuilt from their dataclass fields, by name; filled by `value_class`.
_VALUE_CLASSES: dict[str, type] = {}

# Posterior groups derived from the others: recomputed on load, not written.
_DERIVED_GROUPS = ("log_likelihood",)

# Pandas dtypes a saved column or index may have (others would not round trip exactly).
_PANDAS_DTYPES = ("object", "str", "string", "bool", "category")


class PersistenceError(ValueError):
    """An estimator that cannot be saved, or a file that cannot be loaded; the message says why."""


def value_class(cls: type) -> type:
    """Class decorator: let instances of a dataclass be saved, rebuilt from their fields.

    Parameters
    ----------
    cls : type
        A dataclass whose ``__init__`` fields hold all of its state.

    Returns
    -------
    type
        ``cls`` itself, now known to `save` and `load` by its name.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    _VALUE_CLASSES[cls.__name__] = cls
    return cls


# The game's value classes live below persistence (skcodex.codex imports nothing of it).
value_class(PlainCatalogue)


class PersistenceMixin:
    """Gives an estimator a ``save(path)`` method; `skcodex.load` reads the file back.

    A subclass that declares ``_persisted_state`` (the names of the fitted
    attributes a saved file holds) can be saved and loaded. The names must be
    plain instance-attribute names: no dunder, nothing the class itself
    defines (a method, property or class attribute). ``_transient_state``
    names instance attributes that are deliberately not saved (caches).
    """

    _persisted_state: ClassVar[tuple[str, ...]] = ()
    _transient_state: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_persisted_state" not in cls.__dict__:
            return
        names = tuple(cls._persisted_state)
        for attr in names:
            if (
                not isinstance(attr, str)
                or not attr.isidentifier()
                or attr.startswith("__")
                or hasattr(cls, attr)
            ):
                raise TypeError(
                    f"{cls.__name__}._persisted_state names {attr!r}, which is not a plain "
                    "instance attribute (a dunder, or a name the class defines)"
                )
        if len(set(names)) != len(names):
            raise TypeError(f"{cls.__name__}._persisted_state names an attribute twice")
        if cls.__module__.split(".")[0] == "skcodex":
            _REGISTRY[cls.__name__] = cls

    def save(self, path: str | os.PathLike, *, key: bytes | str | None = None) -> Path:
        """Write the fitted estimator to one file, without pickle.

        Parameters
        ----------
        path : str or path-like
            Where to write; ``.skcodex`` is the conventional extension. An
            existing file is replaced (atomically: a failed save leaves it as
            it was).
        key : bytes or str, optional
            Sign the file with HMAC-SHA256 under this secret key; read it back
            with ``skcodex.load(path, key=key)`` to check who wrote it.

        Returns
        -------
        pathlib.Path
            The file written. Read it back with `skcodex.load`.
        """
        return save(self, path, key=key)


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
        if _VALUE_CLASSES.get(type(value).__name__) is type(value):
            cls = type(value)
            fields = {
                f.name: self.encode(getattr(value, f.name), f"{where}.{f.name}")
                for f in dataclasses.fields(value)
                if f.init
            }
            return {_TAG: "dataclass", "class": cls.__name__, "fields": fields}
        if type(value).__name__ in ("InferenceData", "DataTree"):
            key = f"{len(self.netcdf)}_{where.rsplit('.', 1)[-1].lstrip('_')}.nc"
            self.netcdf[key] = value
            return {_TAG: "posterior", "member": key}
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
        cls = _VALUE_CLASSES.get(name)
        if cls is None:
            raise PersistenceError(f"unknown value class {name[:40]!r} in the metadata")
        fields = {str(k): self.decode(v) for k, v in obj["fields"].items()}
        return cls(**fields)

    def _read_posterior(self, obj: dict) -> Any:
        return self.netcdf(str(obj["member"]))


# -- the posterior ------------------------------------------------------------------------


def write_posterior(idata: Any) -> bytes:
    """The posterior (an ArviZ `InferenceData` or `DataTree`) as NetCDF-4 bytes.

    Groups derived from the others (the pointwise log-likelihood) are left
    out: the estimator recomputes them on load, so nothing is stored twice.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree

    Returns
    -------
    bytes
        A NetCDF-4 (HDF5) file, read back by `read_posterior`.
    """
    idata = posterior_io.without_groups(idata, _DERIVED_GROUPS)
    with tempfile.TemporaryDirectory(prefix="skcodex-") as folder:
        path = os.path.join(folder, "posterior.nc")
        posterior_io.write_netcdf(idata, path)
        with open(path, "rb") as fh:
            return fh.read()


def read_posterior(path: str | os.PathLike) -> Any:
    """Read a posterior written by `write_posterior` from a checked, self-contained file.

    Parameters
    ----------
    path : str or path-like
        A NetCDF file already passed through `check_hdf5_self_contained`.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        The installed ArviZ line's object, loaded eagerly (the file may be
        removed afterwards), whichever line wrote the file.
    """
    return posterior_io.read_netcdf(os.fspath(path))


def check_hdf5_self_contained(path: str | os.PathLike, max_bytes: int | None = None) -> int:
    """Refuse an HDF5 (NetCDF-4) file that would read data from outside itself.

    HDF5 lets a dataset keep its values in other files (external storage),
    assemble them from datasets of other files (virtual datasets), and lets a
    group link to objects of another file (external links). Opening such a
    file reads whatever local file its author named. This walks every group
    and dataset, without reading any data, and refuses all three.

    Parameters
    ----------
    path : str or path-like
        The HDF5 file.
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
        with h5py.File(os.fspath(path), "r") as fh:
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
                        total += _dataset_bytes(obj, where)
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


def _dataset_bytes(dataset: Any, where: str) -> int:
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
    shape = dataset.shape or ()
    return math.prod(int(n) for n in shape) * int(dataset.dtype.itemsize)


# -- saving -------------------------------------------------------------------------------


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


def _estimator_class(estimator: Any) -> type:
    cls = type(estimator)
    if _REGISTRY.get(cls.__name__) is not cls:
        raise PersistenceError(
            f"cannot save a {cls.__module__}.{cls.__name__}: the skcodex file format holds "
            f"{', '.join(sorted(_REGISTRY))}; use joblib or pickle for other objects"
        )
    return cls


def _key_bytes(key: Any) -> bytes | None:
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)) or len(key) == 0:
        raise TypeError("key must be non-empty bytes or str (the secret the file is signed with)")
    return bytes(key)


def _sign(key: bytes, manifest: bytes) -> bytes:
    return hmac.new(key, manifest, hashlib.sha256).hexdigest().encode("ascii")


def save(estimator: Any, path: str | os.PathLike, *, key: bytes | str | None = None) -> Path:
    """Write a fitted skcodex estimator to one file, without pickle.

    Parameters
    ----------
    estimator : BayesianMatchupClassifier, Glicko2Classifier, EloClassifier or MatchupEncoder
        A fitted estimator.
    path : str or path-like
        Where to write (``.skcodex`` is the conventional extension). An
        existing file is replaced atomically; concurrent saves to one path all
        succeed, and the last one to finish wins.
    key : bytes or str, optional
        Sign the file with HMAC-SHA256 under this secret key, so that
        ``load(path, key=key)`` can check that it was written by a holder of
        the key and not altered since.

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

    cls = _estimator_class(estimator)
    name = cls.__name__
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    secret = _key_bytes(key)
    params = estimator.get_params(deep=False)
    declared = cls._persisted_state
    missing = [attr for attr in declared if attr not in vars(estimator)]
    if missing:
        raise NotFittedError(
            f"this {name} is not fitted (it has no {', '.join(missing)}); fit it before saving"
        )
    extra = sorted(
        k
        for k in vars(estimator)
        if k not in params and k not in declared and k not in cls._transient_state
    )
    if extra:
        raise PersistenceError(
            f"cannot save {name}.{extra[0]}: it is not among the fitted attributes a {name} "
            "saves; such values are not supported by the skcodex file format"
        )
    writer = _Writer()
    meta: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "skcodex_version": skcodex.__version__,
        "library_versions": _versions(),
        "estimator": name,
        "params": {k: writer.encode(v, f"{name}.{k}") for k, v in params.items()},
        "state": {k: writer.encode(getattr(estimator, k), f"{name}.{k}") for k in declared},
    }
    try:
        text = json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False)
        members: dict[str, bytes] = {_METADATA: text.encode("utf-8")}
    except (UnicodeEncodeError, ValueError) as err:
        raise PersistenceError(
            f"cannot save this {name}: it holds text or numbers a file cannot represent ({err})"
        ) from None
    if writer.arrays:
        buffer = io.BytesIO()
        np.savez(buffer, **writer.arrays)
        members[_ARRAYS] = buffer.getvalue()
    for member, posterior in writer.netcdf.items():
        try:
            members[member] = write_posterior(posterior)
        except Exception as err:  # h5py/h5netcdf errors name their own internals
            detail = " ".join(str(err).split())[:160]
            raise PersistenceError(
                f"cannot save the posterior of this {name} as NetCDF ({type(err).__name__}: "
                f"{detail})"
            ) from None
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
    ).encode("utf-8")

    target = Path(path)
    # A name of its own for every save, in the target's folder, so that concurrent saves
    # never share a temporary file and os.replace stays atomic (same file system).
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}.partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            _write_member(archive, _MANIFEST, manifest, zipfile.ZIP_DEFLATED)
            if secret is not None:
                _write_member(archive, _SIGNATURE, _sign(secret, manifest), zipfile.ZIP_STORED)
            for member, data in members.items():
                method = zipfile.ZIP_DEFLATED if member == _METADATA else zipfile.ZIP_STORED
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


# -- loading ------------------------------------------------------------------------------


def _read_regular_file(path: str | os.PathLike, where: str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, read in bounded chunks."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(2, "no saved estimator at this path", where) from None
    except IsADirectoryError:
        raise PersistenceError(f"{where} is a folder, not a saved skcodex estimator") from None
    except OSError as err:
        raise PersistenceError(f"{where} cannot be opened: {err.strerror or err}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise PersistenceError(f"{where} is a folder, not a saved skcodex estimator")
        raise PersistenceError(
            f"{where} is not a regular file (a device, pipe or socket); a saved skcodex "
            "estimator is a regular file"
        )
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if info.st_size > limit:
            raise PersistenceError(
                f"{where} is {info.st_size} bytes, more than the {limit} bytes load reads; "
                "pass max_bytes= to read larger files"
            )
        chunks, size = [], 0
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise PersistenceError(f"{where} grew past {limit} bytes while being read")
            chunks.append(chunk)
    return b"".join(chunks)


def _json(raw: bytes, what: str) -> Any:
    """Parse a JSON member, refusing nesting deeper than `MAX_JSON_DEPTH`."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise PersistenceError(f"its {what} is nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise PersistenceError(f"its {what} is not valid JSON ({err})") from None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise PersistenceError(f"its {what} is nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return value


def _member_names_ok(infos: list[zipfile.ZipInfo]) -> None:
    names = [i.filename for i in infos]
    if len(names) > _MAX_MEMBERS:
        raise PersistenceError(f"it has {len(names)} members; a saved estimator has a few")
    if len(set(names)) != len(names):
        raise PersistenceError("it holds a member name twice")
    for info in infos:
        name = info.filename
        if name not in (_MANIFEST, _METADATA, _ARRAYS, _SIGNATURE) and not _NETCDF.fullmatch(name):
            raise PersistenceError(f"it holds an unexpected member {name[:60]!r}")
        if info.flag_bits & 0x1:
            raise PersistenceError(f"its member {name} is encrypted")
        if name in (_MANIFEST, _METADATA):
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise PersistenceError(f"its member {name} uses an unsupported compression")
            if info.file_size > MAX_JSON_BYTES:
                raise PersistenceError(
                    f"its member {name} claims {info.file_size} bytes, more than {MAX_JSON_BYTES}"
                )
        elif info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise PersistenceError(f"its member {name} is compressed; skcodex stores it as is")


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, read in chunks and never past its declared size."""
    chunks, size = [], 0
    with archive.open(info) as fh:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > info.file_size:
                raise PersistenceError(f"its member {info.filename} inflates past its size")
            chunks.append(chunk)
    return b"".join(chunks)


def _read_arrays(blob: bytes, limit: int) -> dict[str, np.ndarray]:
    """The arrays of ``arrays.npz``; each header is checked before its array is built."""
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(blob)) as npz:
        infos = npz.infolist()
        if len(infos) > _MAX_ARRAYS:
            raise PersistenceError(f"arrays.npz holds {len(infos)} arrays")
        for info in infos:
            if not _NPY.fullmatch(info.filename) or info.filename[:-4] in out:
                raise PersistenceError(f"arrays.npz holds an unexpected {info.filename[:40]!r}")
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                raise PersistenceError(f"arrays.npz: {info.filename} is compressed")
            raw = _read_member(npz, info)
            fh = io.BytesIO(raw)
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
            else:
                raise PersistenceError(f"arrays.npz: {info.filename} has .npy version {version}")
            if dtype.hasobject or dtype.kind not in "biufcMmU" or dtype.fields is not None:
                raise PersistenceError(f"arrays.npz: {info.filename} has dtype {dtype}")
            nbytes = math.prod(int(n) for n in shape) * dtype.itemsize
            if nbytes > limit or nbytes != len(raw) - fh.tell():
                raise PersistenceError(
                    f"arrays.npz: the header of {info.filename} claims {nbytes} bytes of data "
                    f"but the member holds {len(raw) - fh.tell()}"
                )
            flat = np.frombuffer(raw, dtype=dtype, count=math.prod(shape), offset=fh.tell())
            out[info.filename[:-4]] = flat.reshape(shape, order="F" if fortran else "C").copy()
    return out


def _manifest(archive: zipfile.ZipFile, infos: dict, secret: bytes | None) -> dict:
    if _MANIFEST not in infos:
        if _METADATA in infos:
            raise PersistenceError(
                "it has no manifest: it was written in skcodex file format version 1, which "
                f"this skcodex (format version {FORMAT_VERSION}) does not read; refit and save "
                "again"
            )
        raise PersistenceError("it is not a saved skcodex estimator (no manifest)")
    raw = _read_member(archive, infos[_MANIFEST])
    if secret is not None:
        if _SIGNATURE not in infos:
            raise PersistenceError("it is not signed, but a key was given to check its origin")
        signature = _read_member(archive, infos[_SIGNATURE])
        if not hmac.compare_digest(signature, _sign(secret, raw)):
            raise PersistenceError(
                "its signature does not match the key: it was not written with this key, "
                "or it was altered since"
            )
    manifest = _json(raw, "manifest")
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise PersistenceError("it is not a saved skcodex estimator (unknown format)")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        import skcodex

        raise PersistenceError(
            f"it is in skcodex file format version {str(version)[:20]}, but this skcodex "
            f"{skcodex.__version__} reads format version {FORMAT_VERSION} only; load it with "
            "the skcodex version that wrote it, or refit"
        )
    if not isinstance(manifest.get("members"), dict):
        raise PersistenceError("its manifest lists no members")
    return manifest


def _read_all(raw: bytes, secret: bytes | None, limit: int) -> tuple[dict, dict[str, bytes]]:
    """The metadata and the checked members of a saved file's bytes."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except Exception as err:
        raise PersistenceError(
            f"it is not a saved skcodex estimator, or it is truncated or corrupted ({err})"
        ) from None
    with archive:
        infolist = archive.infolist()
        _member_names_ok(infolist)
        infos = {i.filename: i for i in infolist}
        manifest = _manifest(archive, infos, secret)
        listed = manifest["members"]
        present = set(infos) - {_MANIFEST, _SIGNATURE}
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
            data = _read_member(archive, infos[member])
            if len(data) != record["bytes"] or not hmac.compare_digest(
                hashlib.sha256(data).hexdigest(), record["sha256"]
            ):
                raise PersistenceError(
                    f"it is corrupted or truncated: the checksum of {member} does not match"
                )
            blobs[member] = data
    if _METADATA not in blobs:
        raise PersistenceError("it is not a saved skcodex estimator: it has no metadata.json")
    meta = _json(blobs.pop(_METADATA), "metadata")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise PersistenceError("it is not a saved skcodex estimator (unknown format)")
    if meta.get("format_version") != FORMAT_VERSION:
        raise PersistenceError("its metadata and manifest disagree on the format version")
    return meta, blobs


def _estimator_for(name: Any) -> type:
    """The registered estimator class a file names, found through skcodex's public names."""
    import skcodex

    if not isinstance(name, str) or name not in skcodex.__all__:
        raise PersistenceError(f"it holds an unknown estimator class {str(name)[:60]!r}")
    cls = getattr(skcodex, name)
    if _REGISTRY.get(name) is not cls:
        raise PersistenceError(f"it holds an unknown estimator class {name[:60]!r}")
    return cls


def _build(meta: dict, blobs: dict[str, bytes], limit: int) -> Any:
    cls = _estimator_for(meta.get("estimator"))
    name = cls.__name__
    arrays = _read_arrays(blobs[_ARRAYS], limit) if _ARRAYS in blobs else {}

    def netcdf(member: str) -> Any:
        if member not in blobs or not member.endswith(".nc"):
            raise PersistenceError(f"the posterior {member[:60]!r} is missing")
        with tempfile.TemporaryDirectory(prefix="skcodex-") as folder:
            path = os.path.join(folder, "posterior.nc")
            with open(path, "wb") as fh:
                fh.write(blobs[member])
            # compressed HDF5 data may inflate: allow what real posteriors need (they compress
            # less than 3 to 1), not what a few kilobytes of zeros can claim
            budget = min(limit, max(MAX_POSTERIOR_BYTES, 100 * len(blobs[member])))
            check_hdf5_self_contained(path, max_bytes=budget)
            try:
                return read_posterior(path)
            except Exception as err:
                raise PersistenceError(f"the posterior {member} cannot be read: {err}") from None

    params_in, state_in = meta.get("params"), meta.get("state")
    if not isinstance(params_in, dict) or not isinstance(state_in, dict):
        raise PersistenceError("its metadata holds no parameters or no fitted state")
    allowed = set(cls._get_param_names())
    unknown = sorted(set(params_in) - allowed)
    if unknown:
        raise PersistenceError(
            f"it sets parameters this skcodex's {name} does not have ({unknown[0][:40]!r})"
        )
    declared = set(cls._persisted_state)
    unknown = sorted(set(state_in) - declared)
    if unknown:
        raise PersistenceError(
            f"it sets {unknown[0][:40]!r}, which is not a fitted attribute a {name} saves"
        )
    lost = [k for k in cls._persisted_state if k not in state_in]
    if lost:
        raise PersistenceError(f"it lacks the fitted attribute(s) {', '.join(lost)}")
    reader = _Reader(arrays, netcdf)
    params = {k: reader.decode(v) for k, v in params_in.items()}
    state = {k: reader.decode(state_in[k]) for k in cls._persisted_state}
    estimator = cls(**params)
    if hasattr(estimator, "_validate_params"):
        try:
            estimator._validate_params()
        except Exception as err:
            raise PersistenceError(f"it holds an invalid parameter ({err})") from None
    for key in cls._persisted_state:  # names checked against the class's own declaration
        setattr(estimator, key, state[key])
    # What the file leaves out because it is derived (the pointwise log-likelihood).
    restore = getattr(estimator, "_restore_derived", None)
    if restore is not None:
        restore()
    return estimator


def load(
    path: str | os.PathLike,
    *,
    key: bytes | str | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> Any:
    """Read an estimator written by ``estimator.save(path)`` (or `save`).

    Loading executes no code from the file: the estimator class is chosen
    among skcodex's own, the fitted attributes set are those its class
    declares, arrays are read without pickle, and the posterior is plain
    NetCDF checked to read nothing outside the file. The file and every
    member are read within fixed size bounds.

    Parameters
    ----------
    path : str or path-like
        The file written by ``save``; it must be a regular file.
    key : bytes or str, optional
        The secret key the file was signed with (``save(path, key=...)``).
        When given, a file that is unsigned, signed with another key, or
        altered after signing is refused.
    max_bytes : int, default `MAX_FILE_BYTES` (2 GiB)
        The largest file read, and the most memory its arrays may take.

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
        For every other file that cannot be loaded: not a regular file, too
        large, not a saved skcodex estimator, of another format version,
        corrupted, truncated, altered, or not signed with ``key``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise TypeError(f"max_bytes must be a positive int, got {max_bytes!r}")
    secret = _key_bytes(key)
    where = os.fspath(path)
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    try:
        raw = _read_regular_file(path, where, max_bytes)
        meta, blobs = _read_all(raw, secret, max_bytes)
        del raw
        return _build(meta, blobs, max_bytes)
    except PersistenceError as err:
        message = str(err)
        raise PersistenceError(
            message if message.startswith(where) else f"{where}: {message}"
        ) from None
    except FileNotFoundError:
        raise
    except Exception as err:  # anything else a hostile file provokes is still a refusal
        detail = " ".join(str(err).split())[:160]
        raise PersistenceError(
            f"{where} is corrupted or malformed and cannot be loaded "
            f"({type(err).__name__}: {detail})"
        ) from None
