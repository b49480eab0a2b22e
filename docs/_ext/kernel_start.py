"""Start one notebook kernel at a time across processes, so that two never take the same port.

jupyter/jupyter_client#487: the starting process picks a kernel's five free TCP ports and the
kernel binds them a moment later; two starting at once (Sphinx's ``-j 2`` readers, the downloads
check's workers) can pick the same one ("ZMQError: Address already in use"). myst-nb has no
setting around it: nbclient holds a file lock from the choice of ports until the kernel answers."""

from __future__ import annotations

import asyncio
import fcntl
import os
from pathlib import Path

import nbclient

_FD = "_mha_kernel_start_lock"  # the locked file of a client whose kernel starts


def serialize_kernel_starts(lock_file: str | Path) -> None:
    """From now on, every kernel a NotebookClient starts waits for ``lock_file``'s lock."""
    client = nbclient.NotebookClient
    patched, client.mha_lock_file = hasattr(client, "mha_lock_file"), str(lock_file)
    if patched:  # already in this process: only the file changes
        return
    start, connect = client.async_start_new_kernel, client.async_start_new_kernel_client

    def release(self: nbclient.NotebookClient) -> None:
        if (fd := self.__dict__.pop(_FD, None)) is not None:
            os.close(fd)  # closing the file releases its lock

    async def start_locked(self: nbclient.NotebookClient, **kwargs) -> None:
        fd = os.open(client.mha_lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        self.__dict__[_FD] = fd
        try:
            await start(self, **kwargs)  # chooses the ports, launches the kernel
        except BaseException:
            release(self)
            raise

    async def connect_unlocked(self: nbclient.NotebookClient):
        try:
            return await connect(self)  # returns once the kernel answers: its ports are bound
        finally:
            release(self)

    client.async_start_new_kernel = start_locked
    client.async_start_new_kernel_client = connect_unlocked


def quiet_kernel_profile(folder: Path) -> Path:
    """Write an IPython profile in ``folder`` whose kernels log errors only; return ``folder``."""
    config = folder / "profile_default" / "ipython_kernel_config.py"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('c.IPKernelApp.log_level = "ERROR"\n')
    return folder


def _lock_beside_doctrees(app) -> None:
    # beside the editions' outputs (_build/html/<language>): one lock for the builds side by side
    serialize_kernel_starts(Path(app.outdir).parents[1] / "kernel-start.lock")
    profile = Path(app.confdir) / "_build" / ".ipython"  # the kernels' warning about TCP off
    if "IPYTHONDIR" not in os.environ:
        os.environ["IPYTHONDIR"] = str(quiet_kernel_profile(profile))


def setup(app):
    os.environ.setdefault("MPLBACKEND", "Agg")  # examples and kernels draw without a display
    app.connect("builder-inited", _lock_beside_doctrees)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
