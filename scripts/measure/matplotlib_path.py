"""matplotlib_path: lets the runners import matplotlib where scripts/setup/
ensure-deps installs it, Debian's python3-matplotlib, also when another
python3 comes first on PATH (pyenv and the like), whose own packages lack
it.  Shared by scripts/measure/bench and bench/plan_validate.py.
"""
import sys

DEBIAN_PYTHON_PACKAGES = "/usr/lib/python3/dist-packages"


def pyplot():
    """matplotlib.pyplot with the non-interactive backend; ImportError when
    neither this python3's packages nor Debian's have it."""
    try:
        import matplotlib
    except ImportError:
        if DEBIAN_PYTHON_PACKAGES not in sys.path:
            sys.path.append(DEBIAN_PYTHON_PACKAGES)
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
