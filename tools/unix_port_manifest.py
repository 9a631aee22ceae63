# The modules frozen into the host's 32-bit MicroPython (tools/unix_port.py), as a
# board's official image has them frozen: asyncio, nothing of the firmware's.
# ruff: noqa: F821 -- include() comes from the build's manifest tool
include("$(MPY_DIR)/extmod/asyncio")
