"""Paddle's tensor stream: what `.pdiparams`, `save_combine`/`load_combine` and `save`/`load` ops hold.

Each tensor, little-endian, back to back:

    uint32 version (0)                      the LoD tensor's version
    uint64 lod_level, then per level:       uint64 byte size, that many bytes of uint64 offsets
    uint32 version (0)                      the dense tensor's version
    int32  desc_size, desc_size bytes       a VarType.TensorDesc protobuf (data type, dims)
    numel * element size bytes              the data, C order

bfloat16 has no NumPy dtype; as in Paddle, it reads as uint16 bits and a plain uint16 array writes as
bfloat16. float8 reads as uint8 bits. `TensorRecord` keeps the exact VarType (and the LoD) where that
matters: a real UINT16 tensor, float8, or a round trip that must be byte-identical.

The one codec of this format: `paddle.save`/`paddle.load` of a single tensor and the static `.pdiparams`
files both use it. The two-field TensorDesc is read and written by hand (as protobuf lays it out), so the
framework layer needs no generated protobuf module.
"""
import collections
import struct

import numpy as np

__all__ = ["VarType", "TensorRecord", "DTYPES", "dtype_name", "dtype_code", "read_tensor", "read_records",
           "read_tensors", "write_tensor", "write_tensors"]

class VarType:
    """The element types of Paddle's ``VarType.Type`` enum (framework.proto)."""
    BOOL, INT16, INT32, INT64, FP16, FP32, FP64 = 0, 1, 2, 3, 4, 5, 6
    SIZE_T, UINT8, INT8, BF16, COMPLEX64, COMPLEX128 = 19, 20, 21, 22, 23, 24
    FP8_E4M3FN, FP8_E5M2, UINT16, UINT32, UINT64 = 32, 33, 36, 37, 38


# every VarType name, for error messages about a type that is not an element type
_TYPE_NAMES = {v: k for k, v in vars(VarType).items() if k.isupper()}
_TYPE_NAMES.update({7: "DENSE_TENSOR", 8: "SELECTED_ROWS", 9: "FEED_MINIBATCH", 10: "FETCH_LIST",
                    11: "STEP_SCOPES", 12: "LOD_RANK_TABLE", 13: "DENSE_TENSOR_ARRAY", 14: "PLACE_LIST",
                    15: "READER", 17: "RAW", 18: "TUPLE", 25: "STRING", 26: "STRINGS", 27: "VOCAB",
                    28: "FEED_LIST", 29: "PSTRING", 30: "SPARSE_COO", 31: "SPARSE_CSR"})

# VarType element type -> (Paddle dtype name, NumPy dtype of the stored bytes)
DTYPES = {
    VarType.BOOL: ("bool", np.dtype("bool")),
    VarType.INT8: ("int8", np.dtype("int8")),
    VarType.UINT8: ("uint8", np.dtype("uint8")),
    VarType.INT16: ("int16", np.dtype("<i2")),
    VarType.UINT16: ("uint16", np.dtype("<u2")),
    VarType.INT32: ("int32", np.dtype("<i4")),
    VarType.UINT32: ("uint32", np.dtype("<u4")),
    VarType.INT64: ("int64", np.dtype("<i8")),
    VarType.UINT64: ("uint64", np.dtype("<u8")),
    VarType.SIZE_T: ("size_t", np.dtype("<u8")),
    VarType.FP16: ("float16", np.dtype("<f2")),
    VarType.BF16: ("bfloat16", np.dtype("<u2")),
    VarType.FP32: ("float32", np.dtype("<f4")),
    VarType.FP64: ("float64", np.dtype("<f8")),
    VarType.COMPLEX64: ("complex64", np.dtype("<c8")),
    VarType.COMPLEX128: ("complex128", np.dtype("<c16")),
    VarType.FP8_E4M3FN: ("float8_e4m3fn", np.dtype("uint8")),
    VarType.FP8_E5M2: ("float8_e5m2", np.dtype("uint8")),
}
_BY_NAME = {name: code for code, (name, _) in DTYPES.items()}
# NumPy dtype -> VarType when an array comes without one; uint16 is bfloat16, as paddle.to_tensor has it
_FROM_NUMPY = {np.dtype(n): c for n, c in [
    ("bool", VarType.BOOL), ("int8", VarType.INT8), ("uint8", VarType.UINT8), ("int16", VarType.INT16),
    ("uint16", VarType.BF16), ("int32", VarType.INT32), ("uint32", VarType.UINT32),
    ("int64", VarType.INT64), ("uint64", VarType.UINT64), ("float16", VarType.FP16),
    ("float32", VarType.FP32), ("float64", VarType.FP64), ("complex64", VarType.COMPLEX64),
    ("complex128", VarType.COMPLEX128)]}

_U32, _I32, _U64 = struct.Struct("<I"), struct.Struct("<i"), struct.Struct("<Q")
_TENSOR_VERSION = 0


def dtype_name(code):
    """VarType element type -> Paddle dtype name ('float32', 'bfloat16'...)."""
    try:
        return DTYPES[code][0]
    except KeyError:
        raise ValueError(f"VarType {_type_label(code)} is not a tensor element type") from None


def dtype_code(dtype):
    """Paddle dtype name, NumPy dtype or VarType number -> VarType element type.

    Names invert dtype_name ('uint16' is UINT16); a NumPy uint16 dtype is bfloat16, as Paddle reads arrays."""
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        if int(dtype) in DTYPES:
            return int(dtype)
        raise ValueError(f"VarType {_type_label(dtype)} is not a tensor element type")
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        name = None  # NumPy's convention below, not the names
    else:
        name = getattr(dtype, "name", dtype)
    if isinstance(name, str):
        name = {"paddle." + n: n for n in _BY_NAME}.get(name, name)
        if name in _BY_NAME:
            return _BY_NAME[name]
    try:
        return _FROM_NUMPY[np.dtype(dtype).newbyteorder("=")]
    except (TypeError, KeyError):
        raise TypeError(f"dtype {dtype!r} has no Paddle tensor type") from None


def _type_label(code):
    name = _TYPE_NAMES.get(code)
    return f"{name} ({code})" if name else str(code)


class TensorRecord(collections.namedtuple("TensorRecord", ["array", "data_type", "lod"])):
    """One stored tensor: NumPy array (raw bits for bfloat16/float8), VarType element type, LoD levels."""

    __slots__ = ()

    def __new__(cls, array, data_type=None, lod=()):
        array = np.asarray(array)
        code = dtype_code(array.dtype) if data_type is None else dtype_code(data_type)
        return super().__new__(cls, array, code, tuple(tuple(int(i) for i in level) for level in lod))

    @property
    def dtype(self):
        """Paddle dtype name."""
        return DTYPES[self.data_type][0]


# -- TensorDesc: field 1 data_type (varint), field 2 dims (repeated int64) --------------------------------
def _varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tensor_desc(data_type, dims):
    return b"\x08" + _varint(data_type) + b"".join(b"\x10" + _varint(d) for d in dims)


def _read_varint(buf, pos, end, where):
    value = shift = 0
    while pos < end and shift < 70:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise ValueError(f"tensor stream: corrupt TensorDesc at offset {where}: bad varint")


def _int64(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def _parse_tensor_desc(buf, start, end):
    """(data_type, dims) of the TensorDesc in ``buf[start:end]``; unknown fields are skipped as protobuf does."""
    data_type, dims, pos = None, [], start
    while pos < end:
        key, pos = _read_varint(buf, pos, end, start)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(buf, pos, end, start)
            if field == 1:
                data_type = value
            elif field == 2:
                dims.append(_int64(value))
        elif wire == 2:
            size, pos = _read_varint(buf, pos, end, start)
            if size > end - pos:
                raise ValueError(f"tensor stream: corrupt TensorDesc at offset {start}: truncated field {field}")
            if field == 2:          # packed dims
                inner, stop = pos, pos + size
                while inner < stop:
                    value, inner = _read_varint(buf, inner, stop, start)
                    dims.append(_int64(value))
            pos += size
        elif wire in (1, 5) and (8 if wire == 1 else 4) <= end - pos:
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"tensor stream: corrupt TensorDesc at offset {start}: bad field {field} "
                             f"(wire type {wire})")
        if field == 0:
            raise ValueError(f"tensor stream: corrupt TensorDesc at offset {start}: field number 0")
    if data_type is None:
        raise ValueError(f"tensor stream: corrupt TensorDesc at offset {start}: no data type")
    return data_type, tuple(dims)


# -- reading ---------------------------------------------------------------------------------------------
def _as_buffer(data):
    if isinstance(data, (bytes, bytearray, memoryview)):
        return memoryview(data).cast("B")
    read = getattr(data, "read", None)
    if read is None:
        raise TypeError(f"tensor stream: expected bytes or a binary file object, got {type(data).__name__}")
    # the whole stream is read first, so a corrupt size field is checked against real bytes, not allocated
    content = read()
    if not isinstance(content, (bytes, bytearray)):
        raise TypeError("tensor stream: the file object must be opened in binary mode")
    return memoryview(content)


def _need(buf, offset, size, what):
    if size > len(buf) - offset:
        raise ValueError(f"tensor stream truncated at offset {offset}: {what} needs {size} bytes, "
                         f"{len(buf) - offset} left")


def read_tensor(data, offset=0):
    """Read the tensor starting at ``offset``; return (TensorRecord, offset just past it)."""
    buf = _as_buffer(data)
    if not 0 <= offset <= len(buf):
        raise ValueError(f"tensor stream: offset {offset} is outside the {len(buf)} bytes")
    _need(buf, offset, 4, "the tensor version")
    (version,) = _U32.unpack_from(buf, offset)
    if version != _TENSOR_VERSION:
        raise ValueError(f"tensor stream: unsupported tensor version {version} at offset {offset} "
                         f"(only version 0 exists)")
    offset += 4
    _need(buf, offset, 8, "the LoD level count")
    (levels,) = _U64.unpack_from(buf, offset)
    offset += 8
    if levels > (len(buf) - offset) // 8:
        raise ValueError(f"tensor stream: corrupt LoD level count {levels} at offset {offset - 8}")
    lod = []
    for _ in range(levels):
        _need(buf, offset, 8, "a LoD level size")
        (size,) = _U64.unpack_from(buf, offset)
        if size % 8:
            raise ValueError(f"tensor stream: corrupt LoD level size {size} at offset {offset} "
                             f"(not a multiple of 8)")
        offset += 8
        _need(buf, offset, size, "a LoD level")
        lod.append(tuple(int(i) for i in np.frombuffer(buf, "<u8", size // 8, offset)))
        offset += size
    _need(buf, offset, 4, "the dense tensor version")
    (version,) = _U32.unpack_from(buf, offset)
    if version != _TENSOR_VERSION:
        raise ValueError(f"tensor stream: unsupported dense tensor version {version} at offset {offset} "
                         f"(only version 0 exists)")
    offset += 4
    _need(buf, offset, 4, "the TensorDesc size")
    (desc_size,) = _I32.unpack_from(buf, offset)
    if desc_size < 0:
        raise ValueError(f"tensor stream: corrupt TensorDesc size {desc_size} at offset {offset}")
    offset += 4
    _need(buf, offset, desc_size, "the TensorDesc")
    data_type, shape = _parse_tensor_desc(buf, offset, offset + desc_size)
    if data_type not in DTYPES:
        raise ValueError(f"tensor stream: TensorDesc at offset {offset} has data type "
                         f"{_type_label(data_type)}, which is not a tensor element type")
    offset += desc_size
    if any(d < 0 for d in shape):
        raise ValueError(f"tensor stream: TensorDesc at offset {offset - desc_size} has negative dims {list(shape)}")
    stored = DTYPES[data_type][1]
    numel = 1
    for d in shape:
        numel *= d
    _need(buf, offset, numel * stored.itemsize, f"the data of a {DTYPES[data_type][0]}{list(shape)} tensor")
    if data_type == VarType.BOOL:
        # any nonzero byte is true; NumPy bools must be 0/1
        array = np.frombuffer(buf, np.uint8, numel, offset) != 0
    else:
        array = np.frombuffer(buf, stored, numel, offset).astype(stored.newbyteorder("="))
    offset += numel * stored.itemsize
    return TensorRecord(array.reshape(shape), data_type, lod), offset


def read_records(data, count=None):
    """All tensors of a stream as TensorRecords; with ``count``, exactly that many and nothing after."""
    buf = _as_buffer(data)
    records, offset = [], 0
    while offset < len(buf) and (count is None or len(records) < count):
        try:
            record, offset = read_tensor(buf, offset)
        except ValueError as e:
            raise ValueError(f"{e} (tensor #{len(records)})") from None
        records.append(record)
    if count is not None and len(records) != count:
        raise ValueError(f"tensor stream truncated: expected {count} tensors, found {len(records)}")
    if offset != len(buf):
        raise ValueError(f"tensor stream: {len(buf) - offset} unexpected bytes after {len(records)} tensors "
                         f"at offset {offset}")
    return records


def read_tensors(data, count=None):
    """All tensors of a stream as NumPy arrays (bfloat16 as uint16 bits, float8 as uint8 bits)."""
    return [record.array for record in read_records(data, count)]


# -- writing ---------------------------------------------------------------------------------------------
def write_tensor(item):
    """One tensor in Paddle's stream layout: an array (dtype from NumPy) or a TensorRecord."""
    record = item if isinstance(item, TensorRecord) else TensorRecord(_array(item))
    stored = DTYPES[record.data_type][1]
    array = record.array
    if array.dtype.kind != stored.kind or array.dtype.itemsize != stored.itemsize:
        raise TypeError(f"write_tensor: a {array.dtype} array cannot be stored as "
                        f"{DTYPES[record.data_type][0]} (expects {stored.name} data)")
    parts = [_U32.pack(_TENSOR_VERSION), _U64.pack(len(record.lod))]
    for level in record.lod:
        if any(i < 0 for i in level):
            raise ValueError(f"write_tensor: LoD offsets must be non-negative, got {list(level)}")
        parts += [_U64.pack(8 * len(level)), np.asarray(level, "<u8").tobytes()]
    body = _tensor_desc(record.data_type, array.shape)
    parts += [_U32.pack(_TENSOR_VERSION), _I32.pack(len(body)), body,
              np.ascontiguousarray(array, stored).tobytes()]
    return b"".join(parts)


def write_tensors(items):
    """A whole stream (what save_combine writes), in the given order."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(write_tensor(item))
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e} (tensor #{i})") from None
    return b"".join(out)


def _array(item):
    if isinstance(item, np.ndarray):
        return item
    if hasattr(item, "numpy"):  # a torchpaddle / torch tensor
        item = item.numpy()
    array = np.asarray(item)
    if array.dtype == object:
        raise TypeError(f"write_tensor: cannot store a {type(item).__name__} as a tensor")
    return array
