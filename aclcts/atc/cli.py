"""Command line of `aclcts atc`: ATC-style flags for compiling a single-op JSON file for the simulator."""

from __future__ import annotations

import sys

from aclcts.atc.compiler import compile_singleop

REQUIRED_OPTIONS = ("singleop", "output", "soc_version")
#: ATC options allowed with --singleop (docs/contract/single-op-json.md#command-line); accepted and ignored by the
#: simulator.
IGNORED_OPTIONS = ("precision_mode", "precision_mode_v2", "op_select_implmode", "optypelist_for_implmode",
                   "enable_small_channel", "sparsity", "allow_hf32", "log", "debug_dir",
                   "op_compiler_cache_mode", "op_compiler_cache_dir", "atomic_clean_policy",
                   "customize_dtypes", "is_weight_clip", "core_type", "aicore_num")
SUCCESS_MESSAGE = "ATC run success, welcome to the next use."
USAGE_LINE = "usage: aclcts atc --singleop=FILE --output=DIR --soc_version=SOC [--option=value ...]"
USAGE = (USAGE_LINE + "\n"
         "  compiles every operator of a single-op JSON file into a simulator model in DIR\n"
         "  each operator is checked against its CANN prototype; a custom operator's prototype is read from\n"
         "  $ASCEND_OPP_PATH/vendors/<vendor>/op_proto/aclcts/<OpType>.json (aclcts new-op writes one)\n"
         "  also accepted and ignored: " + ", ".join(f"--{o}" for o in IGNORED_OPTIONS) + "\n"
         "  exit status: 0 every operator compiled, 1 an operator or the file failed, 2 usage error")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """The command line is not valid."""


def parse_args(argv: list[str]) -> dict[str, str]:
    """Return the option values of an ATC-style command line (`--k=v` or `--k v`); UsageError if invalid."""
    options: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        if not arg.startswith("--") or arg == "--":
            raise UsageError(f"unexpected argument {arg!r}; options are written --name=value")
        key, sep, value = arg[2:].partition("=")
        if key not in REQUIRED_OPTIONS and key not in IGNORED_OPTIONS:
            raise UsageError(f"unknown option --{key}")
        if not sep:
            value = next(args, None)
            if value is None or value.startswith("--"):
                raise UsageError(f"option --{key} needs a value")
        if key in options:
            raise UsageError(f"option --{key} is given twice")
        options[key] = value
    missing = [f"--{k}" for k in REQUIRED_OPTIONS if not options.get(k)]
    if missing:
        raise UsageError(f"missing required option{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return options


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts atc`; return 0 on success, 1 if an operator failed, 2 for a bad command line."""
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return EXIT_OK
    try:
        options = parse_args(argv)
    except UsageError as exc:
        print(f"{USAGE_LINE}\naclcts atc: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = compile_singleop(options["singleop"], options["output"], options["soc_version"])
    for line in result.warnings:
        print(line, file=sys.stderr)
    for line in result.errors:
        print(line, file=sys.stderr)
    if not result.ok:
        failed = sum(1 for op in result.operators if not op.ok)
        print(f"ATC run failed: {failed} of {len(result.operators)} operator(s) not compiled, "
              f"{len(result.written)} model(s) written.", file=sys.stderr)
        return EXIT_FAILED
    print(SUCCESS_MESSAGE)
    return EXIT_OK
