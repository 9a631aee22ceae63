# Firmware run from its sources (these tests, the virtual board) has no
# build_info, which only `make build` writes: `status` says its build is
# "source" and gives the project's version, read here from pyproject.toml.
import json

import tmpdir
from table_rig import Rig


def _project_root():
    # tests/logic/this file -> the project's root, on both runtimes.
    parts = __file__.split("/")[:-3]
    return "/".join(parts) if parts else "."


def _project_version_line(text):
    # MicroPython has no tomllib: the [project] table's version line.
    section = None
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[project]" and line.split("=")[0].strip() == "version":
            return json.loads(line.split("=", 1)[1].strip())
    raise AssertionError("no version in pyproject.toml's [project]")


def _pyproject_version():
    with open(_project_root() + "/pyproject.toml") as file:
        text = file.read()
    try:
        import tomllib
    except ImportError:
        return _project_version_line(text)
    return tomllib.loads(text)["project"]["version"]


@tmpdir.within
def test_status_from_source_says_so_with_the_projects_version(root):
    rig = Rig(root)
    status = rig.command(cmd="status", id=7)[-1]
    assert (status["ok"], status["reply"], status["id"]) == (True, "status", 7)
    assert status["build"] == "source"
    assert status["version"] == _pyproject_version()
    assert status["state"] == "unconfigured"  # the table's own fields stay


@tmpdir.within
def test_status_carries_the_identity_in_every_state(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.key.level = 1
    rig.run(100)  # service mode
    status = rig.command(cmd="status")[-1]
    assert status["state"] == "service" and status["config"] == "A1"
    assert (status["version"], status["build"]) == (_pyproject_version(), "source")
