"""Futexes on shared memory: a process sleeps on a 4-byte word of a shared mapping until another process
changes the word and wakes it, or until a timeout (write_turns.py waits for its turn this way).

Why not a blocking lock call: ``fcntl`` and ``flock`` can neither time out nor be interrupted, so a
writer that must give up in time waits through a helper thread, and every hand-over then costs two
wake-ups (the kernel wakes the helper, the helper wakes the writer). A futex is woken directly, and its
wait takes a timeout.

Linux only, on the architectures whose system call number is known here; :data:`AVAILABLE` says whether
this process can use them (callers keep a path without).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from collections.abc import Callable

# The futex system call's number per architecture (asm/unistd.h).
_NUMBERS = {"x86_64": 202, "aarch64": 98, "arm64": 98}
# FUTEX_WAIT and FUTEX_WAKE, not their _PRIVATE forms: the words are shared between processes.
_WAIT = 0
_WAKE = 1
_EVERYONE = 0x7FFFFFFF


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def _system_call() -> Callable[..., int] | None:
    """libc's ``syscall`` bound to the futex number, if futexes work here (woken once to be sure)."""
    number = _NUMBERS.get(platform.machine().lower())
    if not sys.platform.startswith("linux") or number is None:
        return None
    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):  # pragma: no cover - a libc without syscall()
        return None
    syscall.restype = ctypes.c_long

    def call(*arguments: object) -> int:
        return syscall(ctypes.c_long(number), *arguments)

    probe = ctypes.c_uint32(0)
    if call(ctypes.byref(probe), ctypes.c_long(_WAKE), ctypes.c_long(1), None, None, ctypes.c_long(0)) < 0:
        return None  # pragma: no cover - a sandbox that refuses the call (ENOSYS)
    return call


_CALL = _system_call()
AVAILABLE = _CALL is not None


def address(buffer: object, offset: int) -> int:
    """The address of the 4-byte word at ``offset`` of a writable buffer (an mmap), which must stay
    mapped as long as the address is used."""
    word = ctypes.c_uint32.from_buffer(buffer, offset)  # type: ignore[arg-type]
    try:
        return ctypes.addressof(word)
    finally:
        del word  # the buffer stays closable


def wait(word: int, expected: int, seconds: float) -> None:
    """Sleep while the word at address ``word`` holds ``expected``, until woken or ``seconds`` passed.
    Returns at once if the word already holds something else; may return early (a signal), so callers
    look at the word again."""
    whole = int(seconds)
    timeout = _Timespec(whole, int((seconds - whole) * 1e9))
    result = _CALL(  # type: ignore[misc]
        ctypes.c_void_p(word),
        ctypes.c_long(_WAIT),
        ctypes.c_long(expected),
        ctypes.byref(timeout),
        None,
        ctypes.c_long(0),
    )
    if result < 0:
        code = ctypes.get_errno()
        if code not in (errno.EAGAIN, errno.ETIMEDOUT, errno.EINTR):  # pragma: no cover - a bad address
            raise OSError(code, os.strerror(code))


def wake(word: int) -> None:
    """Wake every process sleeping on the word at address ``word``."""
    _CALL(ctypes.c_void_p(word), ctypes.c_long(_WAKE), ctypes.c_long(_EVERYONE), None, None, ctypes.c_long(0))  # type: ignore[misc]
