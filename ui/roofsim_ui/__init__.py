"""roofsim ui: a local web page over the roofsim Python module (docs/ui.md)."""
