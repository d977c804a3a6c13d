"""Paddle's static-graph file formats: the ProgramDesc protobuf (`.pdmodel`) and the tensor stream
(`.pdiparams`, save_combine/load_combine). Needs only NumPy and protobuf; framework_pb2 is generated
from framework.proto by regen.sh."""
from . import framework_pb2  # noqa: F401
from ...framework.tensor_stream import (  # noqa: F401
    DTYPES, TensorRecord, dtype_code, dtype_name, read_records, read_tensor, read_tensors, write_tensor,
    write_tensors)
from .program_desc import (  # noqa: F401
    BlockView, OpView, ProgramView, VarView, check_program, decode_attr, encode_attr, make_op_desc,
    make_var_desc, parse_program, serialize_program, var_kind, view_program)
