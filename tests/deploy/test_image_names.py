"""aot/deploy/image.py names every pointer of a method image from the table it
points into. An empty int list laid out last points one past the ints table;
on the host the next table starts there, on the target the tables are separate
arrays, so naming it from the next table made init refuse the image
(MOTE_ERR_BAD_IMAGE on mps2-an505 for the garden's unet_small fp32)."""
import re
import warnings

import torch
from torch import nn
from torch.nn import functional as F

from aot.compiler.pipeline import compile_module
from aot.compiler.scratch import scratch_slots
from aot.deploy.image import image_source


class _ConvPool(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        return F.max_pool2d(torch.relu(self.conv(x)), 2)  # stride [] is the last int list


def test_an_empty_int_list_at_the_end_is_named_from_the_ints_table():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module("conv_pool", _ConvPool().eval(), (torch.randn(1, 1, 8, 8),))
    text = image_source(c, scratch_slots(c.spec))
    lists = re.findall(r"\.ints = \{\(const int64_t \*\)&(mote_image0_\w+)\[(\d+)\], (\d+)u\}", text)
    assert lists and lists[-1][2] == "0"                    # the empty stride list, laid out last
    assert {table for table, _, _ in lists} == {"mote_image0_ints"}
    ints = int(re.search(r"mote_image0_ints\[(\d+)\];", text).group(1))
    assert int(lists[-1][1]) == ints                        # one past the table's last entry
