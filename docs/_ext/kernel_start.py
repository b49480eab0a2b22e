"""Start one notebook kernel at a time across processes, so that two never take the same port.

A workaround of jupyter/jupyter_client#487 ("Spawning many kernels may result in ZMQError"),
which neither nbclient nor myst-nb can be configured around: myst-nb creates its
``NotebookClient`` with no configuration of the kernel's transport (``ipc`` would need no port).

A Jupyter kernel listens on five TCP ports. The process that starts it chooses them
(jupyter_client binds port 0, reads the port the system gave and closes the socket) and the
kernel binds them again a moment later. Two processes that start kernels at the same time can
be given the same free port in between: then the second kernel fails with ``ZMQError: Address
already in use``, and the notebook with "Kernel didn't respond in 60 seconds". Sphinx's
``-j 2`` readers execute two tutorial pages at once (myst-nb), and ``nox -s downloads`` runs
two downloaded notebooks at once (pytest-xdist): both met it.

:func:`serialize_kernel_starts` makes :class:`nbclient.NotebookClient` hold an exclusive lock
on one file from the choice of the ports until the new kernel answers. The notebooks still run
side by side; only each kernel's start (about a second) waits for the other's.

As a Sphinx extension it locks ``<doctree dir>/kernel-start.lock``, shared by the processes of
one build; the downloads check calls the function with a file in its own temporary folder.

The kernel also warns, on every start, that it listens on local TCP: noise in the build's
log. Unless ``IPYTHONDIR`` is set, the build and the downloads check point it at a profile that
lowers the kernel's log level (:func:`quiet_kernel_profile`), beside the build's output.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from pathlib import Path

import nbclient

_LOCKED = "_mha_kernel_start_lock"


def serialize_kernel_starts(lock_file: str | Path) -> None:
    """From now on, every kernel a NotebookClient starts waits for ``lock_file``'s lock."""
    client = nbclient.NotebookClient
    patched = getattr(client, _LOCKED, None)
    if patched is not None:  # already done in this process: only the file changes
        patched["file"] = str(lock_file)
        return
    state = {"file": str(lock_file)}
    start, connect = client.async_start_new_kernel, client.async_start_new_kernel_client

    def release(self: nbclient.NotebookClient) -> None:
        fd = self.__dict__.pop(_LOCKED, None)
        if fd is not None:
            os.close(fd)  # closing the file releases its lock

    async def start_locked(self: nbclient.NotebookClient, **kwargs) -> None:
        fd = os.open(state["file"], os.O_RDWR | os.O_CREAT, 0o644)
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        self.__dict__[_LOCKED] = fd
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
    setattr(client, _LOCKED, state)


KERNEL_CONFIG = 'c.IPKernelApp.log_level = "ERROR"\n'


def quiet_kernel_profile(folder: Path) -> Path:
    """Write an IPython profile in ``folder`` whose kernels log errors only; return ``folder``."""
    config = folder / "profile_default" / "ipython_kernel_config.py"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(KERNEL_CONFIG)
    return folder


def _lock_beside_doctrees(app) -> None:
    serialize_kernel_starts(Path(app.doctreedir) / "kernel-start.lock")
    if "IPYTHONDIR" not in os.environ:  # beside the build's output, not in the site
        profile = Path(app.confdir) / "_build" / ".ipython"
        os.environ["IPYTHONDIR"] = str(quiet_kernel_profile(profile))


def _no_display(app, config) -> None:
    """The examples and the kernels (which inherit the build's environment) draw their
    figures without a display, from the start of the build."""
    os.environ.setdefault("MPLBACKEND", "Agg")


def setup(app):
    app.connect("config-inited", _no_display)
    app.connect("builder-inited", _lock_beside_doctrees)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
