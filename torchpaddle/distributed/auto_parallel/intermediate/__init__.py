"""The intermediate auto-parallel API: ``parallelize`` with dp/mp/pp configs and the tensor-parallel plans,
``LocalLayer`` / ``local_map``, and ``to_distributed``."""
from .plans import (PlanBase, ColWiseParallel, RowWiseParallel,  # noqa: F401
                    SequenceParallelBegin, SequenceParallelEnd, SequenceParallelEnable, SequenceParallelDisable, PrepareLayerInput, PrepareLayerOutput,
                    ConvParallel, ContextParallel, PrepareContextParallel, SplitPoint)
from .parallelize import parallelize, parallelize_model, parallelize_optimizer, to_distributed  # noqa: F401
from .local import LocalLayer, local_map  # noqa: F401
