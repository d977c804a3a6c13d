"""Container cases (Sequential, LayerList, LayerDict, ParameterList, ParameterDict), run on real PaddlePaddle
3.3.1 (``python -m tests.nn.container_cases OUT.pkl``) and on torchpaddle by tests/nn/test_containers.py."""
import collections
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, record


def _kinds(paddle):
    nn = paddle.nn

    class Add(nn.Layer):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def forward(self, x):
            return x + self.k

        def extra_repr(self):
            return f"k={self.k}"

    return nn, Add


def _keys(container):
    return [(k, type(v).__name__, getattr(v, "k", None)) for k, v in container._sub_layers.items()]


def c_sequential(paddle):
    nn, Add = _kinds(paddle)
    with paddle.utils.unique_name.guard():
        seq = nn.Sequential(Add(1), Add(2), Add(3))
        x = paddle.to_tensor(np.array([1.0], "float32"))
        out = {"forward": seq(x), "len": len(seq), "keys": _keys(seq), "repr": repr(seq),
               "item": seq[1].k, "neg": seq[-1].k, "str": seq["0"].k, "slice": _keys(seq[1:]),
               "slice_type": type(seq[::2]).__name__, "iter": [l.k for l in seq]}
        out.update({key: catch(fn) for key, fn in {
            "index_high": lambda: seq[3], "index_low": lambda: seq[-4], "missing_key": lambda: seq["9"],
            "set_not_layer": lambda: seq.__setitem__(0, 3), "del_missing": lambda: seq.__delitem__(7)}.items()})
        seq[0] = Add(10)
        seq["new"] = Add(20)
        out["after_set"] = _keys(seq)
        del seq[1]
        out["after_del"] = _keys(seq)
        out["insert_after_del"] = catch(lambda: seq.insert(1, Add(0)))  # Paddle: KeyError on the key gap
        seq = nn.Sequential(Add(1), Add(2))
        seq.append(Add(30))
        out["after_append"] = _keys(seq)
        seq.insert(1, Add(40))
        out["after_insert"] = _keys(seq)
        seq.insert(-1, Add(50))
        out["after_insert_neg"] = _keys(seq)
        out["insert_bad"] = catch(lambda: seq.insert(10, Add(0)))
        out["insert_not_layer"] = catch(lambda: seq.insert(0, 3))
        seq.extend([Add(60)])
        out["after_extend"] = _keys(seq)
        named = nn.Sequential(("a", Add(1)), ("b", Add(2)))
        ordered = nn.Sequential(collections.OrderedDict([("x", Add(5)), ("y", Add(6))]))
        out["named"] = (_keys(named), named(x), repr(named))
        out["ordered"] = (_keys(ordered), ordered(x))
        out["empty"] = (len(nn.Sequential()), nn.Sequential()(x))
        out["state"] = list(nn.Sequential(nn.PReLU(), nn.Sequential(nn.PReLU())).state_dict())
        return out


def c_layer_list(paddle):
    nn, Add = _kinds(paddle)
    with paddle.utils.unique_name.guard():
        ll = nn.LayerList([Add(0), Add(1), Add(2)])
        out = {"len": len(ll), "keys": _keys(ll), "item": ll[1].k, "neg": ll[-1].k, "slice": _keys(ll[::2]),
               "slice_type": type(ll[1:]).__name__, "iter": [l.k for l in ll], "repr": repr(ll)}
        out.update({key: catch(fn) for key, fn in {
            "index_high": lambda: ll[3], "index_low": lambda: ll[-4], "set_high": lambda: ll.__setitem__(5, Add(9)),
            "str_index": lambda: ll["0"].k}.items()})
        ll.append(Add(3))
        ll.insert(1, Add(10))
        out["after_insert"] = _keys(ll)
        ll.insert(-2, Add(11))
        out["after_insert_neg"] = _keys(ll)
        out["insert_bad"] = catch(lambda: ll.insert(20, Add(0)))
        ll.extend([Add(4), Add(5)])
        ll[0] = Add(100)
        ll[-1] = Add(101)
        out["after_set"] = _keys(ll)
        del ll[1]
        out["after_del"] = _keys(ll)
        del ll[1:3]
        out["after_del_slice"] = _keys(ll)
        popped = ll.pop(0)
        out["pop"] = (popped.k, _keys(ll))
        combined = ll + [Add(7)]
        out["add"] = (type(combined).__name__, _keys(combined), _keys(ll))
        ll += [Add(8)]
        out["iadd"] = _keys(ll)
        out["empty"] = len(nn.LayerList())
        out["dir_has_digits"] = any(k.isdigit() for k in dir(ll))
        out["state"] = list(nn.LayerList([nn.PReLU(), nn.PReLU(2)]).state_dict())
        return out


def c_layer_dict(paddle):
    nn, Add = _kinds(paddle)
    with paddle.utils.unique_name.guard():
        ld = nn.LayerDict({"b": Add(1), "a": Add(2)})
        out = {"keys": list(ld.keys()), "len": len(ld), "iter": list(ld), "contains": ("a" in ld, "z" in ld),
               "values": [v.k for v in ld.values()], "items": [(k, v.k) for k, v in ld.items()], "repr": repr(ld)}
        ld["c"] = Add(3)
        ld.update([("d", Add(4)), ("a", Add(20))])
        out["after_update"] = _keys(ld)
        ld.update(nn.LayerDict({"e": Add(5)}))
        ld.update(collections.OrderedDict([("f", Add(6))]))
        out["after_update_dicts"] = _keys(ld)
        out["pop"] = (ld.pop("b").k, list(ld.keys()))
        del ld["c"]
        out["after_del"] = list(ld.keys())
        out.update({key: catch(fn) for key, fn in {
            "missing": lambda: ld["zz"], "pop_missing": lambda: ld.pop("zz"),
            "bad_pair": lambda: ld.update([("x", Add(1), 3)]), "not_iterable": lambda: ld.update(3)}.items()})
        out["from_pairs"] = list(nn.LayerDict([("p", Add(1)), ("q", Add(2))]).keys())
        ld.clear()
        out["cleared"] = len(ld)
        out["state"] = list(nn.LayerDict({"x": nn.PReLU()}).state_dict())
        return out


def c_parameter_list(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        maker = nn.Layer()
        params = [maker.create_parameter([2], default_initializer=nn.initializer.Constant(float(i)))
                  for i in range(3)]
        pl = nn.ParameterList(params[:2])
        out = {"len": len(pl), "names": [p.name for p in pl], "state": list(pl.state_dict()), "repr": repr(pl),
               "item": pl[1], "identity": pl[0] is params[0]}
        pl.append(params[2])
        out["after_append"] = [p.name for p in pl]
        target = pl[0]
        pl[0] = paddle.to_tensor(np.array([7.0, 8.0], "float32"))
        out["set_copies"] = (pl[0] is target, record(pl[0]))
        out.update({key: catch(fn) for key, fn in {
            "set_not_tensor": lambda: pl.__setitem__(1, 3), "missing": lambda: pl[5],
            "construct_tensor": lambda: nn.ParameterList([paddle.ones([1])])}.items()})
        out["named_parameters"] = [n for n, _ in nn.Sequential(pl).named_parameters()]
        return out


def c_parameter_dict(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        maker = nn.Layer()
        p = [maker.create_parameter([1]) for _ in range(3)]
        pd = nn.ParameterDict({"b": p[0], "a": p[1]})
        out = {"len": len(pd), "iter": list(pd), "state": list(pd.state_dict()), "item": pd["a"].name}
        pd["c"] = p[2]
        pd.update([("d", p[0])])
        out["after"] = (list(pd), [n for n, _ in pd.named_parameters()])
        out.update({key: catch(fn) for key, fn in {
            "set_tensor": lambda: pd.__setitem__("e", paddle.ones([1])), "missing": lambda: pd["zz"],
            "bad_pair": lambda: pd.update([("x",)])}.items()})
        return out


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
