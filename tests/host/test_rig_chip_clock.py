# `uthctl rig state`'s chip clock line: a chip held far below real time (a
# loaded machine, or the emulator's throttle) shows its pace, not 0.00x.
from uthctl.commands.rig import format_state


def _state(speed, behind):
    return {"inputs": {}, "board": True, "powered": True, "boots": 1, "repl": "friendly",
            "display": None, "bet_lights": [0] * 7, "jackpot_lights": [0] * 7,
            "chip_speed": speed, "chip_behind_s": behind}


def _clock_line(speed, behind=1.0):
    return [line for line in format_state(_state(speed, behind)).splitlines()
            if line.startswith("chip clock")][0]


def test_a_chip_at_four_thousandths_of_real_time_says_so():
    assert _clock_line(0.004, 165.3) == ("chip clock     0.004x real time, 165.3 s behind the "
                                         "wall clock since power-on")


def test_a_chip_near_real_time_keeps_two_figures():
    assert _clock_line(0.45).startswith("chip clock     0.45x real time")
    assert _clock_line(1.0).startswith("chip clock     1x real time")
