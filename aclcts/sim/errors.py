"""Exceptions and warnings the simulator raises for misuse that real hardware would not report."""

import os
import sys
import warnings

_SIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class SimMisuseError(Exception):
    """Misuse that would crash or corrupt a real device (the message names the API call and the misuse)."""


class NotSimulatedError(AttributeError):
    """A pyacl function the simulator does not provide (an AttributeError, so that hasattr says False)."""


class SimWarning(UserWarning):
    """A documented-but-suspicious use, such as destroying a stream with queued work or leaking at reset."""


def warn(message: str, category: type[Warning] = SimWarning) -> None:
    """Issue a warning (a SimWarning unless told) attributed to the first caller outside the simulator."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_SIM_DIR):
        level += 1
        frame = frame.f_back
    warnings.warn(message, category, stacklevel=level)
