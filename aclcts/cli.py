"""The `aclcts` command: dispatches to the compiler, the single-op JSON, reports, scaffolding, faults and benchmarks."""

from __future__ import annotations

import importlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile

USAGE = """usage: aclcts COMMAND ...

commands:
  atc --singleop=FILE --output=DIR --soc_version=SOC   compile single-op JSON into simulator models
  singleop [CASES...] -o op_list.json                   write the single-op JSON of the models the suite needs
  sim run [--] CMD [ARGS...]                            run CMD with `import acl` (and `atc`) resolving to the simulator
  sim path                                              print the folder to put on PYTHONPATH for `import acl`
  report diff OLD NEW | report merge A B ... -o OUT     compare two run reports; merge shard reports
  new-op NAME [--dir DIR]                               scaffold a custom op: case file, reference, simulator kernel
  kill-matrix [-n N] [--faults A,B]                     run the suite once per injected simulator fault
  bench [runtime|ops|overhead|suite|all] [--quick]      print the benchmark table
"""

#: Command word → module whose main(argv) handles it.
_MODULE_COMMANDS = {
    "atc": "aclcts.atc",
    "singleop": "aclcts.tools.singleop",
    "report": "aclcts.report.cli",
    "new-op": "aclcts.tools.newop",
    "kill-matrix": "aclcts.tools.killmatrix",
    "bench": "aclcts.tools.bench",
}


def shim_dir() -> str:
    """The folder whose acl.py makes `import acl` load the simulator."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "sim", "shim")


def _write_atc(folder: str) -> None:
    path = os.path.join(folder, "atc")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"#!{sys.executable}\nimport sys\nfrom aclcts.atc import main\nsys.exit(main(sys.argv[1:]))\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def sim_environment(bin_dir: str) -> dict[str, str]:
    """The environment of a program run under the simulator."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = [shim_dir(), package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PATH"] = os.pathsep.join([bin_dir, env.get("PATH", "")])
    return env


def sim_run(command: list[str]) -> int:
    """Run command with the simulator standing in for pyacl and ATC; return its exit status."""
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("aclcts sim run: error: no command given\n" + USAGE, file=sys.stderr)
        return 2
    bin_dir = tempfile.mkdtemp(prefix="aclcts-sim-bin-")
    try:
        _write_atc(bin_dir)
        try:
            return subprocess.call(command, env=sim_environment(bin_dir))
        except FileNotFoundError:
            print(f"aclcts sim run: error: command not found: {command[0]}", file=sys.stderr)
            return 127
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `aclcts` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command in _MODULE_COMMANDS:
        return importlib.import_module(_MODULE_COMMANDS[command]).main(rest)
    if command == "sim" and rest[:1] == ["run"]:
        return sim_run(rest[1:])
    if command == "sim" and rest[:1] == ["path"]:
        print(shim_dir())
        return 0
    print(f"aclcts: error: unknown command {' '.join(argv[:2])!r}\n" + USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
