"""Backends that take delegated subgraphs (ExecuTorch's delegation): each
package here (``aot.backends.<name>``) has a ``partitioner`` module defining
``PARTITIONER``, an :class:`aot.compiler.partition.Partitioner`."""
