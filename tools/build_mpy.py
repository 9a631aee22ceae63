# `make build`: every board's precompiled firmware (host_tools/uthctl/build_mpy.py).
#   python tools/build_mpy.py --out build rp2040_pico:armv6m esp32_devkitc:xtensawin
import sys

from uthctl.build_mpy import main

if __name__ == "__main__":
    sys.exit(main())
