#!/usr/bin/python3
"""Debian's Patroni (3.0.2) with one race closed, for scripts/ha-drill.sh.

When a primary's Patroni loses its DCS it demotes itself (`demote('offline')`: stop
PostgreSQL, start it again as a standby) on its asynchronous executor. If that stop
takes longer than one `loop_wait` -- and under a network partition it takes as long as
the walsenders wait for the unreachable standbys -- the next HA cycle meets the same
DCS error, finds the executor busy and demotes again from the main thread ("AsyncExecutor
is busy, demoting from the main thread"; Patroni's own FIXME in `Ha.demote`, upstream
pull request patroni/patroni#3372). Both demotes start a postmaster: one wins the lock
file, Patroni records the pid of the one that lost, and the winner runs on unmanaged.
The drills showed where that ends (docs/SCALING.md, "The drills"): Patroni removes the
data directory under the unmanaged postmaster after its rewind fails, clones a new one,
cannot start it (the port is taken), runs "crash recovery in a single user mode" on the
fresh base backup -- which ends its recovery on the primary's own timeline and writes a
shutdown checkpoint there -- and the node later streams on from a position it never
had, missing pages of committed rows. Promoted, it loses acknowledged writes.

The fix here, the one upstream proposes: while an asynchronous action (that demote, or
any other) is running, a DCS error does not start a second demote from the main
thread; the next cycle, once the executor is free, decides again.

Usage: ha-patroni.py CONFIG.yml (as `patroni CONFIG.yml`).
"""

import logging
import sys

from patroni.__main__ import main
from patroni.ha import Ha

logger = logging.getLogger("patroni.ha")
_handle_dcs_error = Ha._handle_dcs_error


def handle_dcs_error(self):
    busy = self._async_executor.scheduled_action
    if busy is not None and not self.is_paused():
        logger.warning("DCS is not accessible; not demoting while %r runs", busy)
        return "DCS is not accessible; waiting for " + busy
    return _handle_dcs_error(self)


Ha._handle_dcs_error = handle_dcs_error

if __name__ == "__main__":
    sys.argv[0] = "patroni"
    sys.exit(main())
