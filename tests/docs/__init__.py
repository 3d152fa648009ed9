"""The documentation: generated pages, examples that run, the site build, screenshots."""
