"""Fitted attribute values as tagged JSON, and back, without pickle.

JSON's own values (None, bool, int, finite float, str, list) are written as
they are; every other value is an object with the key ``"__skcodex__"`` naming
its type (tuple, dict, NumPy scalar and array, pandas Index, Series and
DataFrame, timestamps, a legacy `RandomState`, a posterior, and the value
classes `skcodex._format.savable` lists). Numeric arrays go to a side table of arrays
(``arrays.npz`` in a saved file) and posteriors to a side table of NetCDF
members; the JSON names them. Decoding builds only these types: a tag names a
method of `Reader` or a value class of `skcodex._format.savable`, or nothing. The
codec knows no game: the game's values are entries of `skcodex._format.savable`.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from skcodex._compat.posterior import group, group_names
from skcodex._format.archive import ARRAYS, MAX_JSON_BYTES, METADATA
from skcodex._format.posterior_file import posterior_from_bytes, write_posterior
from skcodex._format.safe_files import ARRAY_KINDS, PersistenceError, read_npz
from skcodex._format.savable import CODEC_TAGS, SavableValue, value_entry, value_entry_for

__all__ = ["Reader", "Writer"]

_TAG = "__skcodex__"

# Pandas dtypes a saved column or index may have (others would not round trip exactly).
_PANDAS_DTYPES = ("object", "str", "string", "bool", "category")


class Writer:
    """Turns attribute values into tagged JSON, collecting arrays and posteriors on the side."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.netcdf: dict[str, Any] = {}

    def members(self, document: dict, name: str) -> dict[str, bytes]:
        """The file members of an encoded ``document``: its JSON, arrays and posteriors."""
        try:
            # every float that is not finite is tagged: json never sees a NaN
            out = {METADATA: json.dumps(document, indent=1, ensure_ascii=False).encode()}
        except UnicodeEncodeError as err:
            raise PersistenceError(
                f"cannot save this {name}: it holds text or numbers a file cannot represent ({err})"
            ) from None
        if len(out[METADATA]) > MAX_JSON_BYTES:
            raise PersistenceError(_metadata_too_large(document, len(out[METADATA]), name))
        if self.arrays:
            buffer = io.BytesIO()
            np.savez(buffer, **self.arrays)
            out[ARRAYS] = buffer.getvalue()
        for member, posterior in self.netcdf.items():
            try:
                out[member] = write_posterior(posterior)
            except Exception as err:  # h5py/h5netcdf errors name their own internals
                detail = " ".join(str(err).split())[:160]
                raise PersistenceError(
                    f"cannot save the posterior of this {name} as NetCDF "
                    f"({type(err).__name__}: {detail})"
                ) from None
        return out

    def array(self, arr: np.ndarray, where: str) -> dict:
        if arr.dtype.kind in ARRAY_KINDS:
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
        if type(value) is np.random.RandomState:
            name, keys, pos, has_gauss, cached = value.get_state(legacy=True)
            return {
                _TAG: "RandomState",
                "state": [name, self.array(keys, where), pos, has_gauss, cached],
            }
        listed = value_entry_for(value)
        if listed is not None:
            return self._value(value, *listed, where)
        if type(value).__name__ in ("InferenceData", "DataTree"):
            key = f"{len(self.netcdf)}_{where.rsplit('.', 1)[-1].lstrip('_')}.nc"
            self.netcdf[key] = value
            return {_TAG: "posterior", "member": key}
        raise PersistenceError(
            f"cannot save {where}: values of type {type(value).__module__}.{type(value).__name__} "
            "are not supported by the skcodex file format"
        )

    def _value(self, value: Any, name: str, entry: SavableValue, where: str) -> dict:
        """A value of a class `skcodex._format.savable` lists: its fields, or its own state."""
        if entry.as_fields:
            fields = {
                f.name: self.encode(getattr(value, f.name), f"{where}.{f.name}")
                for f in dataclasses.fields(value)
                if f.init
            }
            return {_TAG: "dataclass", "class": name, "fields": fields}
        state = entry.to_state(value)
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise PersistenceError(
                f"cannot save {where}: {name}'s to_state must return a dict with str keys"
            )
        if _TAG in state:
            raise PersistenceError(f"cannot save {where}: {name}'s state may not use {_TAG!r}")
        return {_TAG: name, **{k: self.encode(v, f"{where}.{k}") for k, v in state.items()}}

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


def _metadata_too_large(document: dict, size: int, name: str) -> str:
    """Why a document's JSON is too large to save, naming its largest fitted attribute."""
    state = document.get("state", {})
    sizes = {k: len(json.dumps(v, ensure_ascii=False).encode()) for k, v in state.items()}
    largest = max(sizes, key=sizes.get) if sizes else None
    where = f" ({largest} alone takes {sizes[largest]:,})" if largest is not None else ""
    return (
        f"cannot save this {name}: its metadata would take {size:,} bytes{where}, more than "
        f"the {MAX_JSON_BYTES:,} (64 MiB) a saved file's metadata may hold; names of players, "
        "periods and decks are stored there, so shorten very long names"
    )


class Reader:
    """The inverse of `Writer`, over the checked members of a file (arrays read at once).

    Everything read shares one memory budget, ``limit`` bytes: the arrays,
    then each posterior, which may be named once (a file naming one member
    again is refused rather than inflated again).
    """

    def __init__(self, blobs: dict[str, bytes], limit: int) -> None:
        self.blobs = blobs
        self.arrays = read_npz(blobs[ARRAYS], limit) if ARRAYS in blobs else {}
        #: What is left of the budget for the posteriors.
        self.limit = limit - sum(a.nbytes for a in self.arrays.values())
        self.posteriors_read: set[str] = set()
        #: The value classes the value being read may hold (None: any), and its name.
        self.held: frozenset[str] | None = None
        self.where = ""

    def decode_held(self, obj: Any, held: frozenset[str] | None, where: str) -> Any:
        """`decode` a parameter's or attribute's value, which may hold only ``held``.

        A value class or posterior outside ``held`` is refused before it is built
        (its constructor never runs).
        """
        self.held, self.where = held, where
        try:
            return self.decode(obj)
        finally:
            self.held, self.where = None, ""

    def _check_held(self, name: str) -> None:
        if self.held is not None and name not in self.held:
            what = "a posterior" if name == "posterior" else f"a {name[:40]}"
            raise PersistenceError(f"its {self.where} holds {what}, which it cannot hold")

    def decode(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, list):
            return [self.decode(v) for v in obj]
        if not isinstance(obj, dict) or _TAG not in obj:
            raise PersistenceError(f"unrecognised value in the metadata: {str(obj)[:80]}")
        tag = obj[_TAG]
        if isinstance(tag, str) and tag in CODEC_TAGS:
            return getattr(self, f"_read_{tag}")(obj)
        entry = value_entry(tag) if isinstance(tag, str) else None
        if entry is None or entry.as_fields:
            raise PersistenceError(f"unrecognised value type {str(tag)[:40]!r} in the metadata")
        self._check_held(tag)
        return entry.from_state({k: self.decode(v) for k, v in obj.items() if k != _TAG})

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

    def _read_RandomState(self, obj: dict) -> np.random.RandomState:
        name, keys, pos, has_gauss, cached = obj["state"]
        rng = np.random.RandomState()
        rng.set_state((str(name), self.decode(keys), int(pos), int(has_gauss), float(cached)))
        return rng

    def _read_dataclass(self, obj: dict) -> Any:
        name = str(obj["class"])
        entry = value_entry(name)
        if entry is None or not entry.as_fields:
            raise PersistenceError(f"unknown value class {name[:40]!r} in the metadata")
        self._check_held(name)
        fields = {str(k): self.decode(v) for k, v in obj["fields"].items()}
        return entry.cls(**fields)

    def _read_posterior(self, obj: dict) -> Any:
        self._check_held("posterior")
        member = str(obj["member"])
        if member not in self.blobs or not member.endswith(".nc"):
            raise PersistenceError(f"the posterior {member[:60]!r} is missing")
        if member in self.posteriors_read:
            raise PersistenceError(
                f"its metadata names the posterior {member} more than once; a saved "
                "estimator names each posterior once"
            )
        self.posteriors_read.add(member)
        if self.limit <= 0:
            raise PersistenceError("its arrays take the whole memory budget of load (max_bytes)")
        value = posterior_from_bytes(self.blobs[member], member, self.limit)
        self.limit -= sum(group(value, g).nbytes for g in group_names(value))
        return value
