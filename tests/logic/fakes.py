# Stand-ins for pins and the display, so the controller runs in tests with no
# hardware: anything with value() is a pin.


class Pin:
    def __init__(self, level=0):
        self.level = level

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        return None


class Display:
    def __init__(self):
        self.text = None
        self.history = []

    def show(self, text):
        self.text = text
        self.history.append(text)
