"""Tessera trainer runtime: EasyScale threads (ESTs) with D0/D1 consistency on PyTorch.

The host agent starts one worker process per GPU (`python -m tessera_trainer.run`); each worker
time-slices the virtual ranks (ESTs) it was given. See docs/trainer-protocol.md.
"""
