# Why the board started, for the start's record (controller.py): the port's
# machine.reset_cause() by its constant's name in lower case ("pwron_reset",
# "wdt_reset", ...). The board file passes its machine module in: no firmware
# module imports machine (tests/host/test_boards.py).
_CAUSES = ("PWRON_RESET", "HARD_RESET", "WDT_RESET", "DEEPSLEEP_RESET", "SOFT_RESET")


def named(machine):
    # None where the port reports no cause; a number no constant names, as it is.
    try:
        cause = machine.reset_cause()
    except AttributeError:
        return None
    for name in _CAUSES:
        if getattr(machine, name, None) == cause:
            return name.lower()
    return cause
