"""Running code a user wrote (golden modules, `reference: module:ATTR`, --backend modules) so that whatever it does
-- raise, call sys.exit or os._exit, or never return -- becomes one UserCodeError line naming what was run.

- Exceptions and SystemExit are caught (KeyboardInterrupt is not: it is the user stopping aclcts).
- os._exit is replaced, while user code runs, by a function that raises instead of ending the process; an exit
  through the C library (ctypes) or a signal is not seen.
- A time limit (IMPORT_TIMEOUT_S, the environment variable ACLCTS_IMPORT_TIMEOUT, or pytest's --timeout) bounds each
  run: in the main thread with no other alarm pending, SIGALRM interrupts the code and the run goes on; elsewhere
  a watchdog thread ends the process with the one line and exit status 4 once the limit has passed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: Seconds one piece of user code may run by default (an import, a golden function call at collection).
IMPORT_TIMEOUT_S = 120.0
#: Environment variable overriding IMPORT_TIMEOUT_S (seconds; 0 turns the limit off).
TIMEOUT_VARIABLE = "ACLCTS_IMPORT_TIMEOUT"
#: Exit status of a process ended by the watchdog (pytest's usage-error status).
WATCHDOG_EXIT = 4

_REAL_EXIT = os._exit
_lock = threading.Lock()
_patched = 0
_limit: float | None = None


class UserCodeError(Exception):
    """User code raised, exited or hung; the message is one line naming it and what it did."""


class _ExitCalled(BaseException):
    """Raised in place of os._exit(status) while user code runs."""

    def __init__(self, status: object) -> None:
        super().__init__(status)
        self.status = status


class _TimedOut(BaseException):
    """Raised by the alarm in user code that ran past its time limit."""


def set_timeout(seconds: float | None) -> None:
    """Use this time limit for user code from now on (None: the default; 0: none)."""
    global _limit
    _limit = seconds


def timeout() -> float:
    """The time limit of user code in seconds (0 for none): set_timeout's, else ACLCTS_IMPORT_TIMEOUT's, else the
    default; a value that is not a number of seconds is a ValueError naming the variable."""
    if _limit is not None:
        return _limit
    raw = os.environ.get(TIMEOUT_VARIABLE)
    if raw is None:
        return IMPORT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"{TIMEOUT_VARIABLE}={raw[:40]!r}: expected a number of seconds (0 for no limit)")
    return seconds


def _raising_exit(status: object = 0) -> None:
    raise _ExitCalled(status)


@contextmanager
def _exit_raises() -> Iterator[None]:
    global _patched
    with _lock:
        _patched += 1
        os._exit = _raising_exit
    try:
        yield
    finally:
        with _lock:
            _patched -= 1
            if not _patched:
                os._exit = _REAL_EXIT


def _alarm_usable() -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0)


@contextmanager
def _time_limit(what: str, seconds: float, watchdog: bool) -> Iterator[None]:
    if seconds <= 0 or not (watchdog or _alarm_usable()):
        yield
        return
    if _alarm_usable():
        def expire(_number: int, _frame: object) -> None:
            raise _TimedOut()

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    done = threading.Event()

    def watch() -> None:
        if not done.wait(seconds):
            sys.stderr.write(f"aclcts: error: {what} did not finish within {seconds:g} s (a hang?); stopped\n")
            sys.stderr.flush()
            _REAL_EXIT(WATCHDOG_EXIT)

    watchdog = threading.Thread(target=watch, name="aclcts-user-code-watchdog", daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        done.set()


def _one_line(text: str) -> str:
    return " ".join(text.split())


@contextmanager
def guarded(what: str, *, watchdog: bool = True,
            passing: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Run the block's user code; what it raises, an exit, or running past the time limit is a UserCodeError
    `<what> raised T: msg` / `called sys.exit(N)` / `called os._exit(N)` / `did not finish within S s`.

    Exceptions of the `passing` types go through unchanged. Without `watchdog`, the time limit applies only where the
    alarm can interrupt the code (inside a test, pytest-timeout's own limit is what bounds it).
    """
    seconds = timeout()
    try:
        with _exit_raises(), _time_limit(what, seconds, watchdog):
            yield
    except (KeyboardInterrupt, *passing):
        raise
    except SystemExit as exc:
        raise UserCodeError(_one_line(f"{what} called sys.exit({exc.code!r})")) from None
    except _ExitCalled as exc:
        raise UserCodeError(_one_line(f"{what} called os._exit({exc.status!r})")) from None
    except _TimedOut:
        raise UserCodeError(_one_line(f"{what} did not finish within {seconds:g} s (a hang?); stopped it")) from None
    except UserCodeError:
        raise
    except BaseException as exc:  # the user's code: whatever it raised is its one line
        raise UserCodeError(_one_line(f"{what} raised {type(exc).__name__}: {exc}")) from None
