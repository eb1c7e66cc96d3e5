"""Reports in other forms: terminal and Markdown tables, CSV/LaTeX, frames, TREC runs, official logs."""
