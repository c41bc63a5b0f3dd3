"""MACs per instruction (aot.compiler.macs) and the int8 share `aot build --int8` prints."""
import subprocess
import sys
import warnings

import pytest

import zoo
from aot.compiler.macs import int8_mac_share
from aot.compiler.pipeline import compile_model_file

pytestmark = pytest.mark.slow

FALLBACK = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.c(x)).mean((2, 3))
        return torch.mm(self.fc(y), torch.ones(4, 4))  # aten.mm: not quantized


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
'''


@pytest.mark.parametrize("name", ["ds_cnn", "resnet8"])
def test_macs_match_the_reference_counts(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp32 = compile_model_file(zoo.path(name))
        int8 = compile_model_file(zoo.path(name), int8=True)
    assert int8_mac_share(fp32.spec) == (0, zoo.MODELS[name])
    assert int8_mac_share(int8.spec) == (zoo.MODELS[name], zoo.MODELS[name])


def test_int8_export_reports_the_share_and_each_fallback(tmp_path):
    f = tmp_path / "fb.py"
    f.write_text(FALLBACK)
    r = subprocess.run([sys.executable, "-m", "aot.cli", "export", str(f), "--int8", "-o", str(tmp_path / "fb.pte")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # conv 8*8*8*27 + linear 8*4 in int8; the 1x4 @ 4x4 mm (16 MACs) stays fp32 (matmul / bmm
    # of two activations would run in mote::bmm_s8; aten.mm is not annotated)
    total = 8 * 8 * 8 * 27 + 8 * 4 + 16
    assert f"int8: {100.0 * (total - 16) / total:.1f}% of {total:,} MACs run in int8 kernels" in r.stdout
    assert "fp32 fallback: aten::mm.out (16 MACs) at fb.py:13" in r.stdout


@pytest.mark.parametrize("name", ["tiny_vit", "tiny_decoder"])
def test_garden_attention_models_run_95_percent_int8(name):
    """Attention (MultiheadAttention's SDPA, q @ k^T / masked_fill / softmax @ v) runs in
    mote::bmm_s8: >= 95% of the MACs in int8 kernels (68.3% / 91.7% before bmm_s8)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        int8 = compile_model_file(zoo.path(name), int8=True)
    done, total = int8_mac_share(int8.spec)
    assert total > 0 and done / total >= 0.95, (done, total)


def test_unet_small_runs_its_transposed_conv_in_int8():
    """unet_small's ConvTranspose2d (mote::conv_transpose2d_s8, counted per input
    pixel like the fp32 aten::convolution) and bilinear upsampling are int8: the
    share is 100% of the same total as the fp32 program (was 98.0%)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp32 = compile_model_file(zoo.path("unet_small"))
        int8 = compile_model_file(zoo.path("unet_small"), int8=True)
    _, total = int8_mac_share(fp32.spec)
    n8, total8 = int8_mac_share(int8.spec)
    assert total8 == total == 6_709_248
    assert n8 / total8 >= 0.99
    assert n8 == total8
    ops = {c.op for c in int8.spec.instructions}
    assert {"mote::conv_transpose2d_s8", "mote::upsample_bilinear2d_s8"} <= ops
    assert "aten::convolution" not in ops and "aten::upsample_bilinear2d" not in ops


def test_int8_report_groups_identical_fallbacks_and_lists_islands(tmp_path):
    """The same fp32 op at the same model line is one line with its count and
    summed MACs; planned fp32 islands (norms) are listed, not reported as fallbacks."""
    f = tmp_path / "fb2.py"
    src = FALLBACK.replace("        return torch.mm(self.fc(y), torch.ones(4, 4))  # aten.mm: not quantized",
                           "        y = self.fc(y)\n"
                           "        for _ in range(3):\n"
                           "            y = torch.mm(torch.nn.functional.layer_norm(y, (4,)), torch.ones(4, 4))\n"
                           "        return y")
    assert src != FALLBACK
    f.write_text(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_model_file(f, int8=True)
    report = c.int8_report()
    assert "  fp32 fallback: aten::mm.out x3 (48 MACs) at fb2.py:15" in report
    assert report.count("fp32 fallback") == 1
    assert "  fp32 islands: layer_norm x3 (fb2.py:15)" in report


def test_int8_report_lists_fp32_ops_without_macs():
    """Elementwise ops kept in fp32 (tiny_decoder's rotary embedding: mul/sub by the
    cos/sin buffers, the qkv split) are listed with their lines, not only MAC ops."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_model_file(zoo.path("tiny_decoder"), int8=True)
    line = next(x for x in c.int8_report().splitlines() if "fp32 ops without MACs" in x)
    assert "mul x16 (tiny_decoder.py:39)" in line and "split x2 (tiny_decoder.py:37)" in line
    assert "getitem" not in line
