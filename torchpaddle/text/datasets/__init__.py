"""``paddle.text.datasets``: read from local files only."""
from ._common import NotPorted
from .uci_housing import UCIHousing


class Conll05st(NotPorted):
    pass


class Imdb(NotPorted):
    pass


class Imikolov(NotPorted):
    pass


class Movielens(NotPorted):
    pass


class WMT14(NotPorted):
    pass


class WMT16(NotPorted):
    pass


__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
