"""The one exception users see for bad input."""


class SpecError(ValueError):
    """Invalid spec, CDF file or trace: the message names what is wrong."""
