# The host's two ways into a running board: the host link over its serial
# port (board_link.py) and a rig's hands on its pins (rig.py).
