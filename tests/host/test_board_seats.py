# How many seats the host believes each board wires (uthctl/boards/seats.py):
# read from the board's own file, checked here against the wiring documented
# for it (docs/boards.md's expander table, the sim board's header), and refused
# when it exceeds a table's seven seats.
import re
from pathlib import Path

import pytest

from uthctl.boards import seats
from uthctl.links import rig

BOARDS = Path(__file__).resolve().parents[2] / "boards"
WIRING = Path(__file__).resolve().parents[2] / "docs" / "boards.md"


def _documented_pico_seats():
    # The last seat of docs/boards.md's expander table ("| U2 | 0x21 | ... | 5-7 ...").
    found = re.findall(r"^\|\s*U\d\s*\|\s*0x2\d\s*\|[^|]*\|\s*(\d)-(\d)",
                       WIRING.read_text(), re.MULTILINE)
    return max(int(last) for _, last in found)


def _documented_sim_seats():
    # The header's "inputs bet1..N".
    text = (BOARDS / "sim" / "board.py").read_text()
    return int(re.search(r"inputs bet1\.\.(\d)", text).group(1))


def test_each_board_wires_what_its_file_documents():
    assert seats.pico_seats() == _documented_pico_seats() == 7
    assert seats.sim_seats() == _documented_sim_seats() == 7


def _pico_file(tmp_path, count, expanders):
    path = tmp_path / "board.py"
    path.write_text("_SEATS = const(%d)\n_EXPANDERS = %r\n_GP_LOCK = const(22)\n"
                    "_GP_KEY = const(28)\n_GP_SDA = const(26)\n_GP_SCL = const(27)\n"
                    "_GP_CS = const(17)\n_SPI_BUS = const(0)\n_I2C_BUS = const(1)\n"
                    % (count, tuple(expanders)))
    return path


def test_a_pico_map_with_more_seats_than_a_table_or_too_few_expanders_is_refused(tmp_path):
    with pytest.raises(ValueError, match="wires 8 seats; a table has 1 to 7"):
        seats.pico_seats(_pico_file(tmp_path, 8, (0x20, 0x21)))
    with pytest.raises(ValueError, match="5 seats want 2 expanders, not 1"):
        seats.pico_seats(_pico_file(tmp_path, 5, (0x20,)))
    assert seats.pico_seats(_pico_file(tmp_path, 4, (0x20,))) == 4
    assert seats.pico_seats(_pico_file(tmp_path, 7, (0x20, 0x21))) == 7


def test_a_sim_board_without_its_count_or_with_too_many_is_refused(tmp_path):
    path = tmp_path / "board.py"
    path.write_text("from micropython import const\n\nSEATS = const(8)\n")
    with pytest.raises(ValueError, match="wires 8 seats"):
        seats.sim_seats(path)
    path.write_text("SEAT_COUNT = 6\n")
    with pytest.raises(ValueError, match="names no SEATS"):
        seats.sim_seats(path)
    path.write_text("SEATS = const(4)\n")
    assert seats.sim_seats(path) == 4


def test_the_rig_client_takes_any_seat_of_a_table():
    # A board refuses a seat it does not wire by its pin (test_vboard: chip 7).
    assert rig._seat(7) == 7 and rig._seat("1") == 1
    for seat in (0, 8):
        with pytest.raises(ValueError, match="seat must be 1 to 7"):
            rig._seat(seat)
