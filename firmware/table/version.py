# The firmware's identity, which `status` reports: its version and its
# build's hash, which `make build` writes into each board's build as
# table/build_info (docs/boards.md, "Pins, builds and deploying"). Firmware
# run from its sources (the unix-port logic tests) has no such module and
# says so: its build is "source", never a hash it cannot vouch for.

from uth.let_go import let_go

# The version of firmware run from its sources, which sees firmware/ and not
# pyproject.toml, so carries the number itself (a test holds the two equal).
SOURCE_VERSION = "0.1.0"
SOURCE_BUILD = "source"


def firmware_version():
    # Read once at start (hostlink.py), and the build's module let go.
    try:
        from . import build_info
    except ImportError:
        return {"version": SOURCE_VERSION, "build": SOURCE_BUILD}
    found = {"version": build_info.VERSION, "build": build_info.BUILD}
    let_go(build_info.__name__)
    return found
