"""The XNNPACK backend's AOT side: partitioner (what XNNPACK takes),
preprocess (the payload, in ExecuTorch's XNNPACK format: schema)."""
