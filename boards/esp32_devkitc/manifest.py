# Freezes the controller into an ESP32-DevKitC firmware image. From a MicroPython checkout:
#   make -C ports/esp32 BOARD=ESP32_GENERIC FROZEN_MANIFEST=<this file's absolute path>
# Relative paths are taken from this file's folder. A frozen main.py runs in
# preference to a /main.py on the filesystem, so the frozen image always
# starts the controller; Ctrl-C on the serial link still reaches the REPL.
# ruff: noqa: F821 -- include(), package() and module() come from the build's manifest tool
include("$(PORT_DIR)/boards/manifest.py")
package("uth", base_path="../../firmware")
package("mystery", base_path="../../firmware")
package("table", base_path="../../firmware")
module("board.py")
module("main.py", base_path="../../firmware")
