# Why an operation on the meter was not done. Its own module so that the
# meter and the table's settings (settings.py), which the meter keeps, can
# both raise it.


class Refused(ValueError):
    # The operation is not allowed now; nothing was changed.
    pass
