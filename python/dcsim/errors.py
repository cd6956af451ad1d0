"""The one exception users see for bad input, and the warning category of
runs that work but may not mean what was asked."""

import warnings


class SpecError(ValueError):
    """Invalid spec, CDF file or trace: the message names what is wrong."""


class DcsimWarning(UserWarning):
    """A run that works but may not mean what was asked: flows left
    unfinished, a scheme run against its grain (HPCC over per-packet
    spraying). The command line prints it as ``dcsim: warning: ...``; in
    Python, `warnings.filterwarnings` can silence it."""


# every one is shown, not just the first from each line of dcsim (two runs
# in one notebook each say what they left unfinished); appended, so a
# user's own filters (-W, PYTHONWARNINGS, simplefilter) still win
warnings.filterwarnings("always", category=DcsimWarning, append=True)


def warn(msg: str) -> None:
    """Issue `msg` as a `DcsimWarning` (from the caller's caller)."""
    warnings.warn(msg, DcsimWarning, stacklevel=3)
