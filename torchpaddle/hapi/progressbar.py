"""The text progress bar that ``ProgBarLogger`` draws (Paddle's exact line format)."""
import os
import shutil
import struct
import sys
import time

import numpy as np

__all__ = []

_FLOATS = (float, np.float32, np.float64)


def _format_value(v, arrays=False):
    if isinstance(v, _FLOATS):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    # Only the one-line-per-step mode unwraps one-element float arrays, as Paddle does.
    if arrays and isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
        v = v.item()
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return f" {v}"


def _bf16_bits_to_float(values):
    values = np.asarray(values)
    out = [struct.unpack("<f", struct.pack("<I", int(x) << 16))[0] for x in values.flat]
    return list(np.asarray(out, dtype=np.float32).reshape(values.shape))


class ProgressBar:
    """``verbose=1``: a bar redrawn in place; ``verbose=2``/``3``: one line per update."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=sys.stdout, name="step"):
        self._num = num
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._width = min(width, self._get_max_width())
        self._total_width = 0
        self._verbose = verbose
        self.file = file
        self._values = {}
        self._values_order = []
        if start:
            self._start = time.time()
        self._last_update = 0
        self.name = name
        # NOTE: Paddle redraws in place whenever the 'posix' module is loaded, i.e. always on Linux/macOS,
        # TTY or not; only elsewhere does a non-TTY get one line per update.
        self._dynamic_display = ((hasattr(self.file, "isatty") and self.file.isatty())
                                 or "ipykernel" in sys.modules or "posix" in sys.modules
                                 or "PYCHARM_HOSTED" in os.environ)

    @staticmethod
    def _get_max_width():
        columns = shutil.get_terminal_size().columns
        columns = columns if columns > 0 else 80
        return min(int(columns * 0.6), columns - 50)

    def start(self):
        self.file.flush()
        self._start = time.time()

    def _rate(self, per_unit):
        if per_unit >= 1 or per_unit == 0:
            return f" - {per_unit:.0f}s/{self.name}"
        if per_unit >= 1e-3:
            return f" - {per_unit * 1e3:.0f}ms/{self.name}"
        return f" - {per_unit * 1e6:.0f}us/{self.name}"

    def update(self, current_num, values={}):  # noqa: B006 (Paddle's signature; never mutated when empty)
        now = time.time()
        for i, (key, val) in enumerate(values):
            # bfloat16 losses arrive as their raw uint16 bits
            if key == "loss" and isinstance(val[0] if isinstance(val, list) else val, np.uint16):
                values[i] = ("loss", _bf16_bits_to_float(val))
        per_unit = (now - self._start) / current_num if current_num else 0
        rate = self._rate(per_unit)
        # Paddle writes to sys.stdout itself (not ``self.file``), so redirecting stdout captures the bar.
        out = sys.stdout
        if self._verbose == 1:
            self._draw_bar(out, current_num, values, per_unit, rate)
            self._last_update = now
        elif self._verbose in (2, 3):
            if self._num:
                digits = int(np.log10(self._num)) + 1
                line = f"{self.name} {current_num:{digits}d}/{self._num}"
            else:
                line = f"{self.name} {current_num:3}"
            for key, val in values:
                line += f" - {key}:" + "".join(_format_value(v, arrays=True)
                                                for v in (val if isinstance(val, list) else [val]))
            out.write(line + rate + "\n")
            out.flush()

    def _draw_bar(self, out, current_num, values, per_unit, rate):
        prev_total_width = self._total_width
        if self._dynamic_display:
            out.write("\b" * prev_total_width)
            out.write("\r")
        else:
            out.write("\n")
        if self._num is not None:
            digits = int(np.log10(self._num)) + 1
            bar = f"{self.name} {current_num:{digits}d}/{self._num} ["
            filled = int(self._width * (float(current_num) / self._num))
            if filled > 0:
                bar += "=" * (filled - 1) + (">" if current_num < self._num else "=")
            bar += "." * (self._width - filled) + "]"
        else:
            bar = f"{self.name} {current_num:3}"
        self._total_width = len(bar)
        out.write(bar)
        info = ""
        for key, val in values:
            info += f" - {key}:" + "".join(_format_value(v) for v in (val if isinstance(val, list) else [val]))
        if self._num is not None and current_num < self._num:
            eta = int(per_unit * (self._num - current_num))
            if eta > 3600:
                eta_text = f"{eta // 3600}:{(eta % 3600) // 60:02}:{eta % 60:02}"
            elif eta > 60:
                eta_text = f"{eta // 60}:{eta % 60:02}"
            else:
                eta_text = f"{eta}s"
            info += f" - ETA: {eta_text}"
        info += rate
        self._total_width += len(info)
        if prev_total_width > self._total_width:
            info += " " * (prev_total_width - self._total_width)
        if self._num is None or current_num >= self._num:
            info += "\n"
        out.write(info)
        out.flush()
