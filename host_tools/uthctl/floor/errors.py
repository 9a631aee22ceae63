# The floor's own errors: what its folder, accounts and page users refuse
# (a table's keys refuse with analysis/record_auth.py's KeyFileError). Each
# is an InputError (errors.py): a command reports it in one line, where a
# plain ValueError from a bug shows as the bug it is.
from ..errors import InputError


class FloorConfigError(InputError):
    # The floor's folder, database URL, time zone or broker user cannot be used.
    pass


class AccountError(InputError):
    # A broker account that cannot be made or found.
    pass


class UserError(InputError):
    # A floor page user, role or password that cannot be taken.
    pass

