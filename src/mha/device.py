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
        If ``MHA_DEVICE`` names a device that is not valid or not available here.

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
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"{ENV_VAR}={name!r} asks for CUDA, but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}); unset {ENV_VAR} or install a CUDA build of torch"
        )
    return device


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
