"""The `aclcts` command: dispatches to the compiler, the single-op JSON, reports, scaffolding, faults and benchmarks."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from typing import Any

import aclcts

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
#: The shell's status of a command ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130

#: Command word → (module whose main(argv) parses and runs the rest of the line, or None for `sim`; summary).
COMMANDS: dict[str, tuple[str | None, str]] = {
    "atc": ("aclcts.atc", "compile single-op JSON into simulator op models (ATC's flags)"),
    "singleop": ("aclcts.tools.singleop", "write the single-op JSON of the op models the suite needs"),
    "sim": (None, "run a program with the simulator as `acl` and `atc`"),
    "report": ("aclcts.report.cli", "compare, merge and turn into expectations run reports"),
    "new-op": ("aclcts.tools.newop", "scaffold a custom op: case file, reference, sim kernel"),
    "kill-matrix": ("aclcts.tools.killmatrix", "run the suite once per injected simulator fault"),
    "bench": ("aclcts.tools.bench", "measure the simulator and the suite, print one table"),
    "msopst": ("aclcts.tools.msopst", "convert msopst case JSON into aclcts case files; survey a folder of them"),
    "random-alarms": ("aclcts.tools.random_alarms", "count the random family's false alarms over many seeds"),
    "docs": ("aclcts.tools.opsdoc", "write the pages made from the registries (docs/operators.md)"),
}

EPILOG = """exit status: 0 ok, 1 findings (a failed compile, new failures, a missed target), 2 usage error,
130 interrupted (SIGINT);
`aclcts sim run` exits with the status of the command it ran.
`aclcts COMMAND --help` describes a command."""


def installed_version() -> str:
    """The version of the installed aclcts distribution (the package's own when it is not installed)."""
    try:
        return importlib.metadata.version("aclcts")
    except importlib.metadata.PackageNotFoundError:
        return aclcts.__version__


def parser() -> argparse.ArgumentParser:
    """The top-level parser: global options and one subparser per command (each parses its own line)."""
    top = argparse.ArgumentParser(prog="aclcts", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="Conformance suite and strict simulator for the pyacl "
                                              "single-operator API.")
    top.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, (_, summary) in COMMANDS.items():
        commands.add_parser(name, help=summary, add_help=False)
    return top


def sim_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser of `aclcts sim` and those of its actions by name."""
    sim = argparse.ArgumentParser(prog="aclcts sim", description="Run a program with `import acl` resolving to the "
                                  "simulator and `atc` being the simulator's compiler, or print where the simulator's "
                                  "`acl` is.")
    actions = sim.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True)
    run = actions.add_parser(
        "run", usage="%(prog)s [-h] [--] COMMAND [ARG ...]",
        help="run COMMAND with `import acl` and `atc` resolving to the simulator",
        description="Run COMMAND with `import acl` resolving to the simulator (its folder first on PYTHONPATH) and "
                    "`atc` on PATH being the simulator's compiler. Everything after `run` (or after `--`) is the "
                    "command; aclcts exits with its status (127 when it is not found, 128+N when signal N ended it). "
                    "SIGINT, SIGTERM and SIGHUP are passed on to the command's process group.")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND [ARG ...]", help="the program to run")
    path = actions.add_parser("path", help="print the folder to put on PYTHONPATH for `import acl`",
                              description="Print the folder whose acl.py makes `import acl` load the simulator.")
    actions.add_parser("stress", add_help=False,
                       help="stress the simulator's streams: threads mixing callbacks, report threads, events and "
                            "synchronisation (--seconds, default 60)")
    return sim, {"run": run, "path": path}


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


#: Signals `aclcts sim run` passes on to the program it runs.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Forwarder:
    """Passes SIGINT, SIGTERM and SIGHUP on to the child's process group (one that arrives before it starts, once it
    has), so that the program's own children get them too."""

    def __init__(self) -> None:
        self.child: subprocess.Popen | None = None
        self.pending: list[int] = []
        self.previous: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():  # only the main thread may set handlers
            self.previous = {number: signal.signal(number, self.handle) for number in FORWARDED}

    def handle(self, number: int, _frame: object) -> None:
        """Forward one signal to the child's group."""
        if self.child is None:
            self.pending.append(number)
        elif self.child.returncode is None:
            _signal_group(self.child.pid, number)

    def started(self, child: subprocess.Popen) -> None:
        """The child runs: send its group what arrived before."""
        self.child = child
        for number in self.pending:
            _signal_group(child.pid, number)

    def restore(self) -> None:
        """Put the previous handlers back."""
        for number, handler in self.previous.items():
            signal.signal(number, handler)


def _signal_group(group: int, number: int) -> None:
    try:
        os.killpg(group, number)
    except ProcessLookupError:  # the group is gone: nothing to stop
        pass


def _own_group() -> dict[str, Any]:
    """Popen arguments that start the child as the leader of a process group of its own."""
    return {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}


def _hand_terminal(group: int) -> int | None:
    """Make group the terminal's foreground group if this process's group holds it (so that Ctrl-C and terminal
    reads reach the program as without aclcts); the terminal's descriptor to hand it back through, else None."""
    try:
        descriptor = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if os.tcgetpgrp(descriptor) == os.getpgrp():
            _set_foreground(descriptor, group)
            _signal_group(group, signal.SIGCONT)  # a read before the hand-over stopped it
            return descriptor
    except OSError:
        pass
    os.close(descriptor)
    return None


def _set_foreground(descriptor: int, group: int) -> None:
    """tcsetpgrp, with SIGTTOU ignored (a background group asking is otherwise stopped)."""
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(descriptor, group)
    finally:
        signal.signal(signal.SIGTTOU, previous)


def exit_status(returncode: int) -> int:
    """The shell's exit status of a child's return code: 128 + N for a child ended by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def sim_run(command: list[str]) -> int:
    """Run command with the simulator standing in for pyacl and ATC; return its exit status.

    The command runs as a process group of its own (the terminal's foreground group when aclcts held it); SIGINT,
    SIGTERM and SIGHUP are passed on to that group, which is waited for; the temporary folder of the `atc` shim is
    removed whatever ends the command.
    """
    forwarder = _Forwarder()
    bin_dir = tempfile.mkdtemp(prefix="aclcts-sim-bin-")
    try:
        _write_atc(bin_dir)
        if forwarder.pending:  # signalled before the command started: it never runs
            return 128 + forwarder.pending[0]
        try:
            child = subprocess.Popen(command, env=sim_environment(bin_dir), **_own_group())
        except FileNotFoundError:
            print(f"aclcts sim run: error: command not found: {command[0]}", file=sys.stderr)
            return 127
        except PermissionError:
            print(f"aclcts sim run: error: permission denied: {command[0]}", file=sys.stderr)
            return 126
        forwarder.started(child)
        terminal = _hand_terminal(child.pid)
        try:
            return exit_status(child.wait())
        finally:
            if terminal is not None:
                with contextlib.suppress(OSError):
                    _set_foreground(terminal, os.getpgrp())
                os.close(terminal)
    finally:
        forwarder.restore()
        shutil.rmtree(bin_dir, ignore_errors=True)


def _split(argv: list[str]) -> tuple[list[str], list[str]]:
    """argv cut after its first word that is not an option: (the words up to the command word, the command's own)."""
    for index, word in enumerate(argv):
        if not word.startswith("-"):
            return argv[:index + 1], argv[index + 1:]
    return argv, []


def _sim(argv: list[str]) -> int:
    sim, actions = sim_parser()
    head, rest = _split(argv)
    action = sim.parse_args(head).action
    if action == "path":
        actions["path"].parse_args(rest)
        print(shim_dir())
        return EXIT_OK
    if action == "stress":
        return importlib.import_module("aclcts.sim.stress").main(rest)
    if rest[:1] in (["-h"], ["--help"]):
        actions["run"].print_help()
        return EXIT_OK
    command = rest[1:] if rest[:1] == ["--"] else rest
    if not command:
        actions["run"].error("no command given; expected `aclcts sim run [--] COMMAND [ARG ...]`")
    return sim_run(command)


def _status(exc: SystemExit) -> int:
    """The exit status an argparse (or other) SystemExit stands for."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or EXIT_OK
    print(exc.code, file=sys.stderr)
    return EXIT_FINDINGS


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `aclcts` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    head, rest = _split(argv)
    top = parser()
    try:
        args, unknown = top.parse_known_args(head)
        if unknown:
            top.error(f"unrecognized arguments: {' '.join(unknown)}")
        if args.command is None:
            top.error(f"no command given; expected one of {', '.join(COMMANDS)}")
        module = COMMANDS[args.command][0]
        if module is None:
            return _sim(rest)
        return importlib.import_module(module).main(rest)
    except SystemExit as exc:
        return _status(exc)
    except KeyboardInterrupt:
        word = next((w for w in argv if not w.startswith("-")), "")
        print(f"aclcts{' ' + word if word else ''}: interrupted (SIGINT); stopped", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
