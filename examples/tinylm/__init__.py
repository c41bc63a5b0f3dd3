"""A character-level language model generating text token by token on a
simulated Cortex-M33 (``make tinylm``; see README.md in this folder)."""
