# The floor's demo (make floor-demo) and the virtual tables it and the floor's
# tests play on: development tools, kept out of the shipped uthctl package.
