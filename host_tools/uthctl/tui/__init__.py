# uthctl sim's interactive table in a terminal (curses).
