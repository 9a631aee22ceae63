# The same on every board: the board folder builds the hardware, the table runs it.
import board

from table import app

app.run(board.build())
