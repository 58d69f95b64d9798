"""The vocabulary every wing shares: pyacl constants, dtypes, the op model, error-code tables, YAML with lines, atomic files."""
