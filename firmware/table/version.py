# The firmware's identity, which `status` reports: its version and its
# build's hash. `make build` (tools/build_mpy.py) writes table/build_info into
# each board's build with both: the project's version and a SHA-256 over the
# sources and board file compiled into it. Firmware run from its sources (the
# unix-port logic tests, the virtual board lent firmware/) has no such module
# and says so: its build is "source", never a hash it cannot vouch for.

# The project's version (pyproject.toml's, which the build writes; a test
# holds the two equal). The virtual board sees only firmware/, not the
# project's files, so its sources carry the number themselves.
SOURCE_VERSION = "0.1.0"
SOURCE_BUILD = "source"


def firmware_version():
    try:
        from . import build_info
    except ImportError:
        return {"version": SOURCE_VERSION, "build": SOURCE_BUILD}
    return {"version": build_info.VERSION, "build": build_info.BUILD}
