"""The model zoo: every file here is a model file in the `aot` convention
(``model()`` returns an eval-mode nn.Module, ``example_inputs()`` a tuple of
tensors, optionally ``calibration_data()``). Weights are random with a fixed
seed; the MLPerf Tiny networks have their reference layer shapes with
BatchNorm folded into the convolutions, as deployed.
"""
from pathlib import Path

ZOO_DIR = Path(__file__).resolve().parent

#: name -> expected multiply-accumulates per inference (None: not a reference net)
MODELS = {
    "mlp": 784 * 128 + 128 * 64 + 64 * 10,
    "small_cnn": None,
    "ds_cnn": 2_656_768,
    "mobilenet_v1_025": 7_489_664,
    "resnet8": 12_501_632,
    "autoencoder": 264_192,
    "cov_batchnorm": None,
    "cov_residual_cat": None,
    "cov_pooling": None,
    "cov_activations": None,
}


def path(name: str) -> Path:
    """Path of the zoo model file `name` (e.g. "ds_cnn"), or of the garden's
    (zoo/garden/, e.g. "tiny_vit")."""
    from zoo.garden import GARDEN, path as garden_path
    return garden_path(name) if name in GARDEN else ZOO_DIR / f"{name}.py"
