# The same on every board: the board folder builds the hardware, the table runs it.
# Ctrl-C off first of all, before the imports and the store's boot: from here
# on no byte from the host stops the board (docs/host-link.md, "Control bytes").
import micropython

micropython.kbd_intr(-1)

import board  # noqa: E402

from table import app  # noqa: E402

app.run(board.build())
