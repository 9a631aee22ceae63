# The firmware's identity, which `status` reports: its version and its
# build's hash, which `make build` writes into each board's build as
# table/build_info (docs/boards.md, "Pins, builds and deploying"). Firmware
# run from its sources (the unix-port logic tests) has no such module and
# says so: its build is "source", never a hash it cannot vouch for.

# The version of firmware run from its sources, which sees firmware/ and not
# pyproject.toml, so carries the number itself (a test holds the two equal).
SOURCE_VERSION = "0.1.0"
SOURCE_BUILD = "source"


def firmware_version():
    try:
        from . import build_info
    except ImportError:
        return {"version": SOURCE_VERSION, "build": SOURCE_BUILD}
    return {"version": build_info.VERSION, "build": build_info.BUILD}
