"""paddle.static: the static-graph layer (Program IR, Executor, persistence); only serialization/ exists yet."""
