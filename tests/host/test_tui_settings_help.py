# The settings screen's help is read whole: a setting's description and its
# example are wrapped to the box, not cut at its edge with "...".
import pytest

from mystery.settings import NAMES, description
from uthctl.tui.screen import Canvas
from uthctl.tui.settings_menu import EXAMPLES, SettingsMenu


def _frame(c, row, col, width, height, title):
    c.put(row, col, "+" + "-" * (width - 2) + "+")
    c.put(row + height - 1, col, "+" + "-" * (width - 2) + "+")


def _shown(menu, cols, rows):
    canvas = Canvas(cols, rows)
    menu.draw(canvas, _frame)
    text = canvas.text()
    return text, " ".join(line.strip() for line in text.split("\n"))


@pytest.mark.parametrize("cols, rows", [(160, 40), (80, 24)])
@pytest.mark.parametrize("name", NAMES)
def test_each_settings_help_is_shown_whole(name, cols, rows):
    menu = SettingsMenu({}, "A1")
    menu.index = NAMES.index(name)
    text, joined = _shown(menu, cols, rows)
    assert " ".join(description(name).split()) in joined, text
    if name in EXAMPLES:
        assert "e.g. " + EXAMPLES[name] in joined, text
    assert max(len(line) for line in text.split("\n")) <= cols


def test_the_typed_value_and_the_hint_follow_the_help():
    menu = SettingsMenu({}, "A1")
    menu.index = NAMES.index("max_payout_cents")
    menu.typed = "abc"
    text, _ = _shown(menu, 80, 24)
    lines = text.split("\n")
    typed = next(i for i, line in enumerate(lines) if "= abc_" in line)
    example = next(i for i, line in enumerate(lines) if "e.g. " in line)
    hint = next(i for i, line in enumerate(lines) if "Enter sends" in line)
    assert example < typed < hint
