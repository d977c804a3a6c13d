"""compare_accuracy: read two tensor-checker logs (``[PRECISION] in [device=..., op=..., tensor=..., dtype=...],
numel=..., max=..., min=..., mean=...`` lines in <dir>/worker_*.log), pair their tensors op by op in run order
and write the comparison to an Excel file."""
import glob
import os
import re

import numpy as np

__all__ = ["TensorInfo", "parse_log", "compare_accuracy"]

_FIELD = re.compile(r"(device|op|tensor|dtype|numel|num_nan|num_inf|num_zero|max|min|mean)=([^,\]\s]*)")


class TensorInfo:
    """One checked tensor of a log line."""

    def __init__(self, fields):
        self.device = fields.get("device")
        self.op_type = fields.get("op")
        self.tensor_name = fields.get("tensor")
        self.dtype = fields.get("dtype")
        self.numel = int(fields.get("numel", 0))
        self.num_nan = int(fields.get("num_nan", 0))
        self.num_inf = int(fields.get("num_inf", 0))
        self.num_zero = int(fields.get("num_zero", 0))
        self.max_value, self.min_value, self.mean_value = (float(fields.get(k, "nan")) for k in ("max", "min", "mean"))

    def key(self):
        return f"{self.op_type}/{self.tensor_name}"


def parse_log(dump_path):
    """The TensorInfos of every worker_*.log under ``dump_path``, in file then line order."""
    files = sorted(glob.glob(os.path.join(dump_path, "worker_*.log")))
    if not files:
        raise ValueError(f"compare_accuracy: no worker_*.log file in {dump_path!r}; write one with "
                         "TensorCheckerConfig(enable=True, debug_mode=DebugMode.CHECK_ALL, output_dir=...)")
    infos = []
    for name in files:
        with open(name) as f:
            for line in f:
                if line.startswith("[PRECISION]"):
                    infos.append(TensorInfo(dict(_FIELD.findall(line))))
    return infos


def _ratio(a, b):
    return 1.0 if b == 0 else a / b


def _rows(infos, other_infos, loss_scale):
    by_op = {}
    for info in other_infos:
        by_op.setdefault(info.op_type, []).append(info)
    used = {}
    rows = []
    for info in infos:
        index = used.get(info.op_type, 0)
        candidates = by_op.get(info.op_type, [])
        other = candidates[index] if index < len(candidates) else None
        used[info.op_type] = index + 1
        scale = loss_scale if "GRAD" in (info.tensor_name or "") else 1.0
        row = [info.op_type, info.tensor_name, info.dtype, info.numel, info.max_value * scale,
               info.min_value * scale, info.mean_value]
        if other is None:
            row += [None] * 9
        else:
            row += [other.tensor_name, other.dtype, other.max_value, other.min_value, other.mean_value,
                    other.num_inf, other.num_nan, _ratio(other.max_value, info.max_value),
                    _ratio(other.mean_value, info.mean_value)]
        rows.append(row)
    return rows


_HEADER = ["op_type", "tensor", "dtype", "numel", "max", "min", "mean", "another tensor", "another dtype",
           "another max", "another min", "another mean", "another num_inf", "another num_nan",
           "max ratio", "mean ratio"]


def compare_accuracy(dump_path, another_dump_path, output_filename, loss_scale=1):
    try:
        import xlsxwriter
    except ImportError:
        raise ImportError("compare_accuracy writes an Excel file with the xlsxwriter package, which is not "
                          "installed (pip install xlsxwriter)") from None
    rows = _rows(parse_log(dump_path), parse_log(another_dump_path), float(loss_scale))
    workbook = xlsxwriter.Workbook(output_filename)
    try:
        sheet = workbook.add_worksheet("compare")
        bad = workbook.add_format({"bg_color": "#FFC7CE"})
        sheet.write_row(0, 0, _HEADER)
        for i, row in enumerate(rows, start=1):
            clean = [None if isinstance(v, float) and not np.isfinite(v) else v for v in row]
            broken = row[12] or row[13]
            sheet.write_row(i, 0, clean, bad if broken else None)
    finally:
        workbook.close()
