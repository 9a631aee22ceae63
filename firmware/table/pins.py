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
