"""fluid's pserver dispatchers: which parameter server each variable goes to."""

__all__ = ["PSDispatcher", "HashName", "RoundRobin"]


class PSDispatcher:
    def __init__(self, pserver_endpoints):
        if not isinstance(pserver_endpoints, (list, tuple)):
            raise TypeError(f"{type(self).__name__}: pserver_endpoints must be a list of endpoints, got "
                            f"{type(pserver_endpoints).__name__}")
        self._eps = list(pserver_endpoints)
        self._step = 0

    @property
    def eps(self):
        return self._eps

    def reset(self):
        self._step = 0

    def dispatch(self, varlist):
        raise NotImplementedError("Interface has not been implemented.")


class HashName(PSDispatcher):
    """By a hash of the variable's name. fluid used Python's ``hash``, which differs between processes; this
    uses a stable one (the sum of the name's character codes), so every trainer agrees."""

    def dispatch(self, varlist):
        return [self._eps[sum(ord(c) for c in var.name()) % len(self._eps)] for var in varlist]


class RoundRobin(PSDispatcher):
    """In turn, continuing from where the previous call stopped."""

    def dispatch(self, varlist):
        out = []
        for _ in varlist:
            out.append(self._eps[self._step])
            self._step = (self._step + 1) % len(self._eps)
        return out
