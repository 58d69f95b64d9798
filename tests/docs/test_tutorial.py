"""Every shell command of docs/tutorial.md runs as written, in order, in a copy of the repository, and ends with the
exit status the tutorial gives (0 unless TUTORIAL_EXIT says otherwise); pip lines are checked, not run.

The tutorial's runs are small by design (one case file each), so nothing is substituted: about 60 s in all.
"""

from __future__ import annotations

import re
import subprocess

from test_readme import ROOT, command_environment, pip_problems, readme_commands, working_copy

TUTORIAL = ROOT / "docs" / "tutorial.md"
#: Exit statuses other than 0 that the tutorial gives, by pattern: the faulted run and its reproduce line fail.
TUTORIAL_EXIT = ((r"^ACLCTS_SIM_FAULTS=broadcast_wrong_axis pytest (?!.*--expectations)", 1),)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def test_every_tutorial_command_runs_with_the_exit_status_the_tutorial_gives(tmp_path):
    copy = working_copy(tmp_path)
    env = command_environment()
    commands = readme_commands(TUTORIAL.read_text(encoding="utf-8"))
    assert len(commands) >= 8
    problems = []
    for command in commands:
        where = f"docs/tutorial.md:{command.line}: {command.text}"
        words = list(command.words)
        if words[:2] == ["pip", "install"]:
            problems += [f"{where}: {problem}" for problem in pip_problems(words, copy.root)]
            continue
        expected = next((status for pattern, status in TUTORIAL_EXIT if re.search(pattern, command.text)), 0)
        count = next((i for i, word in enumerate(words) if not _ASSIGNMENT.match(word)), len(words))
        run_env = {**env, **dict(word.split("=", 1) for word in words[:count])}
        done = subprocess.run(words[count:], cwd=copy.root, env=run_env, capture_output=True, text=True, timeout=600,
                              check=False)
        if done.returncode != expected:
            problems.append(f"{where}: exit status {done.returncode}, expected {expected}\n"
                            f"{(done.stdout[-1500:] + done.stderr[-1500:]).strip()}")
    assert not problems, "\n\n".join(problems)


def test_every_exit_pattern_matches_a_tutorial_command():
    commands = readme_commands(TUTORIAL.read_text(encoding="utf-8"))
    assert [pattern for pattern, _ in TUTORIAL_EXIT if not any(re.search(pattern, c.text) for c in commands)] == []
