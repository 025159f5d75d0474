"""README's "From Python" example: it parses, and on a GPU with torch it prints what the README
says it prints (the lookup level depends on the tuning database)."""

import ast
import contextlib
import io
import pathlib
import re

import pytest

from conftest import framework

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def example():
    text = README.read_text()
    after = text.split("<!-- example: python -->", 1)[1]
    block = re.search(r"```python\n(.*?)```", after, re.S)
    output = re.search(r"\n```\n(.*?)```", after[block.end():], re.S).group(1)
    code = block.group(1)
    return code, output.splitlines()


def test_readme_example_parses_and_names_its_output():
    code, output = example()
    ast.parse(code)
    assert len(output) == 3 and output[2].startswith("lookup: ")


def test_readme_example_runs_as_shown():
    framework("torch")
    code, output = example()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert lines[:2] == output[:2]
    assert re.fullmatch(r"lookup: (exact|nearest_shape|same_arch|default)", lines[2]), lines[2]
