# The event stream's one builder: a thread makes the floor's view once an
# interval and every viewer's stream waits for a newer one, so the database
# sees the same few queries whether one screen watches or a hundred. The
# thread starts with the first viewer and ends when no viewer has asked for
# IDLE_TICKS intervals (or when `stopping` is set).
import threading
import time

IDLE_TICKS = 6


class Broadcast:
    def __init__(self, build, every_s, stopping=None, log=None):
        # build(): the view (anything comparable with ==); log(text): a
        # build that failed, said (the viewers keep the last view).
        self.build = build
        self.every_s = every_s
        self.stopping = stopping or threading.Event()
        self.log = log or (lambda text: None)
        self.changed = threading.Condition()
        self.version, self.view = 0, None
        self.asked_at = time.monotonic()
        self.thread = None

    def newer_than(self, version, wait_s):
        # (version, view): the first view newer than `version`, or after
        # wait_s the one there is.
        with self.changed:
            self.asked_at = time.monotonic()
            if self.thread is None:
                self._publish(self.build())  # the first viewer waits for no tick
                self.thread = threading.Thread(target=self._run, daemon=True,
                                               name="floor-page-broadcast")
                self.thread.start()
            self.changed.wait_for(lambda: self.version != version or self.stopping.is_set(),
                                  wait_s)
            return self.version, self.view

    def _run(self):
        while not self.stopping.wait(self.every_s):
            with self.changed:
                if time.monotonic() - self.asked_at > IDLE_TICKS * self.every_s:
                    self.thread = None  # the next viewer starts another
                    return
            try:
                view = self.build()
            except Exception as error:  # noqa: BLE001 -- the database away: said, and on
                self.log("the floor page's view was not built: %s: %s"
                         % (type(error).__name__, error))
                continue
            with self.changed:
                self._publish(view)
        with self.changed:
            self.thread = None
            self.changed.notify_all()

    def join(self, timeout_s):
        # Waits for the builder to end (after `stopping` is set): no build
        # then outlives the database it reads.
        thread = self.thread
        if thread is not None:
            thread.join(timeout_s)

    def _publish(self, view):
        # Called holding self.changed.
        if view != self.view:
            self.version, self.view = self.version + 1, view
            self.changed.notify_all()
