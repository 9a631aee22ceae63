# The 32-bit MicroPython unix port, built from the pinned sources once per content
# (host_tools/uthctl/unix_port.py); `make setup` installs it as .venv/bin/micropython:
#   python tools/unix_port.py [INSTALL_PATH]   -> prints the program's path
import sys

from uthctl.unix_port import main

if __name__ == "__main__":
    sys.exit(main())
