"""Nested structures (lists, tuples, namedtuples, dicts) of leaves: the one flatten / pack / map that the RNN
layers, decoders, static control flow and paddle.Model share (Paddle's ``utils.flatten``,
``pack_sequence_as`` and ``map_structure``). Dict values go in sorted-key order."""

__all__ = ["flatten", "pack_sequence_as", "map_structure"]


def flatten(structure):
    """The leaves of ``structure``, depth first."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def _rebuild(like, items):
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*items)
    return type(like)(items)


def pack_sequence_as(structure, flat):
    """``structure`` rebuilt (same container types) with ``flat``'s leaves, given in ``flatten``'s order."""
    leaves = iter(flat)

    def build(x):
        if isinstance(x, dict):
            built = {key: build(x[key]) for key in sorted(x)}
            return type(x)((key, built[key]) for key in x)
        if isinstance(x, (list, tuple)):
            return _rebuild(x, [build(v) for v in x])
        return next(leaves)
    return build(structure)


def _describe(x):
    return f"{type(x).__name__} of {len(x)}" if isinstance(x, (list, tuple)) else type(x).__name__


def map_structure(fn, *structures):
    """``fn`` applied leaf-wise over structures of the same shape; the first one's container types are kept."""
    first = structures[0]
    if isinstance(first, dict):
        return type(first)((key, map_structure(fn, *(s[key] for s in structures))) for key in first)
    if isinstance(first, (list, tuple)):
        for other in structures[1:]:
            if not isinstance(other, (list, tuple)) or len(other) != len(first):
                raise ValueError(f"the nested structures do not match: {_describe(first)} vs {_describe(other)}")
        return _rebuild(first, [map_structure(fn, *parts) for parts in zip(*structures)])
    return fn(*structures)
