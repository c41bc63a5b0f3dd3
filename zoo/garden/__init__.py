"""The model garden: the architectures embedded users bring, written in plain
torch at microcontroller size (torchvision does not install beside torch
2.13.0). Each file is a model file in the `aot` convention. Weights are random
with a fixed seed.
"""
from pathlib import Path

GARDEN_DIR = Path(__file__).resolve().parent

#: name -> one line on what it exercises
GARDEN = {
    "mobilenet_v2": "inverted residuals, ReLU6, depthwise convs",
    "mobilenet_v3_small": "hardswish, squeeze-excite with hardsigmoid",
    "efficientnet_block": "MBConv with SiLU and squeeze-excite with sigmoid",
    "unet_small": "max-pool down, ConvTranspose2d and bilinear up, skip concatenation",
    "gru_kws": "two-layer GRU keyword spotter over MFCC frames",
    "lstm_sensor": "LSTM over IMU samples",
    "tcn": "Conv1d temporal convolution network, dilations, residuals",
    "tiny_vit": "patchify conv, class token, position embedding, MultiheadAttention, LayerNorm, GELU",
    "tiny_decoder": "token embedding, RMSNorm, rotary embedding, causal mask, SiLU-gated MLP",
    "norm_act_cnn": "GroupNorm, PReLU, LeakyReLU, ELU",
}


def path(name: str) -> Path:
    """Path of the garden model file ``name``."""
    return GARDEN_DIR / f"{name}.py"
