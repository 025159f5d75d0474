import torch
import histtune

x = (torch.arange(1 << 20, device="cuda") * 7 % 251).to(torch.uint8)
counts = histtune.bincount(x, 256).long()  # uint32 counts, on x's GPU and torch's current stream
print(counts[:4].tolist(), counts[250:].tolist())
print(int(counts.sum()), "of", x.numel(), "samples counted")
print("lookup:", histtune.last_choice().level)
