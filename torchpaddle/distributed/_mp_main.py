"""The ``__main__`` of processes that ``spawn`` starts from a script run as ``python -m torchpaddle``.

multiprocessing's spawn re-runs the parent's main script in each child before unpickling the function; a
script that says ``import paddle`` needs the alias first. ``spawn`` names this module as the parent's main
module while it starts the children; here the alias is installed and the script runs as ``__mp_main__``,
so the children find the script's functions under the names they were pickled with.
"""
import os
import runpy

if __name__ == "__mp_main__":
    from torchpaddle import install_as_paddle

    install_as_paddle()
    _path = os.environ.get("TORCHPADDLE_MP_MAIN_PATH")
    if _path:
        globals().update(runpy.run_path(_path, run_name="__mp_main__"))
