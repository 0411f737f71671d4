# SPDX-License-Identifier: GPL-2.0
"""What to install when a library latscope-report or latscope-evt imports
beyond Python's standard library cannot be loaded: its Debian package."""

# The Debian package of each Python library the tools import beyond the
# standard library.
DEBIAN_PACKAGES = {"matplotlib": "python3-matplotlib", "numpy": "python3-numpy",
                   "scipy": "python3-scipy"}


def missing_module(e):
    """What to install for an ImportError: "Python's matplotlib cannot be
    loaded (...): install python3-matplotlib (Debian, Ubuntu)"."""
    name = (e.name or "").split(".")[0]
    package = DEBIAN_PACKAGES.get(name, f"python3-{name}" if name else "its package")
    return f"Python's {name or 'module'} cannot be loaded ({e}): install {package} (Debian, Ubuntu)"
