"""Auto-parallel in dygraph: ProcessMesh, placements and dist tensors on torch DTensor.

Modules: ``placement`` (Shard/Replicate/Partial/ReduceType/DistAttr and the torch conversion),
``device_mesh`` (ProcessMesh -> DeviceMesh cache, set_mesh/get_mesh), ``api`` (shard_tensor, dtensor_from_*,
unshard_dtensor, reshard, the Tensor properties), ``reshard`` (the transitions torch lacks: X->Partial,
cross-mesh), ``dispatch`` (Paddle's rules where DTensor has none or is wrong).
"""
from ...framework.process_mesh import ProcessMesh  # noqa: F401
from .placement import ReduceType, Placement, Shard, Replicate, Partial, DistAttr  # noqa: F401
from .device_mesh import get_mesh, set_mesh  # noqa: F401
from .api import (shard_tensor, dtensor_from_fn, dtensor_from_local, dtensor_to_local, unshard_dtensor,  # noqa: F401
                  reshard, is_dist_tensor)

__all__ = ["ProcessMesh", "ReduceType", "Placement", "Shard", "Replicate", "Partial", "DistAttr", "get_mesh",
           "set_mesh", "shard_tensor", "dtensor_from_fn", "dtensor_from_local", "dtensor_to_local",
           "unshard_dtensor", "reshard"]
