"""COMPILE stage: annotation model -> tool contracts -> target documents."""
