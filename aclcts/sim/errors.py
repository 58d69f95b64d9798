"""Exceptions and warnings the simulator raises for misuse that real hardware would not report."""


class SimMisuseError(Exception):
    """Misuse that would crash or corrupt a real device (the message names the API call and the misuse)."""


class SimWarning(UserWarning):
    """A documented-but-suspicious use, such as destroying a stream with queued work or leaking at reset."""
