"""git in a folder a clone may have shaped, with everything that can run a program off.

tether asks git two things: which `.tether/` files it tracks (the trust check,
:mod:`supervisor.store.trust`) and HEAD with the dirty flag (every checkpoint,
:func:`supervisor.store.checkpoints.git_state`). Both run in a folder that may be a
stranger's clone, and git's configuration can name programs: a bare repository in a
subfolder is found as the repository when git runs there, and its ``core.fsmonitor``
then runs at every ``git status``. So every call goes through :func:`command` and
:func:`environment`, which turn off each way git can start a program:

- ``core.fsmonitor=false``, ``core.hooksPath=/dev/null``, ``--no-pager`` and
  ``core.pager=cat``, ``diff.external=``, ``core.askPass=``, ``credential.helper=``,
  ``core.sshCommand=`` and ``protocol.allow=never`` (no transport at all),
  ``core.alternateRefsCommand=``, ``submodule.recurse=false``;
- every filter driver (``clean``, ``smudge``, ``process``) and diff driver
  (``textconv``, ``command``) the configuration names, emptied by name (their names
  are arbitrary, so they are read first with ``git config``, which runs nothing);
- ``safe.bareRepository=explicit``: a bare repository is never found by accident;
- ``safe.directory`` is never passed: a repository owned by another user is refused
  by git, and the callers treat a refusal as "cannot tell" (the trust check asks);
- in a folder the user has not said to trust, the system and global configuration
  are not read either (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``);
- ``GIT_TERMINAL_PROMPT=0``, optional locks off, the ``GIT_*`` variables that point
  git at another repository removed, and git run with ``-C`` the folder itself.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

# What can start a program, overridden on the command line (which beats every file).
OFF = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=",
    "core.gitProxy=",
    "core.alternateRefsCommand=",
    "core.editor=false",
    "credential.helper=",
    "diff.external=",
    "protocol.allow=never",
    "submodule.recurse=false",
    "safe.bareRepository=explicit",
    "core.untrackedCache=false",
)
DRIVER_KEYS = {
    "filter": ("clean", "smudge", "process"),
    "diff": ("textconv", "command"),
}
# Variables that would point git at another repository, or at configuration we did not pick.
_DROPPED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "GIT_EXEC_PATH",
)


def environment(*, trusted: bool) -> dict[str, str]:
    """The environment of every git call tether makes (see the module)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _DROPPED and not key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    if not trusted:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    return env


def _overrides(drivers: list[str]) -> list[str]:
    args: list[str] = []
    for setting in OFF:
        args += ["-c", setting]
    for driver in drivers:
        section, _, name = driver.partition(".")
        for key in DRIVER_KEYS.get(section, ()):
            args += ["-c", f"{section}.{name}.{key}="]
        if section == "filter":
            args += ["-c", f"{section}.{name}.required=false"]
    return args


def command(work_dir: os.PathLike[str] | str, *args: str, drivers: Sequence[str] = ()) -> list[str]:
    """``git`` with every program-starting setting off, in ``work_dir`` itself."""
    return ["git", "--no-pager", "-C", os.fspath(work_dir), *_overrides(list(drivers)), *args]


_reading = threading.local()  # this thread's answers while in one_reading()


@contextmanager
def one_reading() -> Iterator[None]:
    """Within: each thing :func:`remembered` is asked for is read from git once (per
    thread). One hook answer is built from one moment of the checkout, however many
    times it builds its payload; the next answer reads git afresh."""
    outer = getattr(_reading, "values", None)
    if outer is None:
        _reading.values = {}
    try:
        yield
    finally:
        if outer is None:
            _reading.values = None


def remembered(key: tuple[str, ...], read: Callable[[], T]) -> T:
    """``read()``, once per ``key`` within :func:`one_reading`; outside it, every time."""
    values: dict[tuple[str, ...], object] | None = getattr(_reading, "values", None)
    if values is None:
        return read()
    if key not in values:
        values[key] = read()
    return values[key]  # type: ignore[return-value]


def named_drivers(
    work_dir: os.PathLike[str] | str, *, trusted: bool, timeout: float
) -> list[str] | None:
    """The filter and diff drivers git's configuration names here (``filter.lfs``, ...),
    read without running any; None when git cannot say (then nothing else is asked)."""
    key = ("drivers", os.path.abspath(work_dir), str(trusted))
    return remembered(key, lambda: _named_drivers(work_dir, trusted=trusted, timeout=timeout))


def _named_drivers(
    work_dir: os.PathLike[str] | str, *, trusted: bool, timeout: float
) -> list[str] | None:
    try:
        done = subprocess.run(
            command(work_dir, "config", "-z", "--name-only", "--get-regexp", r"^(filter|diff)\."),
            capture_output=True,
            timeout=timeout,
            env=environment(trusted=trusted),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode not in (0, 1):  # 1: no such key, which is fine
        return None
    found: set[str] = set()
    for key in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        section, _, rest = key.partition(".")
        name, _, _ = rest.rpartition(".")
        if section.lower() in DRIVER_KEYS and name:
            found.add(f"{section.lower()}.{name}")
    return sorted(found)
