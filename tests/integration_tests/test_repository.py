"""Repository contracts: the Quick start of README.md and what CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _quick_start_commands():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_has_two_commands_demo_then_tests():
    demo, tests = _quick_start_commands()
    assert demo.endswith("nox -s demo")
    # Our suite, then Chainer 7.8.1's own suite held to the floor in .ci/compat-floor.txt.
    assert tests.endswith("nox -s tests compat")


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = _quick_start_commands()
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [line for line in script if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert commands == [tests]


def test_every_distribution_has_version_readme_changelog_and_py_typed():
    for pyproject in (ROOT / "packages").glob("*/pyproject.toml"):
        package = pyproject.parent
        assert (package / "README.md").exists(), package
        assert (package / "CHANGELOG.md").exists(), package
        text = pyproject.read_text()
        if package.name == "chainer":
            # The meta-distribution: a static version, no code (so no version file, no py.typed).
            assert re.search(r'^version = "8\.\d+\.\d+"$', text, re.M), package
            assert not (package / "src").exists(), package
            continue
        hatch = re.search(r'\[tool.hatch.version\]\npath = "(.+?)"', text)
        if hatch is not None:
            version_file = hatch.group(1)
        else:  # setuptools (the distributions with C extensions): version = { attr = "pkg._version.__version__" }
            module = re.search(r'version = \{ attr = "(.+?)\.__version__" \}', text).group(1)
            version_file = "src/" + module.replace(".", "/") + ".py"
        assert re.match(r'__version__ = "\d+\.\d+\.\d+', (package / version_file).read_text()), version_file
        assert (package / version_file).parent.joinpath("py.typed").exists(), version_file
        # Only chainer-core ships chainer/__init__.py.
        has_init = (package / "src" / "chainer" / "__init__.py").exists()
        assert has_init == (package.name == "core"), package
