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
from .shard_layer import shard_layer  # noqa: F401,E402
from .sharding import ShardingStage1, ShardingStage2, ShardingStage3, shard_optimizer, shard_scaler  # noqa: F401,E402
from .shard_dataloader import ShardDataloader, shard_dataloader  # noqa: F401,E402
from . import intermediate  # noqa: F401,E402
from .intermediate import parallelize, local_map, LocalLayer  # noqa: F401,E402
