# /boot.py on the emulated ESP32's flash only (host_tools/uthctl/boards/esp32_flash.py
# writes it there; never part of a build the project ships): the bus stand-ins
# (standin.py) in place of machine's I2C, SPI and stood-in Pins before main.py
# imports the shipped board file.
import standin

standin.install()
