# Text wrapped to the terminal: a refusal or a hint is read whole, not cut at
# the screen's edge.
import textwrap


def wrapped(text, width, most):
    # Lines of `width` at most, `most` of them, the last cut short with "..."
    # when more was left.
    lines = textwrap.wrap(text, width) or [""]
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][:width - 3] + "..."
    return lines
