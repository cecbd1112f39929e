"""Array backends for the simulator: numpy (default), torch (CPU or CUDA), cupy.

The simulation code is written once against the array API standard through ``array_api_compat``;
this module selects the namespace and supplies what the standard leaves out: random numbers.  Each
backend's generator is seeded from a :class:`numpy.random.SeedSequence`, so one integer seed fixes
every sample on every backend (different backends draw different, equally distributed samples).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.errors import InputError
BACKENDS: tuple[str, ...] = ("numpy", "torch", "cupy")


@dataclass(frozen=True)
class Backend:
    """A resolved array backend: its array-API namespace ``xp``, device and float dtype."""

    name: str
    device: str
    xp: Any
    dtype: Any

    # -- conversions -----------------------------------------------------------------------------

    def asarray(self, value) -> Any:
        """``value`` (numpy or Python) as a float array of this backend on its device."""
        if self.name == "numpy":
            return np.asarray(value, dtype=np.float64)
        value = np.array(value, dtype=np.float64)  # a writable copy for torch/cupy
        if self.name == "torch":
            import torch

            return torch.as_tensor(value, dtype=self.dtype, device=self.device)
        import cupy

        with cupy.cuda.Device(_cuda_index(self.device)):
            return cupy.asarray(value)

    def to_numpy(self, array) -> np.ndarray:
        """Copy a backend array to host memory as float64 numpy."""
        if self.name == "numpy":
            return np.asarray(array, dtype=np.float64)
        if self.name == "torch":
            return array.detach().cpu().numpy().astype(np.float64, copy=False)
        return array.get().astype(np.float64, copy=False)

    def kth_smallest(self, values, k: int):
        """The ``k``-th smallest entry (``1 <= k <= n``) of each row of ``values`` (runs, n), as a (runs, 1)
        column: a selection in linear time (the standard has only the full sort), the same value as
        ``sort(values, axis=1)[:, k - 1:k]``."""
        if self.name == "torch":
            import torch

            return torch.kthvalue(values, k, dim=1, keepdim=True).values
        if self.name == "numpy":
            return np.partition(values, k - 1, axis=1)[:, k - 1:k]
        import cupy

        return cupy.partition(values, k - 1, axis=1)[:, k - 1:k]

    # -- random numbers ----------------------------------------------------------------------------

    def generator(self, seed: np.random.SeedSequence) -> "Generator":
        """A random generator of this backend, fully determined by ``seed``."""
        return Generator(self, seed)


class Generator:
    """The few random primitives the simulator needs, on one backend."""

    def __init__(self, backend: Backend, seed: np.random.SeedSequence):
        self.backend = backend
        if backend.name == "numpy":
            self._rng = np.random.Generator(np.random.PCG64(seed))
        elif backend.name == "torch":
            import torch

            self._rng = torch.Generator(device=backend.device)
            self._rng.manual_seed(int(seed.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)))
        else:
            import cupy

            with cupy.cuda.Device(_cuda_index(backend.device)):
                self._rng = cupy.random.default_rng(int(seed.generate_state(1, dtype=np.uint64)[0] >> 1))

    def normal(self, shape: tuple[int, ...]):
        """Standard normal variates of the given shape."""
        b = self.backend
        if b.name == "numpy":
            return self._rng.standard_normal(shape)
        if b.name == "torch":
            import torch

            return torch.randn(shape, generator=self._rng, dtype=b.dtype, device=b.device)
        return self._rng.standard_normal(shape)

    def uniform(self, shape: tuple[int, ...]):
        """Uniform variates on [0, 1) of the given shape."""
        b = self.backend
        if b.name == "numpy":
            return self._rng.random(shape)
        if b.name == "torch":
            import torch

            return torch.rand(shape, generator=self._rng, dtype=b.dtype, device=b.device)
        return self._rng.random(shape)


def _cuda_index(device: str) -> int:
    _, _, index = device.partition(":")
    return int(index) if index else 0


def available_backends() -> list[str]:
    """The backends importable in this environment."""
    return [name for name in BACKENDS if name == "numpy" or importlib.util.find_spec(name) is not None]


def get_backend(name: str = "numpy", device: str | None = None) -> Backend:
    """Resolve ``name`` and ``device`` to a :class:`Backend`.

    Raises ``ValueError`` naming the problem for an unknown backend, a backend that is not installed,
    or a device that does not exist (``cuda`` without a GPU, ``cuda:3`` on a one-GPU machine).
    """
    if name not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if name != "numpy" and importlib.util.find_spec(name) is None:
        raise InputError(f"backend {name!r} is not installed (available: {', '.join(available_backends())})")
    if name == "numpy":
        if device not in (None, "cpu"):
            raise InputError(f"device {device!r} does not exist for backend numpy (only 'cpu')")
        from array_api_compat import numpy as xp

        return Backend("numpy", "cpu", xp, np.float64)
    if name == "torch":
        import torch
        from array_api_compat import torch as xp

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            dev = torch.device(device)
        except (RuntimeError, TypeError):
            raise InputError(f"device {device!r} is not a torch device") from None
        if dev.type == "cuda":
            if not torch.cuda.is_available():
                raise InputError(f"device {device!r} does not exist: no CUDA GPU is available")
            if dev.index is not None and dev.index >= torch.cuda.device_count():
                raise InputError(f"device {device!r} does not exist: {torch.cuda.device_count()} CUDA GPU(s)")
        elif dev.type != "cpu":
            raise InputError(f"device {device!r} is not supported (use 'cpu' or 'cuda[:k]')")
        return Backend("torch", str(dev), xp, torch.float64)
    cupy = importlib.import_module("cupy")
    from array_api_compat import cupy as xp

    device = device or "cuda:0"
    if not device.startswith("cuda"):
        raise InputError(f"device {device!r} does not exist for backend cupy (use 'cuda[:k]')")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver at all
        count = 0
    if _cuda_index(device) >= count:
        raise InputError(f"device {device!r} does not exist: {count} CUDA GPU(s)")
    return Backend("cupy", device, xp, cupy.float64)
