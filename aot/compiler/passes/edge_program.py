"""The graph the passes work on: an FX graph whose parameters, buffers and
lifted constants are placeholders listed in ``constants`` (name -> tensor), and
whose remaining placeholders are the user inputs, in order."""
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
class EdgeProgram:
    """graph: torch.fx.Graph; constants: placeholder name -> real tensor;
    user_inputs: placeholder names of the program inputs, in call order."""
    graph: torch.fx.Graph
    constants: dict = field(default_factory=dict)
    user_inputs: list = field(default_factory=list)

    def is_const(self, node) -> bool:
        """True if ``node`` is a placeholder holding a constant tensor."""
        return isinstance(node, torch.fx.Node) and node.op == "placeholder" \
            and node.name in self.constants

    def add_constant(self, hint: str, value: torch.Tensor) -> torch.fx.Node:
        """Add a constant placeholder holding ``value`` (a real tensor, made
        contiguous). Returns its node."""
        first = next(n for n in self.graph.nodes if n.op != "placeholder")
        with self.graph.inserting_before(first):
            node = self.graph.placeholder(f"_c_{hint}")
        value = value.detach().contiguous()
        node.meta["val"] = value
        self.constants[node.name] = value
        return node

    def output_nodes(self) -> list:
        """The nodes returned by the graph, in order."""
        out = next(n for n in self.graph.nodes if n.op == "output")
        return list(out.args[0])

    def prune_constants(self) -> None:
        """Drop constant placeholders nothing uses any more (folded weights)."""
        self.graph.eliminate_dead_code()
        for n in list(self.graph.nodes):
            if self.is_const(n) and not n.users:
                del self.constants[n.name]
                self.graph.erase_node(n)


def from_exported(ep: torch.export.ExportedProgram) -> EdgeProgram:
    """Copy ``ep``'s graph and gather its parameters/buffers/constants.
    Raises LoweringError for buffer mutation or non-tensor inputs."""
    gm = copy.deepcopy(ep.graph_module)
    consts, users = {}, []
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
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            t = ep.state_dict.get(spec.target)
            if t is None:
                t = ep.constants[spec.target]
            consts[name] = t.detach().contiguous()
        elif spec.kind == InputKind.TOKEN:
            raise _effectful_op_error(gm)
        else:
            raise LoweringError(f"unsupported graph input kind {spec.kind} ({name})")
    for spec in ep.graph_signature.output_specs:
        if spec.kind != OutputKind.USER_OUTPUT:
            raise LoweringError(f"unsupported graph output kind {spec.kind} "
                                f"(models must not mutate buffers in forward)")
    for n in gm.graph.nodes:
        if n.op == "placeholder" and n.name in users and not isinstance(n.meta.get("val"), torch.Tensor):
            raise LoweringError(f"input {n.name} is not a tensor")
    return EdgeProgram(graph=gm.graph, constants=consts, user_inputs=users)
