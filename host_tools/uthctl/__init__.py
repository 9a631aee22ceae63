# uthctl: the host side of the table controller. It imports the firmware's
# pure logic (package `uth`), so the MicroPython shim goes in first.
from . import mpshim

mpshim.install()

__version__ = "0.1.0"
