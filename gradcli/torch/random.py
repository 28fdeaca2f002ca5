"""`torch.random`: PyTorch's CPU generator bit for bit, its mt19937 engine and generator state
(CPUGeneratorImpl: the 5056-byte state of get_rng_state), torch.Generator, and manual_seed,
seed, initial_seed, get_rng_state, set_rng_state and fork_rng. The kernels that turn its
words into tensors are in _distribution_kernels (loaded on first use).
"""
from __future__ import annotations

import os

import numpy as np

from .. import engine as _E
from ..engine import CONFIG, TensorBase
from . import _Context             # (defined before gradcli.torch imports this module)
from ..engine import BY_NAME, TorchNotImplementedError, TorchRuntimeError, TorchTypeError, TorchValueError

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

default_rng_seed_val = 67280421310721

_N, _M = 624, 397
_MATRIX_A, _UMASK, _LMASK = np.uint32(0x9908B0DF), np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
_STATE_SIZE = 5056           # sizeof(CPUGeneratorImplState) on a 64-bit build


def _init_genrand(seed):
    """at::mt19937's seeding: the standard init_genrand on the seed's low 32 bits."""
    key = [seed & 0xFFFFFFFF]
    for j in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


def _twist(s):
    """at::mt19937::next_state on a whole state array: every twist term reads the old state
    except the last one's, and each new word also needs the one 397 places on (old) or 227
    places back (new), so three vector steps rebuild the array."""
    y = (s[:-1] & _UMASK) | (s[1:] & _LMASK)
    mag = (y >> np.uint32(1)) ^ ((s[1:] & np.uint32(1)) * _MATRIX_A)
    n = np.empty(_N, np.uint32)
    k = _N - _M
    n[:k] = s[_M:] ^ mag[:k]
    n[k:2 * k] = n[:k] ^ mag[k:2 * k]
    n[2 * k:_N - 1] = n[k:_M - 1] ^ mag[2 * k:]
    last = (int(s[-1]) & 0x80000000) | (int(n[0]) & 0x7FFFFFFF)
    n[-1] = int(n[_M - 1]) ^ (last >> 1) ^ (0x9908B0DF if int(n[0]) & 1 else 0)
    return n


def _temper(y):
    """mt19937's output tempering, on a uint32 array (word by word in Python for a few)."""
    if y.size <= 16:
        return np.array([_temper_word(int(w)) for w in y], np.uint32)
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def _temper_word(y):
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


_BULK = 8 * _N          # from this many words on, NumPy's own MT19937 (same algorithm, in C) twists


class _Engine:
    """at::mt19937: the state array with PyTorch's `left` and `next` counters."""

    __slots__ = ("seed", "key", "left", "next")

    def __init__(self, seed):
        self.seed = seed
        self.key = _init_genrand(seed)
        self.left, self.next = 1, 0

    def copy(self):
        e = _Engine.__new__(_Engine)
        e.seed, e.key, e.left, e.next = self.seed, self.key.copy(), self.left, self.next
        return e

    def words(self, n):
        """The next n outputs (uint32), as at::mt19937::operator() gives them one by one."""
        raw, bulk = [], None
        while n:
            take = min(n, self.left - 1)
            if take:
                raw.append(self.key[self.next:self.next + take])
                self.left -= take
                self.next += take
                n -= take
            if n >= _BULK:
                bulk = self._bulk(n)
                break
            if n:
                self.key = _twist(self.key)
                self.left, self.next = _N + 1, 0
        out = _temper(raw[0] if len(raw) == 1 else np.concatenate(raw)) if raw else np.empty(0, np.uint32)
        return out if bulk is None else np.concatenate([out, bulk])

    def _bulk(self, n):
        """n outputs, from a state whose block is used up, by NumPy's MT19937 (the same
        algorithm, in C): for large tensors."""
        from numpy.random import MT19937
        bg = MT19937(0)
        bg.state = {"bit_generator": "MT19937", "state": {"key": self.key, "pos": _N}}
        vals = bg.random_raw(n).astype(np.uint32)
        st = bg.state["state"]
        pos = int(st["pos"])
        self.key = np.array(st["key"], np.uint32)
        self.left, self.next = _N + 1 - pos, pos
        return vals


# ----------------------------------------------------------------------------- generators


def _nondeterministic_seed():
    """c10::detail::getNonDeterministicRandom: 64 bits from /dev/urandom."""
    return int.from_bytes(os.urandom(8), "little")


def _seed_value(seed):
    """Generator.manual_seed's argument: a Python int (not bool) in [-2**63, 2**64)."""
    if type(seed) is bool or not isinstance(seed, int):
        raise TorchRuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    if not -2 ** 63 <= seed < 2 ** 64:
        raise TorchValueError("Overflow when unpacking long long")
    return seed & 0xFFFFFFFFFFFFFFFF


_LAZY = object()      # marks the default generator, seeded on first use


class Generator:
    """torch.Generator (CPU): PyTorch's mt19937 engine and the cached second normal sample."""

    __module__ = "torch._C"
    __slots__ = ("_eng", "_next_double", "_next_float", "__weakref__")

    def __init__(self, device="cpu"):
        if device is not _LAZY and str(device) != "cpu":
            raise TorchRuntimeError(f"Device type {str(device).upper()} is not supported for torch.Generator() api.")
        self._eng = None if device is _LAZY else _Engine(default_rng_seed_val)
        self._next_double = self._next_float = None

    @property
    def _engine(self):
        if self._eng is None:          # the default generator: seeded on first use, as PyTorch's at start
            self._eng = _Engine(_nondeterministic_seed())
        return self._eng

    device = property(lambda self: "cpu")         # what gradcli's tensors give for .device

    def __repr__(self):
        return f"<torch._C.Generator object at {_E._fake_address(self)}>"

    def manual_seed(self, *args, **kwargs):
        """A method of a C type: one positional argument, no keywords."""
        if kwargs:
            raise TorchTypeError("Generator.manual_seed() takes no keyword arguments")
        if len(args) != 1:
            raise TorchTypeError(f"Generator.manual_seed() takes exactly one argument ({len(args)} given)")
        self._set_seed(_seed_value(args[0]))
        return self

    def _set_seed(self, seed):
        self._eng = _Engine(seed)
        self._next_double = self._next_float = None

    def seed(self):
        s = _nondeterministic_seed()
        self._set_seed(s)
        return s

    def initial_seed(self):
        return self._engine.seed

    def get_state(self):
        e = self._engine
        buf = bytearray(_STATE_SIZE)
        header = np.frombuffer(buf, np.uint64, 3 + _N)
        header[0], header[2] = e.seed, e.next
        header[3:] = e.key
        np.frombuffer(buf, np.int32, 2, 8)[:] = (e.left, 1)
        if self._next_double is not None:
            np.frombuffer(buf, np.float64, 1, 5024)[0] = self._next_double
            np.frombuffer(buf, np.int32, 1, 5040)[0] = 1
        if self._next_float is not None:
            np.frombuffer(buf, np.float32, 1, 5048)[0] = self._next_float
            buf[5052] = 1
        return CONFIG.tensor(np.frombuffer(bytes(buf), np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, TensorBase):
            raise TorchTypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        arr = new_state._data
        if arr.dtype != np.uint8:
            raise TorchTypeError("RNG state must be a torch.ByteTensor")
        if not arr.flags.c_contiguous:
            raise TorchRuntimeError("RNG state must be contiguous")
        if arr.size != _STATE_SIZE:
            raise TorchRuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input "
                                    f"RNG state size to be {arr.size}")
        buf = arr.reshape(-1).tobytes()
        seed, nxt = np.frombuffer(buf, np.uint64, 3)[[0, 2]]
        left, seeded = np.frombuffer(buf, np.int32, 2, 8)
        nxt = int(nxt) & 0xFFFFFFFF
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise TorchRuntimeError("Invalid mt19937 state")
        e = _Engine.__new__(_Engine)
        e.seed, e.left, e.next = int(seed), int(left), nxt
        e.key = np.frombuffer(buf, np.uint64, _N, 24).astype(np.uint32)
        self._eng = e
        self._next_double = float(np.frombuffer(buf, np.float64, 1, 5024)[0]) \
            if np.frombuffer(buf, np.int32, 1, 5040)[0] else None
        self._next_float = float(np.frombuffer(buf, np.float32, 1, 5048)[0]) if buf[5052] else None
        return self

    def clone_state(self):
        g = Generator()
        g._eng, g._next_double, g._next_float = self._engine.copy(), self._next_double, self._next_float
        return g

    def get_offset(self):
        raise TorchRuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise TorchRuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        raise TorchNotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise TorchNotImplementedError("graphsafe_set_state is not supported in this Generator")

    # -- raw numbers, as CPUGeneratorImpl::random() and random64() give them
    def _random(self, n):
        return self._engine.words(n)

    def _random64(self, n):
        w = self._engine.words(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]


default_generator = Generator(_LAZY)


def _gen(generator):
    """get_generator_or_default: the generator= argument, or the default one."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TorchTypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator

# ----------------------------------------------------------------------------- torch.random


def manual_seed(seed):
    """torch.manual_seed / torch.random.manual_seed: `int(seed)` first, as PyTorch does."""
    try:
        seed = int(seed)
    except (TypeError, ValueError, OverflowError) as e:        # (int()'s own error, as the script's)
        raise BY_NAME[type(e).__name__](str(e)) from None
    if not -2 ** 63 <= seed < 2 ** 64:
        raise TorchValueError("Overflow when unpacking long long")
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


class fork_rng(_Context):
    """torch.random.fork_rng: the CPU generator's state is restored when the block ends (there
    are no other devices)."""

    _qualname = "contextlib._GeneratorContextManager"

    def __init__(self, devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.state = get_rng_state()

    def __exit__(self, *exc):
        if self.enabled:
            set_rng_state(self.state)
        return False
