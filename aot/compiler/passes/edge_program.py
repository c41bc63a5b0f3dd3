"""The graph the passes work on: an FX graph whose parameters, buffers and
lifted constants are placeholders listed in ``constants`` (name -> tensor),
whose mutable buffers (registered buffers ``forward`` updates in place) are
placeholders listed in ``mutable`` (name -> :class:`MutableBuffer`), and whose
remaining placeholders are the user inputs, in order.

torch.export makes a mutating ``forward`` functional: the graph computes each
mutated buffer's new value and returns it first (output kind BUFFER_MUTATION),
then the user outputs. The edge graph keeps that output order;
:meth:`EdgeProgram.mutation_nodes` pairs the leading outputs with their
buffers and :meth:`EdgeProgram.user_output_nodes` gives the rest."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch
from torch.export.graph_signature import InputKind, OutputKind

from aot.compiler.source import source_of
from aot.errors import LoweringError, UnsupportedOpError


def _effectful_op_error(gm) -> UnsupportedOpError:
    """An effect token in the graph (torch.export threads one through ops with side
    effects, e.g. torch.linalg.inv's error check): name the op and its model line."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and "with_effects" in str(n.target) and len(n.args) > 1:
            op = n.args[1]
            name = f"{op._schema.name}.{op._schema.overload_name or 'default'}" if hasattr(op, "_schema") else str(op)
            return UnsupportedOpError(name, source_of(n), "an operator with side effects (an effect token)")
    return UnsupportedOpError("an operator with side effects", "", "the graph takes an effect token")


@dataclass
class MutableBuffer:
    """A registered buffer that ``forward`` updates: fqn: its fully qualified
    name in the module ("frames", "norm.running_mean"), or the name ``names``
    gave it (see :func:`from_exported`); initial: its value when the model was
    exported (a real contiguous tensor: the state at init and after a reset)."""
    fqn: str
    initial: torch.Tensor


def mutable_buffer_keys(ep: torch.export.ExportedProgram) -> dict:
    """fqn -> identity key (the data pointer of the module's tensor) of each
    buffer ``ep`` mutates: methods exported from modules that share a buffer
    see one key under their own names ("cache", "core.cache")."""
    out = {}
    for fqn in ep.graph_signature.buffers_to_mutate.values():
        t = ep.state_dict.get(fqn)
        if t is None:
            t = ep.constants[fqn]
        out[fqn] = t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()
    return out


@dataclass
class EdgeProgram:
    """graph: torch.fx.Graph; constants: placeholder name -> real tensor;
    user_inputs: placeholder names of the program inputs, in call order;
    mutable: placeholder name -> MutableBuffer; mutated: the placeholder names
    of the buffers the first ``len(mutated)`` graph outputs are the new values of;
    origins: constant placeholder name -> the user's name of the parameters, buffers or
    constants it was made from ("fc.weight"), for messages."""
    graph: torch.fx.Graph
    constants: dict = field(default_factory=dict)
    user_inputs: list = field(default_factory=list)
    mutable: dict = field(default_factory=dict)
    mutated: list = field(default_factory=list)
    origins: dict = field(default_factory=dict)

    def is_const(self, node) -> bool:
        """True if ``node`` is a placeholder holding a constant tensor."""
        return isinstance(node, torch.fx.Node) and node.op == "placeholder" \
            and node.name in self.constants

    def add_constant(self, hint: str, value: torch.Tensor, made_from=()) -> torch.fx.Node:
        """Add a constant placeholder holding ``value`` (a real tensor, made
        contiguous); made_from: the constant placeholders (nodes or names) it was
        computed from, whose origins it inherits. Returns its node."""
        first = next(n for n in self.graph.nodes if n.op != "placeholder")
        with self.graph.inserting_before(first):
            node = self.graph.placeholder(f"_c_{hint}")
        value = value.detach().contiguous()
        node.meta["val"] = value
        self.constants[node.name] = value
        names = sorted({self.origins.get(getattr(m, "name", m), "") for m in made_from} - {""})
        if names:
            self.origins[node.name] = " + ".join(names)
        return node

    def output_nodes(self) -> list:
        """The nodes returned by the graph, in order: buffer mutations first, then user outputs."""
        out = next(n for n in self.graph.nodes if n.op == "output")
        return list(out.args[0])

    def user_output_nodes(self) -> list:
        """The nodes the model returns, in order."""
        return self.output_nodes()[len(self.mutated):]

    def mutation_nodes(self) -> list:
        """(buffer placeholder node, node holding its new value) per mutated buffer."""
        holders = {n.name: n for n in self.graph.nodes if n.op == "placeholder"}
        return [(holders[name], new) for name, new in zip(self.mutated, self.output_nodes())]

    def prune_constants(self) -> None:
        """Drop constant placeholders nothing uses any more (folded weights)."""
        self.graph.eliminate_dead_code()
        for n in list(self.graph.nodes):
            if self.is_const(n) and not n.users:
                del self.constants[n.name]
                self.graph.erase_node(n)


def from_exported(ep: torch.export.ExportedProgram, names: dict | None = None) -> EdgeProgram:
    """Copy ``ep``'s graph and gather its parameters, buffers (constant or
    mutable) and constants. names: identity key (:func:`mutable_buffer_keys`)
    -> the name a mutable buffer takes in the program (the methods of one
    program name a shared buffer once). Raises LoweringError for a mutated user
    input or parameter, or a non-tensor input."""
    gm = copy.deepcopy(ep.graph_module)
    consts, users, mutable = {}, [], {}
    sig = ep.graph_signature
    keys = mutable_buffer_keys(ep)
    names = names or {}
    # match placeholders to the signature by position: deepcopy may rename
    # nodes (a placeholder called "input" becomes "input_1")
    holders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    specs = ep.graph_signature.input_specs
    if len(holders) != len(specs):
        raise LoweringError("graph placeholders do not match the export signature")
    for node, spec in zip(holders, specs):
        name = node.name
        if spec.kind == InputKind.USER_INPUT:
            users.append(name)
        elif spec.kind == InputKind.BUFFER and spec.target in keys:
            t = ep.state_dict.get(spec.target)
            if t is None:
                t = ep.constants[spec.target]  # a non-persistent buffer
            mutable[name] = MutableBuffer(names.get(keys[spec.target], spec.target),
                                          t.detach().clone().contiguous())
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            t = ep.state_dict.get(spec.target)
            if t is None:
                t = ep.constants[spec.target]
            consts[name] = t.detach().contiguous()
        elif spec.kind == InputKind.TOKEN:
            raise _effectful_op_error(gm)
        else:
            raise LoweringError(f"unsupported graph input kind {spec.kind} ({name})")
    holder_of = {n.name: s.target for n, s in zip(holders, specs)}
    fqn_holder = {holder_of[name]: name for name in mutable}
    mutated, seen_user = [], False
    for spec in sig.output_specs:
        if spec.kind == OutputKind.BUFFER_MUTATION and not seen_user:
            mutated.append(fqn_holder[spec.target])
        elif spec.kind == OutputKind.USER_OUTPUT:
            seen_user = True
        else:
            what = {OutputKind.USER_INPUT_MUTATION: "mutates its input",
                    OutputKind.PARAMETER_MUTATION: "mutates a parameter"}.get(spec.kind, str(spec.kind))
            raise LoweringError(f"the model {what} {spec.target or ''} in forward: only registered "
                                f"buffers may be updated in place (copy the input first, or keep the "
                                f"value in a buffer: self.register_buffer(...))")
    for n in gm.graph.nodes:
        if n.op == "placeholder" and n.name in users and not isinstance(n.meta.get("val"), torch.Tensor):
            raise LoweringError(f"input {n.name} is not a tensor")
    # the user's names of the constants (Mote's int8 lowering registers its own "_mote_*"
    # buffers: those are named by the op that uses them, aot.compiler.lower)
    origins = {name: holder_of[name] for name in consts
               if holder_of.get(name) and not holder_of[name].startswith("_mote_")}
    return EdgeProgram(graph=gm.graph, constants=consts, user_inputs=users, mutable=mutable, mutated=mutated,
                       origins=origins)
