"""Configuration: loading, validation, resolution, rule selection."""
