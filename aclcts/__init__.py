"""aclcts: conformance test suite, validation framework and strict simulator for the pyacl single-operator API."""

__version__ = "0.1.0"
