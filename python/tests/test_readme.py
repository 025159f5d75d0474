"""README's "From Python" example (python/examples/readme.py, which the readme test of ctest
holds equal to the README's block) prints, on a GPU with torch, what the README says it prints
(the lookup level depends on the tuning database)."""

import pathlib
import re
import subprocess
import sys

from conftest import framework

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python" / "examples" / "readme.py"


def readme_output():
    text = (ROOT / "README.md").read_text()
    after = text.split("<!-- example: python/examples/readme.py -->", 1)[1]
    code = re.search(r"```python\n.*?```", after, re.S)
    return re.search(r"\n```\n(.*?)```", after[code.end():], re.S).group(1).splitlines()


def test_readme_shows_the_example_and_its_output():
    output = readme_output()
    assert len(output) == 3 and output[2].startswith("lookup: ")
    compile(EXAMPLE.read_text(), str(EXAMPLE), "exec")


def test_readme_example_runs_as_shown():
    framework("torch")
    r = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines, output = r.stdout.splitlines(), readme_output()
    assert lines[:2] == output[:2]
    assert re.fullmatch(r"lookup: (exact|same_model|nearest_shape|same_arch|default)", lines[2]), lines[2]
