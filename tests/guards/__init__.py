"""Generated guards (Python and TypeScript) and their value checks."""
