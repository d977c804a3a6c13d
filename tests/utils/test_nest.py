"""utils.nest: the one flatten / pack / map over nested structures."""
import collections

import pytest

from torchpaddle.utils.nest import flatten, map_structure, pack_sequence_as

Pair = collections.namedtuple("Pair", "h c")


def test_flatten_is_depth_first_with_sorted_dict_keys():
    assert flatten([1, (2, {"b": 4, "a": 3}), Pair(5, [6])]) == [1, 2, 3, 4, 5, 6]
    assert flatten(7) == [7] and flatten([]) == []


def test_pack_sequence_as_inverts_flatten_keeping_types_and_key_order():
    structure = [0, (0, {"b": 0, "a": 0}), Pair(0, [0])]
    packed = pack_sequence_as(structure, [1, 2, 3, 4, 5, 6])
    assert packed == [1, (2, {"b": 4, "a": 3}), Pair(5, [6])]
    assert isinstance(packed[2], Pair) and list(packed[1][1]) == ["b", "a"]


def test_map_structure_over_several_structures():
    assert map_structure(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    assert map_structure(str, Pair(1, 2)) == Pair("1", "2")
    with pytest.raises(ValueError, match="do not match: tuple of 2 vs list of 1"):
        map_structure(lambda x, y: x, (1, 2), [1])
