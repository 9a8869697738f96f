#!/usr/bin/python3
"""Golden fixtures of the loader, from Debian's python3-torch 1.13 and
python3-torchvision 0.14 (run with /usr/bin/python3 from the repository top).

tests/fixtures/loader/
  randperm.csv     seed,n,permutation: torch.randperm(n, generator=
                   torch.Generator().manual_seed(seed))
  schedule.csv     name,epoch,batch,indices: the batches a DataLoader(
                   range(n), batch_size=B, shuffle=True, drop_last=D) yields,
                   epoch after epoch, after torch.manual_seed(seed)
  torch_rng.csv    what a DataLoader with workers decides for each sample:
                   RandomResizedCrop.get_params and the flip draw of
                   RandomHorizontalFlip, on images of the sizes in
                   torch_rng_sizes.csv, with num_workers=2, batch_size=4,
                   shuffle=True, two epochs, after torch.manual_seed(SEED)
  torch_rng_w3_b5.csv  the same with num_workers=3, batch_size=5: 5 batches
                   an epoch, not a multiple of the workers, so the worker
                   of a batch shows that the round-robin restarts at worker
                   0 each epoch (batch id mod W would not)
  torch_rng_sizes.csv  index,w,h
"""
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, get_worker_info
from torchvision import transforms

OUT = "tests/fixtures/loader"

# image sizes: ImageNet's common ones, small ones, and extreme aspect ratios
# that use many RandomResizedCrop attempts or its fallback
SIZES = [
    (500, 375), (375, 500), (500, 333), (640, 480), (224, 224), (3, 3),
    (1000, 10), (10, 1000), (800, 600), (500, 500), (1, 1), (300, 200),
    (2000, 50), (50, 2000), (333, 500), (500, 400), (256, 256), (117, 91),
    (4000, 3000), (120, 160), (7, 300), (480, 640),
]
SEED = 20241121
WORKERS = 2
BATCH = 4
EPOCHS = 2


class Probe(Dataset):
    """Records, per sample, the choices the training transforms make."""

    def __len__(self):
        return len(SIZES)

    def __getitem__(self, i):
        w, h = SIZES[i]
        img = Image.new("RGB", (w, h))
        rrc = transforms.RandomResizedCrop(224)
        top, left, ch, cw = rrc.get_params(img, rrc.scale, rrc.ratio)
        flip = int(torch.rand(1) < 0.5)   # RandomHorizontalFlip.forward
        return torch.tensor([i, get_worker_info().id, top, left, ch, cw, flip])


def randperm_rows():
    rows = []
    for seed, n in [(0, 1), (0, 2), (1, 5), (7, 10), (12345, 37), (2**40 + 3, 100), (99, 1000)]:
        g = torch.Generator().manual_seed(seed)
        p = torch.randperm(n, generator=g).tolist()
        rows.append("%d,%d,%s" % (seed, n, " ".join(map(str, p))))
    return rows


def schedule_rows():
    rows = []
    configs = [("n10_b3_s7", 10, 3, False, 3, 7), ("n10_b3_s99_drop", 10, 3, True, 2, 99),
               ("n23_b4_s0", 23, 4, False, 2, 0)]
    for name, n, b, drop, epochs, seed in configs:
        torch.manual_seed(seed)
        dl = DataLoader(list(range(n)), batch_size=b, shuffle=True, drop_last=drop)
        for e in range(epochs):
            for k, x in enumerate(dl):
                rows.append("%s,%d,%d,%s" % (name, e, k, " ".join(str(int(v)) for v in x)))
    return rows


def torch_rng_rows(workers=WORKERS, batch=BATCH):
    torch.manual_seed(SEED)
    dl = DataLoader(Probe(), batch_size=batch, shuffle=True, num_workers=workers)
    rows = []
    for e in range(EPOCHS):
        for k, x in enumerate(dl):
            for pos, r in enumerate(x.tolist()):
                rows.append("%d,%d,%d,%s" % (e, k, pos, ",".join(map(str, r))))
    return rows


def write(name, header, rows):
    with open(os.path.join(OUT, name), "w") as f:
        for h in header:
            f.write("# %s\n" % h)
        for r in rows:
            f.write(r + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    v = "torch %s, torchvision %s" % (torch.__version__, __import__("torchvision").__version__)
    write("randperm.csv", ["torch.randperm(n, generator=Generator().manual_seed(seed)); " + v,
                           "seed,n,permutation"], randperm_rows())
    write("schedule.csv", ["DataLoader(range(n), batch_size=B, shuffle=True, drop_last=D) after "
                           "torch.manual_seed(seed), epochs in a row; " + v,
                           "configs: n10_b3_s7 (n=10 B=3 3 epochs seed 7), n10_b3_s99_drop "
                           "(n=10 B=3 drop_last 2 epochs seed 99), n23_b4_s0 (n=23 B=4 2 epochs seed 0)",
                           "name,epoch,batch,indices"], schedule_rows())
    write("torch_rng_sizes.csv", ["image sizes of the torch_rng.csv probe dataset", "index,w,h"],
          ["%d,%d,%d" % (i, w, h) for i, (w, h) in enumerate(SIZES)])
    write("torch_rng.csv", ["DataLoader(probe, batch_size=%d, shuffle=True, num_workers=%d), "
                            "torch.manual_seed(%d), %d epochs; %s" % (BATCH, WORKERS, SEED, EPOCHS, v),
                            "per sample: RandomResizedCrop(224).get_params (top i, left j, height, "
                            "width) then torch.rand(1) < 0.5 (flip)",
                            "epoch,batch,pos,index,worker,i,j,h,w,flip"], torch_rng_rows())
    write("torch_rng_w3_b5.csv", ["DataLoader(probe, batch_size=5, shuffle=True, num_workers=3), "
                                  "torch.manual_seed(%d), %d epochs; %s" % (SEED, EPOCHS, v),
                                  "5 batches an epoch on 3 workers: the round-robin restarts at "
                                  "worker 0 each epoch",
                                  "epoch,batch,pos,index,worker,i,j,h,w,flip"],
          torch_rng_rows(workers=3, batch=5))


if __name__ == "__main__":
    main()
