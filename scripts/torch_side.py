#!/usr/bin/python3
"""The PyTorch side of `ppbench compare`: one configuration through the real
torch.utils.data.DataLoader and torchvision, instrumented as Lotus (IISWC 2024)
instruments it, written as LotusTrace files that ppbench's own analysis reads.

usage: /usr/bin/python3 scripts/torch_side.py CONFIG.json
       /usr/bin/python3 scripts/torch_side.py --probe     (versions as JSON; exit 3
                                                           if torch/torchvision/PIL
                                                           cannot be imported)

CONFIG.json (written by `ppbench compare` from ppbench's resolved options):
  data            ImageFolder root
  ops             the pipeline, one {"op": name, "lotus_name": S<Op>, "args": {k: v}}
                  per line of the .pipe file: decode first, collate last
  workers, batch, prefetch_factor, pin_memory, shuffle, drop_last, seed,
  epochs, max_batches (0: all; cut in all epochs, as ppbench), gpu_step_ns,
  h2d_bytes_per_s, max_pixels, trace (per-sample events), out (folder),
  lotustrace_dir, prefix, dump_batches, dump_dir

What is recorded (wall-clock ns: one CLOCK_MONOTONIC reading plus one offset
to time.time_ns(), taken once before the workers fork, as ppbench does), kept
in per-process memory and written when the process ends, never between
measured regions:
  worker  S<Op> around each transform, SLoader around pil_loader (open + decode
          + convert('RGB')), STransform around the Compose, SCollation around
          default_collate, SBatchPreprocessed_<id> around the whole fetch
          (_MapDatasetFetcher.fetch: every __getitem__ plus the collation).
  main    SBatchQueued_<id> in _try_put_index; SBatchWait_<id> from the entry of
          _next_data to the _get_data() that returned the in-order batch, and a
          1000 ns marker at the arrival of a batch that came out of order;
          SBatchConsumed_<id> after _next_data (after the next dispatch), as the
          Lotus fork of PyTorch 2.0 does (spec 2.13). ppbench-only files:
          SBatchArrived_<id> (main), SGpuCopy_<id> / SGpuStep_<id> (the
          simulated GPU: sleeps bytes / bandwidth, then the step).
Batch ids: the batch sampler yields index lists that carry their id (global
over epochs, as ppbench's). Workers flush at exit through a
multiprocessing.util.Finalize registered by worker_init_fn, with their rusage
(CPU seconds, ru_maxrss) in worker_<pid>.json. run.json holds the run.
"""
import json
import os
import resource
import sys
import time

OFF = 0          # time.time_ns() - time.monotonic_ns(), set once in main()
EV = []          # (name, start_wall_ns, dur_ns) of this process's Lotus file
EV_PPB = []      # ppbench-only events of the main process (SBatchArrived)
EV_GPU = []      # SGpuCopy / SGpuStep
CFG = {}
now = time.monotonic_ns


def probe():
    try:
        import numpy
        import PIL
        import torch
        import torchvision
        from PIL import features
    except Exception as e:  # noqa: BLE001 - any import failure means "missing"
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
        return 3
    print(json.dumps(versions(torch, torchvision, PIL, numpy, features)))
    return 0


def cpu_capability(torch):
    """The ATen kernels torch dispatches to (1.13 has no get_cpu_capability)."""
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage:" in line:
            return line.split(":", 1)[1].strip()
    return "unknown"


def mapped_library(stem):
    """The file of a shared library this process has mapped (Pillow's libjpeg)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "/" + stem in path:
                    return os.path.realpath(path)
    except OSError:
        pass
    return ""


def versions(torch, torchvision, PIL, numpy, features):
    from PIL import Image
    Image.init()   # loads the plugins, and _imaging with its libjpeg
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "pillow": PIL.__version__,
        "numpy": numpy.__version__,
        "libjpeg": features.version("jpg"),
        "libjpeg_turbo": bool(features.check_feature("libjpeg_turbo")),
        "libjpeg_so": mapped_library("libjpeg.so"),
        "cpu_capability": cpu_capability(torch),
        "aten_cpu_capability_env": os.environ.get("ATEN_CPU_CAPABILITY", ""),
        "cuda_available": bool(torch.cuda.is_available()),
    }


class Timed:
    """Calls fn and records one event named `name` around it."""

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def __call__(self, x):
        t0 = now()
        y = self.fn(x)
        t1 = now()
        EV.append((self.name, t0 + OFF, t1 - t0))
        return y


class IdList(list):
    """A batch of dataset indices that knows its batch id (pickles with it)."""


class IdBatchSampler:
    """torch's BatchSampler over the DataLoader's own sampler, yielding IdLists
    with ids running on over epochs, cut after max_batches in all."""

    def __init__(self, sampler, batch_size, drop_last, max_batches):
        from torch.utils.data import BatchSampler
        self.bs = BatchSampler(sampler, batch_size, drop_last)
        self.next_id = 0
        self.max = max_batches

    def __iter__(self):
        for b in self.bs:
            if self.max and self.next_id >= self.max:
                return
            lst = IdList(b)
            lst.bid = self.next_id
            self.next_id += 1
            yield lst

    def __len__(self):
        return len(self.bs)


def write_events(path, events):
    if not events:
        return      # as ppbench: no empty files (pandas fails on them)
    with open(path, "w") as f:
        f.write("".join("%s,%d,%d\n" % e for e in events))


def worker_exit(wid):
    ru = resource.getrusage(resource.RUSAGE_SELF)
    pid = os.getpid()
    write_events(os.path.join(CFG["lotustrace_dir"], "%s_worker_pid_%d" % (CFG["prefix"], pid)), EV)
    with open(os.path.join(CFG["out"], "worker_%d.json" % pid), "w") as f:
        json.dump({"worker_id": wid, "pid": pid, "cpu_s": ru.ru_utime + ru.ru_stime,
                   "maxrss_kib": ru.ru_maxrss, "events": len(EV)}, f)


def worker_init(wid):
    import multiprocessing.util
    del EV[:]   # what the parent had recorded before the fork
    multiprocessing.util.Finalize(None, worker_exit, args=(wid,), exitpriority=100)


def parse_args(op, args):
    """Op arguments as ppbench parses them (same defaults)."""
    def dbl(k, n, d):
        if k not in args:
            return d
        v = [float(x) for x in args[k].split(",")]
        if len(v) != n:
            raise SystemExit("torch_side: %s %s: expected %d numbers" % (op, k, n))
        return v if n > 1 else v[0]

    def integer(k, d):
        return int(args[k]) if k in args else d
    if op == "random_resized_crop":
        return dict(size=integer("size", 224), scale=tuple(dbl("scale", 2, [0.08, 1.0])),
                    ratio=tuple(dbl("ratio", 2, [3.0 / 4.0, 4.0 / 3.0])))
    if op == "random_horizontal_flip":
        return dict(p=dbl("p", 1, 0.5))
    if op in ("resize", "center_crop"):
        return dict(size=integer("size", 256 if op == "resize" else 224))
    if op == "normalize":
        return dict(mean=dbl("mean", 3, [0.485, 0.456, 0.406]),
                    std=dbl("std", 3, [0.229, 0.224, 0.225]))
    return {}


def build_transform(ops, trace):
    from torchvision import transforms as T
    make = {
        "random_resized_crop": lambda a: T.RandomResizedCrop(a["size"], scale=a["scale"],
                                                             ratio=a["ratio"]),
        "random_horizontal_flip": lambda a: T.RandomHorizontalFlip(a["p"]),
        "resize": lambda a: T.Resize(a["size"]),
        "center_crop": lambda a: T.CenterCrop(a["size"]),
        "to_tensor": lambda a: T.ToTensor(),
        "normalize": lambda a: T.Normalize(a["mean"], a["std"]),
    }
    steps = []
    for o in ops:
        if o["op"] in ("decode", "collate"):
            continue
        if o["op"] not in make:
            raise SystemExit("torch_side: op '%s' has no torchvision equivalent" % o["op"])
        t = make[o["op"]](parse_args(o["op"], o.get("args", {})))
        steps.append(Timed(o["lotus_name"], t) if trace else t)
    compose = T.Compose(steps)
    return Timed("STransform", compose) if trace else compose


def sleep_until(deadline):
    while True:
        rem = deadline - now()
        if rem <= 0:
            return
        time.sleep(rem / 1e9)


def run(cfg):
    global OFF
    import numpy
    import PIL
    import torch
    import torchvision
    from PIL import Image, features
    from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
    from torch.utils.data._utils import fetch as fetch_mod
    from torch.utils.data._utils.collate import default_collate
    from torch.utils.data.dataloader import _MultiProcessingDataLoaderIter
    from torchvision import datasets
    from torchvision.datasets.folder import pil_loader

    CFG.update(cfg)
    trace = bool(cfg.get("trace", True))
    os.makedirs(cfg["lotustrace_dir"], exist_ok=True)
    mp = int(cfg.get("max_pixels", 0))
    # ppbench refuses more than max_pixels, as Pillow refuses more than twice
    # MAX_IMAGE_PIXELS (DecompressionBombError)
    Image.MAX_IMAGE_PIXELS = mp // 2 if mp else None

    # the fetch of one batch, as the Lotus fork times it in _worker_loop
    orig_fetch = fetch_mod._MapDatasetFetcher.fetch

    def traced_fetch(self, index):
        t0 = now()
        data = orig_fetch(self, index)
        t1 = now()
        bid = getattr(index, "bid", None)
        if bid is not None:
            EV.append(("SBatchPreprocessed_%d" % bid, t0 + OFF, t1 - t0))
        return data
    fetch_mod._MapDatasetFetcher.fetch = traced_fetch

    base = [0]   # id of the first batch of the current epoch

    class TracedIter(_MultiProcessingDataLoaderIter):
        def __init__(self, loader):
            self._lt_base = base[0]     # _reset (in __init__) already dispatches
            self._lt_entry = now()
            super().__init__(loader)

        def _try_put_index(self):
            before = self._send_idx
            super()._try_put_index()
            if self._send_idx != before:
                EV.append(("SBatchQueued_%d" % (self._lt_base + before), now() + OFF, 1000))

        def _get_data(self):
            idx, data = super()._get_data()
            t = now()
            gid = self._lt_base + idx
            EV_PPB.append(("SBatchArrived_%d" % gid, t + OFF, 1000))
            if idx == self._rcvd_idx:
                EV.append(("SBatchWait_%d" % gid, self._lt_entry + OFF, t - self._lt_entry))
            else:
                EV.append(("SBatchWait_%d" % gid, t + OFF, 1000))
            return idx, data

        def _next_data(self):
            self._lt_entry = now()
            data = super()._next_data()
            EV.append(("SBatchConsumed_%d" % (self._lt_base + self._rcvd_idx - 1),
                       now() + OFF, 1000))
            return data

    class TracedLoader(DataLoader):
        def _get_iterator(self):
            return TracedIter(self)

    loader_fn = Timed("SLoader", pil_loader) if trace else pil_loader
    dataset = datasets.ImageFolder(cfg["data"], transform=build_transform(cfg["ops"], trace),
                                   loader=loader_fn)
    sampler = RandomSampler(dataset) if cfg["shuffle"] else SequentialSampler(dataset)
    bsampler = IdBatchSampler(sampler, cfg["batch"], bool(cfg["drop_last"]),
                              int(cfg["max_batches"]))
    collate = Timed("SCollation", default_collate) if trace else default_collate
    loader = TracedLoader(dataset, batch_sampler=bsampler, num_workers=cfg["workers"],
                          collate_fn=collate, pin_memory=bool(cfg["pin_memory"]),
                          prefetch_factor=cfg["prefetch_factor"], worker_init_fn=worker_init)

    step = int(cfg["gpu_step_ns"])
    bw = float(cfg["h2d_bytes_per_s"])
    dump_n = int(cfg.get("dump_batches", 0))
    images = batches = 0
    pin_effective = None
    torch.manual_seed(cfg["seed"])
    OFF = time.time_ns() - time.monotonic_ns()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    start = now()
    for _ in range(cfg["epochs"]):
        if bsampler.max and bsampler.next_id >= bsampler.max:
            break
        base[0] = bsampler.next_id
        it = iter(loader)
        pin_effective = bool(it._pin_memory)
        while True:
            try:
                imgs, labels = next(it)
            except StopIteration:
                break
            gid = it._lt_base + it._rcvd_idx - 1
            nbytes = imgs.numel() * imgs.element_size() + labels.numel() * labels.element_size()
            t0 = now()
            sleep_until(t0 + (int(nbytes / bw * 1e9) if bw > 0 else 0))
            t1 = now()
            sleep_until(t1 + step)
            t2 = now()
            EV_GPU.append(("SGpuCopy_%d" % gid, t0 + OFF, t1 - t0))
            EV_GPU.append(("SGpuStep_%d" % gid, t1 + OFF, t2 - t1))
            if batches < dump_n:
                numpy.save(os.path.join(cfg["dump_dir"], "batch_%d.npy" % gid), imgs.numpy())
                numpy.save(os.path.join(cfg["dump_dir"], "labels_%d.npy" % gid), labels.numpy())
            images += len(labels)
            batches += 1
        del it
    end = now()
    ru = resource.getrusage(resource.RUSAGE_SELF)

    pid = os.getpid()
    d, p = cfg["lotustrace_dir"], cfg["prefix"]
    write_events(os.path.join(d, "%s_main_pid_%d" % (p, pid)), EV)
    write_events(os.path.join(d, "%s_ppbench_main_%d" % (p, pid)), EV_PPB)
    write_events(os.path.join(d, "%s_ppbench_gpu_%d" % (p, pid)), EV_GPU)
    workers = []
    for name in sorted(os.listdir(cfg["out"])):
        if name.startswith("worker_") and name.endswith(".json"):
            with open(os.path.join(cfg["out"], name)) as f:
                workers.append(json.load(f))
    workers.sort(key=lambda w: (w["worker_id"], w["pid"]))
    expected = len(bsampler) * cfg["epochs"]
    if bsampler.max:
        expected = min(expected, bsampler.max)
    out = {
        "tool": "pytorch",
        "complete": batches == expected,
        "start_wall_ns": start + OFF,
        "end_wall_ns": end + OFF,
        "e2e_s": (end - start) / 1e9,
        "images": images,
        "batches": batches,
        "main_cpu_s": (ru.ru_utime + ru.ru_stime) - (ru0.ru_utime + ru0.ru_stime),
        "main_maxrss_kib": ru.ru_maxrss,
        "pin_memory_requested": bool(cfg["pin_memory"]),
        "pin_memory_effective": pin_effective,
        "num_threads_main": torch.get_num_threads(),
        "workers": workers,
        "versions": versions(torch, torchvision, PIL, numpy, features),
    }
    with open(os.path.join(cfg["out"], "run.json"), "w") as f:
        json.dump(out, f, indent=2)
    print("pytorch: %d images in %d batches, %.3f s, %.1f images/s" %
          (images, batches, out["e2e_s"], images / out["e2e_s"] if out["e2e_s"] else 0))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--probe":
        return probe()
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    with open(argv[1]) as f:
        cfg = json.load(f)
    return run(cfg)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
