# Freezes the test rig into a Pico firmware image. From a MicroPython checkout:
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=<this file's absolute path>
# Only the rig's own modules: none of the controller's firmware goes in.
# ruff: noqa: F821 -- include() and module() come from the build's manifest tool
include("$(PORT_DIR)/boards/manifest.py")
module("rig_protocol.py")
module("rig_expander.py")
module("board.py")
module("main.py")
