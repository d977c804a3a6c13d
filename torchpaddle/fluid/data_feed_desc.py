"""fluid.DataFeedDesc: the slot description of a Dataset's data feed, read from and printed as protobuf text
(Paddle 1.x's data_feed.proto, declared here without generated code)."""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

__all__ = ["DataFeedDesc"]

_OPTIONAL, _REQUIRED, _REPEATED = 1, 2, 3
_STRING, _BOOL, _INT32, _MESSAGE = 9, 8, 5, 11


def _message_class():
    proto = descriptor_pb2.FileDescriptorProto(name="torchpaddle_fluid_data_feed.proto",
                                               package="torchpaddle_fluid.framework", syntax="proto2")

    def message(name, fields):
        msg = proto.message_type.add(name=name)
        for number, (field, label, kind, extra) in enumerate(fields, start=1):
            f = msg.field.add(name=field, number=number, label=label, type=kind)
            if kind == _MESSAGE:
                f.type_name = ".torchpaddle_fluid.framework." + extra
            elif extra is not None:
                f.default_value = extra

    message("Slot", [("name", _REQUIRED, _STRING, None), ("type", _REQUIRED, _STRING, None),
                     ("is_dense", _OPTIONAL, _BOOL, "false"), ("is_used", _OPTIONAL, _BOOL, "false"),
                     ("shape", _REPEATED, _INT32, None)])
    message("MultiSlotDesc", [("slots", _REPEATED, _MESSAGE, "Slot"), ("uid_slot", _OPTIONAL, _STRING, None)])
    message("DataFeedDesc", [("name", _OPTIONAL, _STRING, None), ("batch_size", _OPTIONAL, _INT32, "32"),
                             ("multi_slot_desc", _OPTIONAL, _MESSAGE, "MultiSlotDesc"),
                             ("pipe_command", _OPTIONAL, _STRING, None), ("thread_num", _OPTIONAL, _INT32, None),
                             ("rank_offset", _OPTIONAL, _STRING, None), ("pv_batch_size", _OPTIONAL, _INT32, "32"),
                             ("input_type", _OPTIONAL, _INT32, "0")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("torchpaddle_fluid.framework.DataFeedDesc"))


_DataFeedDescProto = _message_class()


class DataFeedDesc:
    """``DataFeedDesc(proto_file)``: the text-format description in ``proto_file``; ``desc()`` prints it."""

    def __init__(self, proto_file):
        self.proto_desc = _DataFeedDescProto()
        self.proto_desc.pipe_command = "cat"
        with open(proto_file, "r") as f:
            try:
                text_format.Parse(f.read(), self.proto_desc)
            except text_format.ParseError as e:
                raise ValueError(f"DataFeedDesc: cannot parse {proto_file}: {e}") from None
        if self.proto_desc.name == "MultiSlotDataFeed":
            self._index = {slot.name: i for i, slot in enumerate(self.proto_desc.multi_slot_desc.slots)}

    def _slot(self, name, who):
        if self.proto_desc.name != "MultiSlotDataFeed":
            raise ValueError(f"{who} is only supported for the MultiSlotDataFeed")
        return self.proto_desc.multi_slot_desc.slots[self._index[name]]   # KeyError for an unknown slot

    def set_batch_size(self, batch_size):
        self.proto_desc.batch_size = batch_size

    def set_dense_slots(self, dense_slots_name):
        for name in dense_slots_name:
            self._slot(name, "set_dense_slots").is_dense = True

    def set_use_slots(self, use_slots_name):
        for name in use_slots_name:
            self._slot(name, "set_use_slots").is_used = True

    def desc(self):
        return text_format.MessageToString(self.proto_desc)
