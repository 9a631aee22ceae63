# Why an operation on the meter was not done. Its own module so that the
# meter and the table's settings (settings.py), which the meter keeps, can
# both raise it.


class Refused(Exception):
    # The operation is not allowed now, or its input is wrong; nothing was
    # changed. Not a ValueError: a ValueError from a bug is never taken for a
    # refusal.
    pass
