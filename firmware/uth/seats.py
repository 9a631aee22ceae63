# The table the game is played at: an Ultimate Texas Hold 'Em table seats up
# to seven players. A board wires the seats it has pins for (boards/*/board.py);
# a seat number anywhere in the firmware is checked against this.
from micropython import const

MAX_SEAT = const(7)
