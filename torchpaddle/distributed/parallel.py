"""paddle.DataParallel. In one process it is a transparent wrapper; the multi-process gradient all-reduce
arrives with the distributed issue (it will hook in here)."""
import contextlib

from ..nn.layer.layers import Layer

__all__ = ["DataParallel"]


class DataParallel(Layer):
    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a paddle.nn.Layer, got {type(layers).__name__}")
        super().__init__(layers.full_name() + "_data_parallel")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.comm_buffer_size = comm_buffer_size
        self.last_comm_buffer_size = last_comm_buffer_size
        self._strategy = strategy
        self._group = group
        self.grad_need_sync = True

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        previous = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = previous

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        # Like Paddle: the wrapped layer's keys, without a "_layers." prefix.
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix, use_hook, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = load_dict = set_state_dict
