"""`make tinylm` end to end, shortened (300 training steps, 8 tokens): the tiny LM
exported with prefill/decode methods and int4 weights generates the same tokens in
eager PyTorch, on the host runtime and in firmware on QEMU's Cortex-M33; the demo
exits 0, builds the Pico 2 image and prints the tokens/s estimate."""
import pytest

from examples.tinylm import demo

pytestmark = [pytest.mark.slow, pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]


def test_tinylm_demo_tokens_identical_eager_host_firmware(tmp_path, capsys):
    assert demo.main(["--tokens", "8", "--steps", "300", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.split()}
    texts = [lines[k].split(None, 1)[1] for k in ("eager", "host", "firmware")]
    assert texts[0] == texts[1] == texts[2] and len(eval(texts[0])) == 8
    assert "eager, host and firmware identical" in out
    assert "tokens/s" in lines["Pico"] and "RAM" in lines["pico2"]
    assert (tmp_path / "fw-pico2" / "firmware.uf2").is_file()
