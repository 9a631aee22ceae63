# Pin adapters, so wiring choices stay in the board folder.


class ActiveLow:
    # A button or sensor wired to ground with a pull-up reads 0 when active;
    # the controller always sees 1 for pressed, turned or chip present.
    def __init__(self, pin):
        self.pin = pin

    def value(self, level=None):
        if level is None:
            return 0 if self.pin.value() else 1
        self.pin.value(0 if level else 1)
        return None


class ShutWhenLow:
    # A switch held closed to ground by what it guards (the controller's
    # compartment door, shut), read through an input that gives 1 while it is
    # pulled low (an MCP23017 pin, inverted): value() is 1 while it is OPEN,
    # and a cut wire or a switch pulled off reads open, never shut.
    def __init__(self, pin):
        self.pin = pin

    def value(self, level=None):
        return 0 if self.pin.value() else 1
