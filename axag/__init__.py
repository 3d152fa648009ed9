"""axag: AXAG 1.1 annotation linter, compiler and guard generator."""

__version__ = "0.1.0"

__all__ = ["__version__"]
