# The one error uthctl reports as a message and exit status 2. Each command
# converts into it what it expects to go wrong (a port that is not there, a
# board's refusal, a file that is not a log), as mpremote's commands raise
# CommandError; any other exception is a bug in uthctl, which the entry point
# names as one, and shows with its traceback under --debug (cli.py).
import contextlib
import functools


class UthctlError(Exception):
    pass


class Refusal(UthctlError):
    # The board refused a command, or uthctl refused to send it: nothing changed.
    # Two names for two sides, on purpose: the board's `Refused`
    # (firmware/mystery/refusal.py) is raised inside the firmware and becomes a
    # reply's "error"; this is the host's report of such a reply, or of its own
    # refusal, to the user, and is one of uthctl's errors.
    pass


class BoardRefusal(Refusal):
    # The board refused a request, or its answer cannot be taken (an export
    # cut short, a line that is no log record, a log that does not end at
    # the meter's head): the link works, this answer does not, and asking
    # again later may do. Its own type, so that a loop that asks again (the
    # bridge) catches it alone, and a bug (a ValueError, a KeyError) ends
    # the loop with its traceback rather than being retried for ever.
    pass


class InputError(UthctlError, ValueError):
    # What the user gave (a file, an argument, a setting) cannot be taken.
    # Still a ValueError, so that a caller that caught one before goes on
    # catching it; a plain ValueError is a bug, and @expecting never lists it.
    pass


@contextlib.contextmanager
def taken_as(what):
    # Around one call that parses the user's input with a parser that says
    # "bad input" with a plain ValueError (the firmware's, MicroPython's
    # way): that ValueError becomes an InputError naming `what`. Keep the
    # block to the parse alone, so that a bug's ValueError elsewhere stays one.
    try:
        yield
    except InputError:
        raise
    except ValueError as error:
        raise InputError("%s: %s" % (what, error) if what else str(error)) from error


def expecting(*kinds):
    # Wraps a command's run(args): an exception of `kinds` is one of the
    # failures the command expects, and reaches the user as an UthctlError
    # with its message.
    def wrap(run):
        @functools.wraps(run)
        def converted(args):
            try:
                return run(args)
            except (UthctlError, BrokenPipeError):
                raise  # a reader gone (`| head`) is the entry point's, not an error
            except kinds as error:
                raise UthctlError(str(error) or type(error).__name__) from error
        return converted
    return wrap
