"""evalgui's bundled files: sample data, icons, help.

This folder ships inside the package as ``evalgui._resources`` (see setup.py); code reads it
only through :mod:`evalgui.core.resources`.
"""
