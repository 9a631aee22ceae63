# A wheel of uthctl carries every package of host_tools/uthctl: the
# packages pyproject.toml lists are all of them (uthctl.soak was not, and
# `uthctl`, whose commands import it, could not start from such a wheel).
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_uthctl_package_is_installed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    folder = ROOT / "host_tools"
    present = {".".join(path.parent.relative_to(folder).parts)
               for path in folder.rglob("__init__.py")
               if "node_modules" not in path.parts}
    assert present - listed == set()
