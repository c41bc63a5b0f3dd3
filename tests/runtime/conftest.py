"""Fixtures for the runtime tests: C builds (plain and ASan+UBSan) and ExecuTorch-made .pte files."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as H  # noqa: E402


@pytest.fixture(scope="session")
def host_build():
    return H.cmake_build(H.HOST)


@pytest.fixture(scope="session")
def asan_build():
    return H.cmake_build(H.ASAN, sanitize=True)


@pytest.fixture(scope="session")
def testk_lib(host_build):
    """libmote built with the test-only kernels (add, mul, relu) of tests/runtime/test_kernels.c."""
    return host_build / "tests" / "runtime" / "libmote_testk.so"


@pytest.fixture(scope="session")
def models():
    import torch
    from torch import nn

    class AddRelu(nn.Module):
        def forward(self, x, y):
            return torch.relu(x + y)

    class ConstMul(nn.Module):
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(3)
            self.w = nn.Parameter(torch.randn(2, 3, 4, generator=g), requires_grad=False)
            self.b = nn.Parameter(torch.randn(2, 3, 4, generator=g), requires_grad=False)

        def forward(self, x):
            return torch.relu(x * self.w + self.b) * x + 2.0 * x

    class ViewChain(nn.Module):
        def forward(self, x, y):
            z = (x + y).view(6, 4)
            return torch.relu(z) * z, (x * y)

    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 3, 4, generator=g)
    y = torch.randn(2, 3, 4, generator=g)
    return {"add_relu": (AddRelu(), (x, y)), "const_mul": (ConstMul(), (x,)), "view_chain": (ViewChain(), (x, y))}


@pytest.fixture(scope="session")
def pte(tmp_path_factory, models):
    """pte(name) -> path of ExecuTorch's .pte for models[name] (made once per session)."""
    d = tmp_path_factory.mktemp("pte")
    cache = {}

    def get(name):
        if name not in cache:
            mod, ex = models[name]
            cache[name] = H.export_pte(mod, ex, d / f"{name}.pte")
        return cache[name]

    return get
