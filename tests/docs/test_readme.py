"""Every shell command in README.md's fenced sh/bash/shell blocks runs, in README order, in a copy of the repository,
with the simulator standing in for the device; its exit status is the one README gives.

A command runs as written unless rows of RULES say otherwise (each row: a pattern, what is done, and why); files a
command names that README never makes come from PREPARED; exit statuses other than 0 that README documents are in
EXPECTED_EXIT. README is read when the test runs, so commands added to it are run too; one that matches no row and
fails is reported with its README line.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = {"sh", "bash", "shell"}
#: Seconds one command may take.
COMMAND_TIMEOUT = 900
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Command:
    """One simple command of a README shell block: its words and the README line it starts on."""

    line: int
    words: tuple[str, ...]

    @property
    def text(self) -> str:
        """The command as one line, the way RULES patterns see it."""
        return shlex.join(self.words)


def readme_commands(text: str) -> list[Command]:
    """The simple commands of every sh/bash/shell fenced block, in order; `A && B` gives two commands."""
    commands: list[Command] = []
    fence: str | None = None
    shell = False
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence, shell = match.group(1), match.group(2).lower() in SHELL_LANGUAGES
            continue
        if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            fence = None
            continue
        if not shell:
            continue
        start = start or number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        try:
            tokens = _tokens(pending + line)
        except ValueError:  # a quoted string goes on over the next line
            pending += line + "\n"
            continue
        commands += _split(tokens, pending + line, start)
        pending, start = "", 0
    if pending:
        raise ValueError(f"README.md:{start}: {pending.strip()!r}: a quote or block that does not end")
    return commands


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _split(tokens: list[str], text: str, line: int) -> list[Command]:
    words: list[str] = []
    found: list[Command] = []
    for token in tokens:
        if token == "&&":
            found.append(Command(line, tuple(words)))
            words = []
        elif token and set(token) <= set("();<>|&"):
            raise ValueError(f"README.md:{line}: {token!r} in {text.strip()!r}: the doc test runs simple commands "
                             "and `A && B` only")
        else:
            words.append(token)
    if words:
        found.append(Command(line, tuple(words)))
    return found


@dataclass
class WorkingCopy:
    """The copy of the repository the commands run in, and a folder for paths README gives outside it."""

    root: Path
    scratch: Path


def _replace(words: list[str], old: str, new: str) -> list[str]:
    return [word.replace(old, new) for word in words]


def _model_dir_first(words: list[str], copy: WorkingCopy) -> list[list[str]]:
    """README's own commands that build build/op_models (section "On an NPU host"), when it is not built yet."""
    if (copy.root / "build" / "op_models").exists():
        return [words]
    return [["aclcts", "singleop", "cases", "golden", "-o", "build/op_list.json"],
            ["aclcts", "sim", "run", "--", "atc", "--singleop=build/op_list.json", "--output=build/op_models",
             "--soc_version=Ascend910B1"], words]


def _every_shard(words: list[str], copy: WorkingCopy) -> list[list[str]]:
    return [_replace(_replace(_replace(words, "--shard=1/3", f"--shard={k}/3"), "shard1.", f"shard{k}."),
                     "allure1", f"allure{k}") for k in (1, 2, 3)]


Rewrite = Callable[[list[str], WorkingCopy], list[list[str]]]


@dataclass(frozen=True)
class Rule:
    """A substitution or skip: commands whose text matches `pattern` are rewritten, skipped or only checked."""

    pattern: str
    action: str  # "rewrite", "skip" or "check-pip"
    reason: str
    rewrite: Rewrite | None = None


#: Every command README gives that cannot run as written here, and what runs instead. Rows apply in order; every
#: row whose pattern matches applies, until one that skips or only checks.
RULES: tuple[Rule, ...] = (
    Rule(r"^source \S*/set_env\.sh$", "rewrite",
         "CANN's environment script; the simulator needs none (`aclcts sim run` stands in for it)",
         lambda words, copy: []),
    Rule(r"^pip install ", "check-pip",
         "the environment under test already has aclcts and its dependencies (.ci/run installs them from the "
         "repository); each spec is checked: a local path with extras pyproject.toml defines, a constraints file "
         "that exists, or a requirement the installed version meets"),
    Rule(r"^(npx|npm|allure) ", "skip",
         "Allure's report generator is an npm package that needs Java; neither is installed for the tests"),
    Rule(r"^pytest conformance/$", "rewrite",
         "the Quickstart's whole suite, the one whole-suite run of this test: over the smoke selection (--smoke: every "
         "step test and one case per family and kind), so that this test's time does not grow with the case library; "
         "CI's own `pytest conformance/` runs the whole library",
         lambda words, copy: [[*words, "--smoke"]]),
    Rule(r"--report=build/(base|new)\.jsonl", "rewrite",
         "README's comparison of a clean and a faulted run: both over the execute_v2 tests of the ops its two faults "
         "change (Add, Exp), so that the diff that follows shows the new failures and the drift README names",
         lambda words, copy: [[*_one_module(words), "--ops=Add,Exp"]]),
    Rule(r"^(\S+=\S+ )*pytest conformance/ (?!.*(-k |-m |--cases|--report=build/(base|new)\.jsonl))", "rewrite",
         "another whole-suite run: its options and outputs are what this command shows, so it runs over the "
         "execute_v2 tests of the smoke selection (the Quickstart's command above runs every step test once)",
         lambda words, copy: [[*_one_module(words), "--smoke"]]),
    Rule(r"(?s)^aclcts sim run -- sh -c .*pytest conformance/", "rewrite",
         "the NPU host rehearsal's whole-suite run: over the execute tests of the smoke selection, as the other "
         "whole-suite runs (tests/npu_path runs the same block over every step test)",
         lambda words, copy: [["PYTEST_ADDOPTS=--smoke -m execute", *words]]),
    Rule(r"^pytest -n 2$", "rewrite",
         "the project's own tests, of which this doc test is one: running them here would run it again, and CI runs "
         "and so collects them all (.ci/run); collecting this module with the project's settings checks the command",
         lambda words, copy: [[*words, "--collect-only", "-q", "tests/docs/test_readme.py"]]),
    Rule(r"(^| )-n 8( |$)", "rewrite",
         "eight devices, one worker each, on an NPU host; two worker processes here (--devices=0-7 is kept: the "
         "simulator gets eight devices)",
         lambda words, copy: [_replace_pair(words, ("-n", "8"), ("-n", "2"))]),
    Rule(r"--model-dir=build/op_models", "rewrite",
         "section \"Expected failures\" runs against the models section \"On an NPU host\" builds further down: "
         "when build/op_models is not there yet, that section's two commands build it first",
         _model_dir_first),
    Rule(r"--shard=1/3 .*--report=out/shard1\.jsonl", "rewrite",
         "README runs shard 1/3 on host 1 and 2/3, 3/3 on the others; here all three run, one after the other, "
         "so that the merge that follows has its three shards",
         _every_shard),
    Rule(r"^(pytest .*--backend=npu|atc )", "rewrite",
         "the NPU host's commands run under `aclcts sim run`: `import acl` is the simulator and `atc` its compiler",
         lambda words, copy: [["aclcts", "sim", "run", "--", *words] if words[0] in ("pytest", "atc") else words]),
    Rule(r"^atc ", "rewrite",
         "on a device the custom operator's package is installed in CANN's OPP path; here, once `aclcts new-op` has "
         "made custom_ops/my_scale, the prototype record it wrote under custom_ops/my_scale/opp stands in for it",
         lambda words, copy: [[f"ASCEND_OPP_PATH={copy.root / 'custom_ops/my_scale/opp'}", *words]
                              if (copy.root / "custom_ops/my_scale/opp").is_dir() else words]),
    Rule(r"^aclcts kill-matrix -n 2$", "skip",
         "the whole matrix is the suite once and 65 selections; the next README lines run the same command "
         "with --faults and --select, and tests/killmatrix checks every fault's selection"),
    Rule(r"^aclcts kill-matrix .*--select", "rewrite",
         "the selection's case library narrowed to GEMM's cases (--ops=GEMM: the faults README names are a GEMM and a "
         "descriptor fault), so that its child runs neither collect nor compile the rest of the library",
         lambda words, copy: [[f"{word} --ops=GEMM" if i and words[i - 1] == "--select" else word
                               for i, word in enumerate(words)]]),
    Rule(r"^aclcts kill-matrix(?!.*--faults)", "rewrite",
         "every injection over the selection is 65 runs; one fault the selection kills checks the command, and "
         "tests/killmatrix checks every fault",
         lambda words, copy: [[*words, "--faults", "synchronize_stream_no_drain"]]),
    Rule(r" /tmp/", "rewrite",
         "a path under /tmp is put under the test's own temporary folder",
         lambda words, copy: [_replace(words, "/tmp/", f"{copy.scratch}/")]),
    Rule(r"^aclcts report merge .*-o out/cann-9\.0\.1\.jsonl", "rewrite",
         "the shard section is the alternative to the one-host run above, whose report, JUnit file and Allure folder "
         "this working copy already holds; on the host that merges they do not exist (merge refuses an existing "
         "output without --force), so they are removed first",
         lambda words, copy: [["rm", "-rf", "out/cann-9.0.1.jsonl", "out/cann-9.0.1.xml", "out/allure"], words]),
    Rule(r"^aclcts bench atc ", "rewrite",
         "1,000 operators instead of README's 100,000 (about a minute): the command is what is tested, its figures are "
         "printed, never checked",
         lambda words, copy: [_replace_pair(words, ("--ops", "100000"), ("--ops", "1000"))]),
    Rule(r"^aclcts bench ci( |$)", "skip",
         "all of .ci/run on a fresh clone (minutes; CI runs .ci/run itself); tests/bench/test_bench_ci.py checks the "
         "lines it reads and the op clones"),
    Rule(r"^aclcts bench (--quick$|suite )", "skip",
         "tests/bench/test_bench_command.py runs `aclcts bench --quick` over one case file (every group, the suite "
         "rows included) and checks every figure; running it here too would double the cost"),
    Rule(r"^(aclcts bench|python -m aclcts\.tools\.bench)$", "skip",
         "about 4 minutes (the suite fifteen times); the next README line runs the same command with --quick"),
    Rule(r"^(aclcts bench|python -m aclcts\.tools\.bench) (?!.*--quick)", "rewrite",
         "--quick: fewer calls and rounds; figures are printed, never checked, so the command is what is tested",
         lambda words, copy: [[*words, "--quick"]]),
    Rule(r"^(aclcts bench|python -m aclcts\.tools\.bench) (?!runtime|ops|kernels|overhead)", "rewrite",
         "the suite rows run the conformance suite in several child runs (about 4 minutes with --quick on a loaded "
         "2-core machine): over one case file (elementwise Add) they run the same command in a fraction of that",
         lambda words, copy: [_cases(words, "cases/elementwise/add.yaml")]),
)


def _replace_pair(words: list[str], old: tuple[str, str], new: tuple[str, str]) -> list[str]:
    out = list(words)
    for i in range(len(out) - 1):
        if (out[i], out[i + 1]) == old:
            out[i:i + 2] = new
    return out


def _one_module(words: list[str]) -> list[str]:
    """The words with conformance/test_execute.py in place of the whole suite folder."""
    return ["conformance/test_execute.py" if word == "conformance/" else word for word in words]


def _cases(words: list[str], path: str) -> list[str]:
    """The words with --cases PATH instead of the case files they give, or with it added."""
    if "--cases" not in words:
        return [*words, "--cases", path]
    at = words.index("--cases") + 1
    end = next((i for i in range(at, len(words)) if words[i].startswith("-")), len(words))
    return [*words[:at], path, *words[end:]]


#: Files commands name that README never makes, made just before the first command that names them.
PREPARED: dict[str, tuple[Callable[[WorkingCopy], str | None], str]] = {
    "op.json": (lambda copy: "tests/examples/data/add_op.json",
                "README's op.json is the reader's single-op JSON: the Add example of tests/examples stands in"),
    "app.py": (lambda copy: None,
               "README's app.py is the reader's pyacl program: a short one (init, device count, finalize) stands in"),
    "out/cann-9.0.0.jsonl": (lambda copy: "build/base.jsonl",
                             "the previous release's report: the Quickstart's simulator run (build/base.jsonl) "
                             "stands in"),
}

APP = """\
import acl

assert acl.init() == 0
count, ret = acl.rt.get_device_count()
assert ret == 0 and count >= 1, (count, ret)
assert acl.finalize() == 0
print("devices:", count)
"""

#: Exit statuses other than 0 that README documents, by pattern.
EXPECTED_EXIT: tuple[tuple[str, int, str], ...] = (
    (r"^ACLCTS_SIM_FAULTS=broadcast_wrong_axis\S* pytest conformance/", 1,
     "the injected regression fails the Add broadcasting cases (README: new failures, the Add cases)"),
    (r"^aclcts report diff build/base\.jsonl build/new\.jsonl", 1,
     "README: exit status 1 when there are new failures"),
    (r"^ACLCTS_SIM_FAULTS=gemm_ignores_beta pytest conformance/ -m blas", 1,
     "the injected GEMM fault fails the blas tests"),
)


def rules_for(command: Command) -> list[Rule]:
    """The RULES rows that apply to a command, in order, up to the first that skips or only checks."""
    found = []
    for rule in RULES:
        if re.search(rule.pattern, command.text):
            found.append(rule)
            if rule.action != "rewrite":
                break
    return found


def expected_exit(command: Command) -> tuple[int, str | None]:
    """The exit status README gives the command and why: 0 unless EXPECTED_EXIT says otherwise."""
    return next(((status, f"exit status {status}: {reason}") for pattern, status, reason in EXPECTED_EXIT
                 if re.search(pattern, command.text)), (0, None))


def pip_problems(words: list[str], root: Path) -> list[str]:
    """What a `pip install ...` command asks that this checkout or environment cannot give: one line each."""
    extras_defined = set(tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    problems: list[str] = []
    args = iter(words[2:])
    for arg in args:
        if arg in ("-e", "--editable", "-U", "--upgrade", "-q", "--quiet"):
            continue
        if arg in ("-c", "--constraint", "-r", "--requirement"):
            name = next(args, "")
            if not (root / name).is_file():
                problems.append(f"{arg} {name}: no such file in the repository")
            continue
        if arg.startswith("-"):
            problems.append(f"pip option {arg}: not known to the doc test")
            continue
        path, _, extras = arg.partition("[")
        if path.startswith((".", "/")):
            if not (root / path / "pyproject.toml").is_file():
                problems.append(f"{arg}: {path} is not a project folder")
            unknown = {e.strip() for e in extras.rstrip("]").split(",") if e.strip()} - extras_defined
            if unknown:
                problems.append(f"{arg}: pyproject.toml defines no extra {', '.join(sorted(unknown))}")
            continue
        try:
            requirement = Requirement(arg)
            installed = metadata.version(requirement.name)
        except (InvalidRequirement, metadata.PackageNotFoundError) as exc:
            problems.append(f"{arg}: not an installed requirement ({exc})")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            problems.append(f"{arg}: installed {requirement.name} is {installed}")
    return problems


def working_copy(tmp_path: Path) -> WorkingCopy:
    """The repository's tracked and new (not ignored) files, copied into tmp_path/repo."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("README's commands run in a copy of a git checkout; this is not one")
    root = tmp_path / "repo"
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return WorkingCopy(root, scratch)


def command_environment() -> dict[str, str]:
    """This environment without pytest's, xdist's and aclcts' own variables; this interpreter's scripts first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ACLCTS_"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def names(word: str, path: str) -> bool:
    """Whether a command word names a path: the word itself, or an option's value (`--singleop=op.json`)."""
    return word == path or word.endswith(f"={path}")


def prepare(command: Command, copy: WorkingCopy) -> None:
    """Make the PREPARED files the command names and the working copy does not have yet."""
    for name, (source, _) in PREPARED.items():
        target = copy.root / name
        if target.exists() or not any(names(word, name) for word in command.words):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        origin = source(copy)
        if origin is None:
            target.write_text(APP)
        elif (copy.root / origin).exists():
            shutil.copy2(copy.root / origin, target)


@dataclass
class Outcome:
    """What became of one README command."""

    command: Command
    done: str  # "ran", "skipped" or "checked"
    reasons: list[str]
    seconds: float = 0.0
    problem: str | None = None


def run_command(command: Command, copy: WorkingCopy, env: dict[str, str]) -> Outcome:
    """Run one README command (as RULES say) in the working copy; a problem names its README line."""
    rules = rules_for(command)
    where = f"README.md:{command.line}: {command.text}"
    expected, why = expected_exit(command)
    reasons = [rule.reason for rule in rules] + ([why] if why else [])
    if rules and rules[-1].action == "skip":
        unknown = unknown_options(list(command.words), copy, env)
        return Outcome(command, "skipped", reasons,
                       problem=f"{where}: not an option of the command: {', '.join(unknown)}" if unknown else None)
    if rules and rules[-1].action == "check-pip":
        found = pip_problems(list(command.words), copy.root)
        return Outcome(command, "checked", reasons, problem=f"{where}: {'; '.join(found)}" if found else None)
    prepare(command, copy)
    runs = [list(command.words)]
    for rule in rules:
        assert rule.rewrite is not None
        runs = [rewritten for words in runs for rewritten in rule.rewrite(words, copy)]
    started = time.monotonic()
    for words in runs:
        count = next((i for i, word in enumerate(words) if not _ASSIGNMENT.match(word)), len(words))
        program = words[count:]
        run_env = {**env, **dict(word.split("=", 1) for word in words[:count])}
        try:
            done = subprocess.run(program, cwd=copy.root, env=run_env, capture_output=True, text=True,
                                  timeout=COMMAND_TIMEOUT, check=False)
        except FileNotFoundError:
            return Outcome(command, "ran", reasons, time.monotonic() - started,
                           f"{where}: {program[0]}: command not found")
        except subprocess.TimeoutExpired:
            return Outcome(command, "ran", reasons, time.monotonic() - started,
                           f"{where}: still running after {COMMAND_TIMEOUT} s")
        status = expected if words is runs[-1] else 0
        if done.returncode != status:
            output = (done.stdout[-1500:] + done.stderr[-1500:]).strip()
            ran = "" if words == list(command.words) else f" (ran: {shlex.join(words)})"
            return Outcome(command, "ran", reasons, time.monotonic() - started,
                           f"{where}{ran}: exit status {done.returncode}, expected {status}\n{output}")
    return Outcome(command, "ran", reasons, time.monotonic() - started)


def unknown_options(words: list[str], copy: WorkingCopy, env: dict[str, str]) -> list[str]:
    """The options of an `aclcts COMMAND ...` line that `aclcts COMMAND --help` does not name (none for other
    programs): a command README gives but this test does not run still names real options."""
    if len(words) < 2 or words[0] != "aclcts":
        return []
    shown = subprocess.run(["aclcts", words[1], "--help"], cwd=copy.root, env=env, capture_output=True, text=True,
                           timeout=COMMAND_TIMEOUT, check=False).stdout
    return [word for word in words[2:] if word.startswith("-") and word.split("=", 1)[0] not in shown]


def run_readme(text: str, copy: WorkingCopy) -> list[Outcome]:
    """Every command of a README text, in order, in one working copy; one line printed as each ends."""
    env = command_environment()
    outcomes = []
    for command in readme_commands(text):
        outcomes.append(run_command(command, copy, env))
        print(describe(outcomes[-1]), flush=True)
    return outcomes


def describe(outcome: Outcome) -> str:
    """One command's line of the timing table, with the reasons of what was substituted or skipped."""
    verdict = "FAILED" if outcome.problem else outcome.done
    return (f"  {outcome.seconds:7.1f} s  {verdict:<8} README.md:{outcome.command.line}: {outcome.command.text}"
            + "".join(f"\n{'':22}({reason})" for reason in outcome.reasons))


#: The operators of the first case library. README's whole-suite commands (a dozen `pytest conformance/` runs: reports,
#: Allure, shards, expectations, the NPU host rehearsal) run over their case files only: this test checks that the
#: commands work as README says, and CI's own `pytest conformance/` runs the whole library once.
FIRST_LIBRARY = {
    "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "Equal", "Less", "Greater", "LogicalAnd",
    "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Relu", "Sigmoid", "Tanh", "Square", "Reciprocal", "Cast",
    "MatMul", "BatchMatMul", "GEMM", "ReduceSum", "ReduceMax", "ReduceMean", "SoftmaxV2", "Transpose",
    "Reshape", "ConcatD", "SplitD", "Slice", "Tile", "ArgMaxV2", "TopK", "NonZero", "Unique", "AddN", "Conv2D",
}


def first_library_only(copy: WorkingCopy) -> None:
    """Remove from the copy the case files of operators outside FIRST_LIBRARY."""
    for path in (copy.root / "cases").rglob("*.yaml"):
        op = re.search(r"^op: *(\S+)", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        if op and op.group(1) not in FIRST_LIBRARY:
            path.unlink()


def test_every_readme_shell_command_runs(tmp_path):
    copy = working_copy(tmp_path)
    first_library_only(copy)
    started = time.monotonic()
    outcomes = run_readme((ROOT / "README.md").read_text(encoding="utf-8"), copy)
    print(f"README commands: {time.monotonic() - started:.0f} s in all")
    problems = [o.problem for o in outcomes if o.problem]
    assert not problems, "\n\n".join(problems)


def test_a_skipped_aclcts_command_is_checked_for_options_its_help_does_not_name(tmp_path):
    copy = WorkingCopy(ROOT, tmp_path)
    env = command_environment()
    assert unknown_options(["aclcts", "kill-matrix", "-n", "2", "--faults=x"], copy, env) == []
    assert unknown_options(["aclcts", "kill-matrix", "--no-such-option"], copy, env) == ["--no-such-option"]
    assert unknown_options(["npx", "--yes", "allure-commandline"], copy, env) == []


def test_a_failing_command_that_no_rule_covers_is_named_by_its_readme_line(tmp_path):
    text = "# t\n\n```sh\npython -c 'pass'\npython -c 'import sys; sys.exit(3)'   # fails\n```\n"
    (tmp_path / "repo").mkdir()
    outcomes = run_readme(text, WorkingCopy(tmp_path / "repo", tmp_path))
    assert [o.problem is None for o in outcomes] == [True, False]
    assert outcomes[1].problem.startswith("README.md:5: python -c 'import sys; sys.exit(3)': exit status 3, "
                                          "expected 0")


def test_commands_are_read_from_shell_blocks_only_with_continuations_joined_and_and_lists_split():
    text = ("```sh\npip install . && pytest conformance/\nA=1 \\\n    pytest x \\\n    -k y   # note\n```\n"
            "```python\nprint('no')\n```\n```\nnot a shell block\n```\n~~~bash\naclcts new-op X\n~~~\n")
    assert [(c.line, c.words) for c in readme_commands(text)] == [
        (2, ("pip", "install", ".")), (2, ("pytest", "conformance/")), (3, ("A=1", "pytest", "x", "-k", "y")),
        (14, ("aclcts", "new-op", "X")),
    ]
    with pytest.raises(ValueError, match=r"README\.md:2: '\|'"):
        readme_commands("```sh\nls | wc\n```\n")


def test_pip_lines_are_checked_against_the_project_and_the_environment(tmp_path):
    root = tmp_path
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n[project.optional-dependencies]\ntest = []\n')
    (root / "constraints.txt").write_text("")
    assert pip_problems(["pip", "install", "-c", "constraints.txt", "-e", ".[test]"], root) == []
    assert pip_problems(["pip", "install", "pytest>=1"], root) == []
    found = pip_problems(["pip", "install", "-c", "missing.txt", ".[plot]", "pytest<1", "--pre"], root)
    assert [p.split(":")[0] for p in found] == ["-c missing.txt", ".[plot]", "pytest<1", "pip option --pre"]


def test_every_rule_and_expected_exit_matches_a_readme_command():
    commands = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    unused = [rule.pattern for rule in RULES if not any(re.search(rule.pattern, c.text) for c in commands)]
    unused += [pattern for pattern, _, _ in EXPECTED_EXIT if not any(re.search(pattern, c.text) for c in commands)]
    unused += [name for name in PREPARED if not any(names(word, name) for c in commands for word in c.words)]
    assert unused == [], "rows of tests/docs/test_readme.py that no README command needs any more"
