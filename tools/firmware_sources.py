# The pinned MicroPython and picotool sources, checked and unpacked once per content
# (host_tools/uthctl/firmware_sources.py):
#   python tools/firmware_sources.py micropython   -> prints the unpacked tree's path
import sys

from uthctl.firmware_sources import main

if __name__ == "__main__":
    sys.exit(main())
