"""Choosing the device every example, test and page runs on."""

from __future__ import annotations

import os

import torch

__all__ = ["available_devices", "get_device"]

ENV_VAR = "MHA_DEVICE"


def get_device() -> torch.device:
    """Return the device to run on: ``$MHA_DEVICE`` if set, else CUDA if available, else CPU.

    Every gallery script, notebook and test calls this instead of naming a device, so the same
    file runs on a laptop and on a GPU machine.

    Returns
    -------
    torch.device

    Raises
    ------
    ValueError
        If ``MHA_DEVICE`` names a device that is not valid or not available here: an unknown
        name, a backend this build of torch lacks or cannot reach (``cuda``, ``mps``, ``xpu``,
        ...), or a device index beyond the device count.

    Examples
    --------
    >>> import os, mha
    >>> os.environ["MHA_DEVICE"] = "cpu"
    >>> mha.get_device()
    device(type='cpu')
    >>> del os.environ["MHA_DEVICE"]
    >>> mha.get_device().type in {"cpu", "cuda"}
    True
    """
    name = os.environ.get(ENV_VAR, "").strip()
    if not name:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise ValueError(
            f"expected {ENV_VAR} to name a torch device such as 'cpu' or 'cuda:0', got {name!r}"
        ) from err
    problem = _unavailable(device)
    if problem:
        raise ValueError(
            f"{ENV_VAR}={name!r} names a device this machine cannot use: {problem}; unset "
            f"{ENV_VAR} or set it to one of {[str(d) for d in available_devices()]}"
        )
    return device


def _unavailable(device: torch.device) -> str | None:
    """Why ``device`` cannot run tensors here, or ``None`` if it can."""
    if device.type in ("cpu", "meta"):  # meta: shapes without data, everywhere
        return None
    backend = getattr(torch, device.type, None)  # torch.cuda, torch.mps, torch.xpu, ...
    is_available = getattr(backend, "is_available", None)
    if is_available is None or not is_available():
        return f"torch {torch.__version__} has no available {device.type!r} backend"
    count = getattr(backend, "device_count", lambda: 1)()
    if device.index is not None and device.index >= count:
        return f"{device.type}:{device.index} does not exist ({count} {device.type} device(s))"
    return None


def available_devices() -> list[torch.device]:
    """Return the CPU and, when present, the first CUDA device.

    Returns
    -------
    list of torch.device

    Examples
    --------
    >>> import mha
    >>> mha.available_devices()[0]
    device(type='cpu')
    """
    devices = [torch.device("cpu")]
    if torch.cuda.is_available():
        devices.append(torch.device("cuda", 0))
    return devices
