"""Generated guards (Python and TypeScript), their value checks, and the constraint context block."""
