"""Reading pages: HTML, JSX/TSX and template files, positions, agreement with a browser's tree."""
