"""A posterior as the bytes of one NetCDF-4 file, and back from bytes someone else wrote.

`write_posterior` leaves out the groups derived from the others (the pointwise
log-likelihood, recomputed on load); `posterior_from_bytes` refuses a file that
would read outside itself or inflate past its budget
(`skcodex._format.safe_files.check_hdf5_self_contained`) before `read_posterior` opens it.
"""

from __future__ import annotations

import io
import os
import tempfile
from typing import Any

from skcodex._compat import posterior as posterior_io
from skcodex._format.safe_files import PersistenceError, check_hdf5_self_contained

__all__ = ["MAX_POSTERIOR_BYTES", "posterior_from_bytes", "read_posterior", "write_posterior"]

#: A posterior's datasets may take this much memory once read, or 100 times the
#: size of its member, whichever is larger (within the file's ``max_bytes``).
MAX_POSTERIOR_BYTES = 256 * 1024**2

# Posterior groups derived from the others: recomputed on load, not written.
_DERIVED_GROUPS = ("log_likelihood",)


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
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "posterior.nc")
        posterior_io.write_netcdf(idata, path)
        with open(path, "rb") as fh:
            return fh.read()


def read_posterior(source: str | os.PathLike | bytes) -> Any:
    """Read a posterior written by `write_posterior` from a checked, self-contained file.

    Parameters
    ----------
    source : str, path-like or bytes
        A NetCDF file already passed through `check_hdf5_self_contained`, or
        its bytes (read in memory, without a temporary file).

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        The installed ArviZ line's object, loaded eagerly (the file may be
        removed afterwards), whichever line wrote the file.
    """
    return posterior_io.read_netcdf(source if isinstance(source, bytes) else os.fspath(source))


def posterior_from_bytes(blob: bytes, member: str, limit: int) -> Any:
    """The posterior in ``blob`` (the file member ``member``), checked before it is opened.

    The bytes are read in memory: loading needs no temporary folder.

    Parameters
    ----------
    blob : bytes
        A NetCDF-4 file.
    member : str
        Its name in errors.
    limit : int
        The most bytes its datasets may take once read.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
    """
    # compressed HDF5 data may inflate: allow what real posteriors need (they compress
    # less than 3 to 1), not what a few kilobytes of zeros can claim
    check_hdf5_self_contained(
        io.BytesIO(blob), max_bytes=min(limit, max(MAX_POSTERIOR_BYTES, 100 * len(blob)))
    )
    try:
        return read_posterior(blob)
    except Exception as err:
        raise PersistenceError(f"the posterior {member} cannot be read: {err}") from None
