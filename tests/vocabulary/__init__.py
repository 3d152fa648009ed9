"""The vocabulary: the meaning of its values and its exports."""
