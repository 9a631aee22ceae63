# The one place the host stands in for MicroPython-only names that firmware
# modules import (`from micropython import const`), so the firmware's pure
# logic runs unchanged on CPython.
import sys
import types


def install():
    if "micropython" in sys.modules or sys.implementation.name == "micropython":
        return
    shim = types.ModuleType("micropython")
    shim.const = lambda value: value
    # A host's stdin has no interrupt character to turn off (table/app.py's run()).
    shim.kbd_intr = lambda char: None
    sys.modules["micropython"] = shim
