"""paddle.utils.cpp_extension: building custom C++/CUDA operators. Such operators are compiled against Paddle's
C++ API (paddle/extension.h, PD_BUILD_OP), which torchpaddle does not have, so building or loading one raises
NotImplementedError saying what to do instead; get_build_directory works."""
import os

__all__ = ["CppExtension", "CUDAExtension", "load", "setup", "get_build_directory"]

_WHY = ("custom operators are compiled against Paddle's C++ API (paddle/extension.h, PD_BUILD_OP), which "
        "torchpaddle does not provide. Write the operator in Python on paddle/torch ops (with "
        "paddle.autograd.PyLayer for a custom gradient), or build it with torch.utils.cpp_extension and call it "
        "from a PyLayer.")


def get_build_directory(verbose=False):
    """The folder custom operators are built in: $PADDLE_EXTENSION_DIR, else ~/.cache/paddle_extensions."""
    root = os.environ.get("PADDLE_EXTENSION_DIR") or os.path.expanduser("~/.cache/paddle_extensions")
    if not os.path.exists(root):
        os.makedirs(root, exist_ok=True)
    if verbose:
        print(f"Compiling user custom op, it will cost a few seconds.....\nbuild directory: {root}")
    return root


def _unsupported(api):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"paddle.utils.cpp_extension.{api}: {_WHY}")
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"Raises NotImplementedError: {_WHY}"
    return fn


CppExtension = _unsupported("CppExtension")
CUDAExtension = _unsupported("CUDAExtension")
load = _unsupported("load")
setup = _unsupported("setup")
