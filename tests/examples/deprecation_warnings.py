"""Deprecated pyacl calls warn as the binding does: its own words, pointing at the line of the program that called.

    aclcts sim run -- python tests/examples/deprecation_warnings.py

Prints each warning as `file:line: text`; exits non-zero if one is not attributed to this program's calling line.
"""

import sys
import warnings

import numpy as np

import acl


def warnings_of(call):
    """The warnings call raised, as (file, line, text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.filename, w.lineno, str(w.message)) for w in caught]


def main():
    array = np.arange(6, dtype=np.float32)
    attr = acl.op.create_attr()
    calls = {
        "numpy_to_ptr": lambda: acl.util.numpy_to_ptr(array),
        "numpy_to_ptr of a strided view": lambda: acl.util.numpy_to_ptr(array[::2]),
        "numpy_contiguous_to_ptr": lambda: acl.util.numpy_contiguous_to_ptr(array),
        "ptr_to_numpy": lambda: acl.util.ptr_to_numpy(array.ctypes.data, (6,), 11),
        "set_attr_list_float of an array": lambda: acl.op.set_attr_list_float(attr, "x", array),
    }
    failed = False
    for name, call in calls.items():
        caught = warnings_of(call)
        line = call.__code__.co_firstlineno  # the lambda's line: the program line that called pyacl
        for filename, lineno, text in caught:
            print(f"{name}: {filename}:{lineno}: {text}")
            failed = failed or (filename, lineno) != (__file__, line)
        failed = failed or not caught
    acl.op.destroy_attr(attr)
    if failed:
        sys.exit("a warning is missing or not attributed to the calling line")
    print("every warning points at the calling line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
