#!/usr/bin/python3
"""Golden fixtures for the RNG, RandomResizedCrop, Pillow's bilinear resize,
Resize, CenterCrop, ToTensor and Normalize (tests/fixtures/geometry/).

Run from the repository top with Debian's /usr/bin/python3 (torch 1.13,
torchvision 0.14, Pillow 9.4, numpy); torch must use its AVX2 kernels (the
reference: FMA uniform_, Sleef exp/log). Source images are not stored: both
this script and the C tests draw them with make_image(), integers only.

Large expected images are stored as one FNV-1a 64 digest per row (see
row_digests) to keep the fixtures small; images up to 10000 pixels are
stored whole.
"""
import csv
import os
import sys

import numpy as np
import torch
import torchvision
import torchvision.transforms as T
import torchvision.transforms.functional as F
import PIL
from PIL import Image

OUT = "tests/fixtures/geometry"
FULL_MAX_PIXELS = 10000

M32 = 0xFFFFFFFF


def save(name, arr):
    np.save(os.path.join(OUT, name), arr, allow_pickle=False)


# --- the procedural source images (mirrored in tests/unit/test_resample.c
# and tests/unit/test_ops_geometry.c) ---------------------------------------

def hash32(x, y, c, salt):
    """lowbias32 of a mix of (x, y, c, salt), all uint32 arithmetic (done in
    uint64 arrays, masked after every product)."""
    u, m = np.uint64, np.uint64(M32)
    h = ((x * u(0x9E3779B1)) & m) ^ ((y * u(0x85EBCA77)) & m) ^ \
        ((u(c) * u(0xC2B2AE3D) + u(salt)) & m)
    h ^= h >> u(16)
    h = (h * u(0x7FEB352D)) & m
    h ^= h >> u(15)
    h = (h * u(0x846CA68B)) & m
    h ^= h >> u(16)
    return h


def make_image(W, H, salt):
    """A photo-like uint8 RGB image: gradient, blocks, a disc, noise."""
    y, x = np.mgrid[0:H, 0:W].astype(np.uint64)
    xi, yi = x.astype(np.int64), y.astype(np.int64)
    out = np.empty((H, W, 3), np.uint8)
    for c in range(3):
        g = (xi * 160) // W + (yi * 60) // H
        blk = (((xi // 23) + (yi // 17) + c) % 3) * 20
        dx, dy = 2 * xi - W, 2 * yi - H
        disc = (dx * dx + dy * dy < (W * W + H * H) // 9).astype(np.int64) * 30
        noise = (hash32(x, y, c, salt) & np.uint64(31)).astype(np.int64)
        v = g + blk + disc + noise - 40 + c * 15
        out[:, :, c] = np.clip(v, 0, 255).astype(np.uint8)
    return out


def row_digests(a):
    """FNV-1a 64 of each row's bytes (uint8 H x W x 3)."""
    rows = a.reshape(a.shape[0], -1)
    h = np.full(rows.shape[0], 0xCBF29CE484222325, np.uint64)
    prime = np.uint64(0x100000001B3)
    with np.errstate(over="ignore"):
        for col in range(rows.shape[1]):
            h ^= rows[:, col].astype(np.uint64)
            h *= prime
    return h


def save_image(name, a):
    """Whole (uint8 H x W x 3) if small, else row digests ('<u8' [H])."""
    if a.shape[0] * a.shape[1] <= FULL_MAX_PIXELS:
        save(name, np.ascontiguousarray(a, np.uint8))
        return "full"
    save(name, row_digests(a).astype("<u8"))
    return "digest"


# --- MT19937 reference, to check that the torch calls below give raw draws --

class MT19937:
    def __init__(self, seed):
        self.mt = [0] * 624
        self.mt[0] = seed & M32
        for i in range(1, 624):
            self.mt[i] = (1812433253 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) + i) & M32
        self.i = 624

    def u32(self):
        if self.i >= 624:
            mt = self.mt
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y


RNG_SEEDS = [0, 1, 42, 5489, 4294967295, 4294967303, 9223372036854775807]
N_U32 = 1000
N_INT64 = 200
# the seeds of the single-stream fixtures (also in tests/unit/test_rng.c)
SEED_UNIFORM, SEED_RAND, SEED_RANDINT = 7, 8, 9

LR = torch.log(torch.tensor([3 / 4, 4 / 3]))
LR0, LR1 = float(LR[0]), float(LR[1])


def fixtures_rng():
    u32 = np.empty((len(RNG_SEEDS), N_U32), np.uint32)
    i64 = np.empty((len(RNG_SEEDS), N_INT64), np.int64)
    for k, s in enumerate(RNG_SEEDS):
        g = torch.Generator().manual_seed(s)
        # int32 random_(-2^31, 2^31): range 2^32 is drawn with ONE random()
        # for 32-bit types, as random() % 2^32 - 2^31
        v = torch.empty(N_U32, dtype=torch.int32).random_(-2**31, 2**31, generator=g)
        u32[k] = v.numpy().view(np.uint32) ^ np.uint32(0x80000000)
        ref = MT19937(s)
        assert [ref.u32() for _ in range(N_U32)] == u32[k].tolist(), s
        g = torch.Generator().manual_seed(s)
        i64[k] = torch.empty(N_INT64, dtype=torch.int64).random_(generator=g).numpy()
        ref = MT19937(s)
        for n in range(N_INT64):
            hi, lo = ref.u32(), ref.u32()
            assert i64[k, n] == ((hi << 32) | lo) & (2**63 - 1)
    assert u32[RNG_SEEDS.index(5489), 0] == 3499211612
    save("rng_seeds.npy", np.array(RNG_SEEDS, "<u8"))
    save("rng_u32.npy", u32.astype("<u4"))
    save("rng_int64.npy", i64.astype("<i8"))

    # uniform_(a, b) on float32, cycling over (a, b) pairs on one generator
    pairs = [(0.08, 1.0), (LR0, LR1), (0.0, 1.0), (-5.0, 3.7), (1e-3, 1e6),
             (-1e-7, 1e-7), (2.5, 2.5000002), (0.25, 0.5)]
    pairs = [(float(np.float32(a)), float(np.float32(b))) for a, b in pairs]
    torch.manual_seed(SEED_UNIFORM)
    rows = []
    for n in range(4000):
        a, b = pairs[n % len(pairs)]
        rows.append((a, b, torch.empty(1).uniform_(a, b).item()))
    save("rng_uniform.npy", np.array(rows, "<f4"))

    torch.manual_seed(SEED_RAND)
    save("rng_rand.npy", np.array([torch.rand(1).item() for _ in range(2000)], "<f4"))

    ns = [1, 2, 3, 7, 224, 225, 1000, 65537, 2**31 - 1, 2**31, 2**32 - 1]
    torch.manual_seed(SEED_RANDINT)
    rows = []
    for n in range(2000):
        m = ns[n % len(ns)]
        rows.append((m, torch.randint(0, m, size=(1,)).item()))
    save("rng_randint.npy", np.array(rows, "<i8"))

    # torch.exp / torch.log on float32 (Sleef on AVX2)
    rs = np.random.RandomState(1234)
    x = np.concatenate([
        rs.uniform(LR0, LR1, 4000),
        rs.uniform(-110, 110, 1000),
        [0.0, -0.0, -104.0, np.nextafter(np.float32(-104), np.float32(-200)), 100.0,
         np.nextafter(np.float32(100), np.float32(200)), 88.7, -87.3, np.inf, -np.inf],
    ]).astype(np.float32)
    y = torch.exp(torch.from_numpy(x)).numpy()
    # a 1-element tensor takes the same (vectorized) path
    for k in range(64):
        one = torch.exp(torch.from_numpy(x[k:k + 1])).numpy()
        assert one.view(np.uint32)[0] == y.view(np.uint32)[k], k
    save("expf.npy", np.stack([x, y], 1).astype("<f4"))

    x = np.concatenate([
        rs.uniform(0.05, 20, 3000),
        np.exp(rs.uniform(-80, 80, 500)),
        rs.uniform(1e-45, 1e-38, 50),
        [0.75, 4 / 3, 0.5, 2.0, 1.0, 3.0 / 5.0, 5.0 / 3.0],
    ]).astype(np.float32)
    y = torch.log(torch.from_numpy(x)).numpy()
    save("logf.npy", np.stack([x, y], 1).astype("<f4"))


# --- RandomResizedCrop.get_params plus the flip draw -------------------------

RRC_SHAPES = [(1, 1), (3, 2), (2, 3), (2000, 10), (10, 2000), (500, 375), (375, 500),
              (224, 224), (640, 480), (1, 2000), (2000, 1), (7, 5), (3000, 3000),
              (100, 133), (133, 100), (4, 3), (300, 260), (1024, 683), (50, 2000),
              (2000, 1500), (16, 9), (9, 16), (1, 2), (5, 1)]
RRC_SEEDS = [0, 1, 2, 3, 42, 1234, 5489, 99991, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
             2**32 + 17, 10**12 + 39, 2**40 + 3, 2**48 - 5, 2**53 + 1, 2**62 + 11,
             2**63 - 25, 777]
RRC_SAMPLES = 500
# a non-default configuration (scale, ratio), exercising the general log
RRC_ALT = ((0.25, 0.5), (0.5, 2.0))
RRC_ALT_SEEDS = [5, 6]


def rrc_run(seeds, scale, ratio):
    imgs = [Image.new("RGB", s) for s in RRC_SHAPES]
    out = np.empty((len(seeds), RRC_SAMPLES, 5), np.int64)
    for a, seed in enumerate(seeds):
        torch.manual_seed(seed)
        for n in range(RRC_SAMPLES):
            img = imgs[n % len(imgs)]
            i, j, h, w = T.RandomResizedCrop.get_params(img, list(scale), list(ratio))
            flip = int(torch.rand(1) < 0.5)   # RandomHorizontalFlip's draw
            out[a, n] = (i, j, h, w, flip)
    assert out.min() >= 0 and out.max() < 65536
    return out.astype("<u2")


# (seed, sample) of a stream where a plain x * (b - a) + a uniform_ or a
# correctly rounded expf would give another box (found with a C emulation
# of both; about 1 sample in 30000): these pin the FMA and Sleef paths
RRC_HARD = [(2009, 132), (2145, 198), (2387, 139), (3146, 180), (3446, 67), (3711, 132),
            (4765, 19), (5099, 233), (5668, 252), (6323, 36), (7871, 245), (9099, 60)]


def fixtures_rrc_hard():
    imgs = [Image.new("RGB", s) for s in RRC_SHAPES]
    rows = []
    for seed, last in RRC_HARD:
        torch.manual_seed(seed)
        for n in range(last + 1):
            i, j, h, w = T.RandomResizedCrop.get_params(imgs[n % len(imgs)], [0.08, 1.0],
                                                       [3 / 4, 4 / 3])
            flip = int(torch.rand(1) < 0.5)
        rows.append((seed, last, i, j, h, w, flip))
    save("rrc_hard.npy", np.array(rows, "<i8"))


def fixtures_rrc():
    save("rrc_shapes.npy", np.array(RRC_SHAPES, "<i4"))
    save("rrc_seeds.npy", np.array(RRC_SEEDS, "<u8"))
    save("rrc_params.npy", rrc_run(RRC_SEEDS, (0.08, 1.0), (3 / 4, 4 / 3)))
    save("rrc_alt_seeds.npy", np.array(RRC_ALT_SEEDS, "<u8"))
    save("rrc_alt_params.npy", rrc_run(RRC_ALT_SEEDS, *RRC_ALT))
    fixtures_rrc_hard()


# --- crop then bilinear resize ----------------------------------------------

SOURCES = {0: (300, 260, 1), 1: (500, 375, 2)}   # id: (W, H, salt)

# (source, top, left, height, width, out_w, out_h)
RESAMPLE_CASES = [
    (0, 0, 0, 260, 300, 224, 224),
    (0, 0, 0, 260, 300, 300, 260),
    (0, 10, 20, 100, 1, 32, 32),
    (0, 50, 0, 1, 300, 40, 24),
    (0, 0, 0, 1, 1, 5, 7),
    (0, 100, 100, 13, 17, 64, 64),
    (0, 7, 11, 151, 97, 37, 53),
    (0, 0, 5, 200, 64, 64, 33),
    (0, 3, 0, 48, 250, 30, 48),
    (0, 215, 239, 45, 61, 23, 29),
    (0, 0, 0, 260, 300, 450, 390),
    (0, 259, 299, 1, 1, 3, 3),
    (1, 37, 52, 300, 400, 224, 224),
    (1, 100, 200, 40, 53, 224, 224),
    (1, 0, 0, 375, 500, 3, 2),
    (1, 0, 0, 375, 500, 1, 1),
    (1, 10, 10, 224, 224, 224, 224),
    (1, 5, 7, 223, 225, 224, 224),
    (1, 120, 0, 16, 500, 48, 16),
    (1, 0, 499, 375, 1, 2, 50),
    (1, 200, 300, 175, 200, 61, 47),
    (1, 1, 2, 371, 497, 100, 100),
    (1, 60, 70, 150, 113, 96, 96),
]


def fixtures_resample():
    srcs = {k: Image.fromarray(make_image(*v)) for k, v in SOURCES.items()}
    with open(os.path.join(OUT, "resample.csv"), "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["file", "src", "top", "left", "height", "width", "out_w", "out_h", "kind"])
        for n, (src, i, j, h, w, ow, oh) in enumerate(RESAMPLE_CASES):
            img = srcs[src]
            exp = img.crop((j, i, j + w, i + h)).resize((ow, oh), Image.BILINEAR)
            # torchvision's own path gives the same bytes
            tv = F.resized_crop(img, i, j, h, w, [oh, ow], T.InterpolationMode.BILINEAR)
            assert np.array_equal(np.asarray(exp), np.asarray(tv)), n
            name = "resample_%02d.npy" % n
            kind = save_image(name, np.asarray(exp))
            wr.writerow([name, src, i, j, h, w, ow, oh, kind])


# --- Resize(size), CenterCrop(size), and the two chained ----------------------

# (op, size, W, H, salt)
OP_CASES = [
    ("resize", 24, 40, 30, 3), ("resize", 24, 30, 40, 4), ("resize", 24, 24, 50, 5),
    ("resize", 24, 10, 7, 6), ("resize", 24, 1, 3, 7), ("resize", 5, 1000, 3, 8),
    ("resize", 256, 500, 375, 9), ("resize", 256, 375, 500, 10), ("resize", 256, 256, 300, 11),
    ("resize", 256, 200, 150, 12), ("resize", 33, 100, 33, 13), ("resize", 17, 61, 29, 14),
    ("center_crop", 31, 40, 50, 20), ("center_crop", 31, 31, 31, 21),
    ("center_crop", 31, 32, 33, 22), ("center_crop", 31, 34, 36, 23),
    ("center_crop", 31, 20, 10, 24), ("center_crop", 31, 20, 40, 25),
    ("center_crop", 31, 50, 12, 26), ("center_crop", 31, 1, 1, 27),
    ("center_crop", 31, 30, 29, 28), ("center_crop", 224, 500, 375, 29),
    ("center_crop", 224, 200, 150, 30), ("center_crop", 224, 256, 341, 31),
    ("val", 256, 500, 375, 40), ("val", 256, 150, 200, 41),
]


def fixtures_ops():
    with open(os.path.join(OUT, "ops.csv"), "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["file", "op", "size", "W", "H", "salt", "out_w", "out_h", "kind"])
        for n, (op, size, W, H, salt) in enumerate(OP_CASES):
            img = Image.fromarray(make_image(W, H, salt))
            if op == "resize":
                out = T.Resize(size)(img)
            elif op == "center_crop":
                out = T.CenterCrop(size)(img)
            else:  # the validation chain: Resize(256) then CenterCrop(224)
                out = T.CenterCrop(224)(T.Resize(size)(img))
            name = "ops_%02d.npy" % n
            kind = save_image(name, np.asarray(out))
            wr.writerow([name, op, size, W, H, salt, out.size[0], out.size[1], kind])


# --- the training chain with its draws, ToTensor, Normalize -------------------

CHAIN_SEEDS = [3, 11, 2024]
CHAIN_SIZE = 32
NORM_MEAN, NORM_STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def fixtures_tensor():
    # 16x16 image holding every value 0..255 in each channel
    p = np.arange(256).reshape(16, 16)
    img = np.stack([(p + 85 * c) % 256 for c in range(3)], 2).astype(np.uint8)
    t = T.ToTensor()(Image.fromarray(img))
    save("to_tensor.npy", t.numpy().astype("<f4"))
    save("normalize.npy", T.Normalize(NORM_MEAN, NORM_STD)(t).numpy().astype("<f4"))

    # RandomResizedCrop(32), RandomHorizontalFlip, ToTensor, Normalize on
    # source 1, one seeded stream per seed
    src = Image.fromarray(make_image(*SOURCES[1]))
    chain = T.Compose([T.RandomResizedCrop(CHAIN_SIZE), T.RandomHorizontalFlip(),
                       T.ToTensor(), T.Normalize(NORM_MEAN, NORM_STD)])
    outs = []
    for s in CHAIN_SEEDS:
        torch.manual_seed(s)
        outs.append(chain(src).numpy())
        outs.append(chain(src).numpy())   # the second sample of the stream
    save("chain_seeds.npy", np.array(CHAIN_SEEDS, "<u8"))
    save("chain.npy", np.stack(outs).astype("<f4"))


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    assert torchvision.__version__.startswith("0.14"), torchvision.__version__
    assert PIL.__version__.startswith("9.4"), PIL.__version__
    cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else None
    if cap is not None and cap not in ("AVX2", "AVX512"):
        sys.exit("fixtures_geometry: torch uses %s kernels, need AVX2" % cap)
    if "CPU capability usage: AVX2" not in torch.__config__.show() and \
       "CPU capability usage: AVX512" not in torch.__config__.show():
        sys.exit("fixtures_geometry: torch is not using its AVX2 kernels")
    os.makedirs(OUT, exist_ok=True)
    fixtures_rng()
    fixtures_rrc()
    fixtures_resample()
    fixtures_ops()
    fixtures_tensor()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("fixtures_geometry: %d files, %d bytes in %s" % (len(os.listdir(OUT)), total, OUT))


if __name__ == "__main__":
    main()
