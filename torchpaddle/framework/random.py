"""Random state: ``paddle.seed``, the default generators and their states, over torch's default generators.

Every random op draws from torch's default generator of its device, so seeding here makes a run repeat,
in this process and in a fresh one. Like Paddle, an unseeded process starts from a random seed.
"""
import os

import torch

from .place import Place, current_torch_device, to_torch_device

__all__ = ["seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state", "set_cuda_rng_state", "Generator"]

_MAX_SEED = 2 ** 64
# Called as hook(seed) after paddle.seed; the static layer registers one to set Program.random_seed.
SEED_HOOKS = []


class GeneratorState:
    """A snapshot of one generator (Paddle's ``core.GeneratorState``); pickles as bytes."""
    __slots__ = ("_state", "_seed", "_device")

    def __init__(self, state, seed, device="cpu"):
        self._state, self._seed, self._device = state, seed, device

    def current_seed(self):
        return self._seed

    def __getstate__(self):
        return {"state": bytes(self._state.cpu().numpy().tobytes()), "seed": self._seed, "device": self._device}

    def __setstate__(self, value):
        self._state = torch.frombuffer(bytearray(value["state"]), dtype=torch.uint8).clone()
        self._seed, self._device = value["seed"], value["device"]

    def __deepcopy__(self, memo):
        return GeneratorState(self._state.clone(), self._seed, self._device)

    def __repr__(self):
        return f"GeneratorState(device={self._device}, seed={self._seed})"


def _check_seed(value, api):
    value = int(value)
    if not 0 <= value < _MAX_SEED:
        raise TypeError(f"{api}: the seed must be an integer in [0, 2**64), got {value}")
    return value


class _DefaultGenerator:
    """Paddle's ``core.Generator`` for one device, wrapping that device's torch default generator."""
    __slots__ = ("_device",)

    def __init__(self, device):
        self._device = device

    @property
    def _torch(self):
        if self._device.type == "cuda":
            torch.cuda.init()
            return torch.cuda.default_generators[self._device.index or 0]
        return torch.default_generator

    def manual_seed(self, seed):
        self._torch.manual_seed(_check_seed(seed, "Generator.manual_seed"))
        return self

    def initial_seed(self):
        return self._torch.initial_seed()

    def seed(self):
        """Seed from a non-deterministic source; returns the new seed."""
        return self._torch.seed()

    def random(self):
        """A random 64-bit unsigned integer, advancing the generator."""
        high, low = torch.randint(0, 2 ** 32, (2,), dtype=torch.int64, generator=self._torch,
                                  device=self._device).tolist()
        return (high << 32) | low

    def get_state(self):
        g = self._torch
        return GeneratorState(g.get_state(), g.initial_seed(), str(self._device))

    def set_state(self, state):
        self._torch.set_state(_raw_state(state, "Generator.set_state"))

    def __repr__(self):
        return f"Generator(device={self._device})"


def _raw_state(state, api):
    if isinstance(state, GeneratorState):
        return state._state
    if isinstance(state, torch.Tensor) and state.dtype is torch.uint8:
        return state
    raise TypeError(f"{api}: expected a GeneratorState from get_rng_state/get_state, got {type(state).__name__}")


_GENERATORS = {}


def _default_generator(device):
    key = (device.type, device.index or 0)
    g = _GENERATORS.get(key)
    if g is None:
        g = _GENERATORS[key] = _DefaultGenerator(torch.device(device.type, device.index or 0)
                                                 if device.type == "cuda" else torch.device("cpu"))
    return g


class Generator:
    """``paddle.Generator(device=None)``: the default generator of a device (the current one if None)."""

    def __new__(cls, device=None):
        if isinstance(device, int) and not isinstance(device, bool):
            device = f"gpu:{device}"
        return _default_generator(current_torch_device() if device is None else to_torch_device(device))


def _cuda_count():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def seed(seed):
    """Seed every default generator (CPU and each GPU); returns the CPU generator."""
    value = _check_seed(seed, "seed")
    torch.manual_seed(value)
    for hook in SEED_HOOKS:
        hook(value)
    return _default_generator(torch.device("cpu"))


def _devices(device, api):
    if device is None:
        target = current_torch_device()
    elif isinstance(device, (str, Place)):
        target = to_torch_device(device)
    else:
        raise ValueError(f"{api}: device must be a str like 'cpu' or 'gpu', or a Place, got {type(device).__name__}")
    if target.type == "cuda":
        return [torch.device("cuda", i) for i in range(_cuda_count())]
    return [torch.device("cpu")]


def get_rng_state(device=None):
    """States of the default generators of ``device`` (the current device if None): one for CPU, one per GPU."""
    return [_default_generator(d).get_state() for d in _devices(device, "get_rng_state")]


def set_rng_state(state_list, device=None):
    devices = _devices(device, "set_rng_state")
    states = list(state_list)
    if len(states) != len(devices):
        kind = "cpu" if devices[0].type == "cpu" else "cuda"
        raise ValueError(f"set_rng_state: length of {kind} state list should be equal to {len(devices)}, "
                         f"got {len(states)}")
    for d, s in zip(devices, states):
        _default_generator(d).set_state(s)


def get_cuda_rng_state():
    """One state per visible GPU; an empty list without CUDA."""
    return [_default_generator(torch.device("cuda", i)).get_state() for i in range(_cuda_count())]


def set_cuda_rng_state(state_list):
    """Restore get_cuda_rng_state's list; without CUDA this does nothing, as in Paddle."""
    count = _cuda_count()
    if not count:
        return
    states = list(state_list)
    if len(states) != count:
        raise ValueError(f"set_cuda_rng_state: length of cuda state list should be equal to the cuda device count "
                         f"({count}), got {len(states)}")
    for i, s in enumerate(states):
        _default_generator(torch.device("cuda", i)).set_state(s)


# Like Paddle, an unseeded process draws a fresh seed: runs repeat only after paddle.seed.
torch.manual_seed(int.from_bytes(os.urandom(8), "little") >> 12)
