# `make image BOARD=rp2040_pico`: the project's own firmware image
# (host_tools/uthctl/firmware_image.py) -> build/images/<board>/firmware.uf2 and its .sha256.
import sys

from uthctl.firmware_image import main

if __name__ == "__main__":
    sys.exit(main())
