# What the host computes about the game and the bonus: par sheets, the Bad
# Beat's exact count, the Mystery bonus simulated, and the board's log read
# back and verified.
