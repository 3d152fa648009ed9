"""The model built from a parsed page: harvesting, parameters, value forms, preconditions, macros."""
