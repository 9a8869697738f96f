#!/usr/bin/python3
"""A stored sample of both sides of `ppbench compare`, for the parsing test
(tests/unit/test_compare.c), made with Debian's python3-torch 1.13 and
python3-torchvision 0.14 (run with /usr/bin/python3 from the repository top,
after `make`: the ppbench side needs bench/ppbench).

tests/fixtures/compare/
  pytorch/     what scripts/torch_side.py leaves: config.json, run.json,
               worker_<pid>.json, lotustrace/b3_gpu1/lotustrace_log_*
  ppbench/     a `ppbench run` results folder (summary.json, lotustrace/)
               of the same configuration (trace.json, CSVs left out)
  expected.json  figures computed here, straight from the files, that the
               C analysis must find: images, batches, per-op event counts and
               mean durations, batch preprocessing mean, out-of-order
               batches, the sum of in-order waits, stall %, mean delay, E2E,
               workers' CPU and RSS, worker of every batch

Both sides are timed runs: regenerating changes every number, and
expected.json with them. Each side is run until it has at least one batch
that arrived out of order, so that the markers are in the sample.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

OUT = "tests/fixtures/compare"
PREFIX = "lotustrace_log"
WORKERS, BATCH, BATCHES, GPUS = 2, 3, 6, 1
STEP_MS = 5
TRIES = 20     # runs until each side has an out-of-order batch (a 1000 ns marker)
OPS = [
    ("decode", "SLoader", {}),
    ("random_resized_crop", "SRandomResizedCrop",
     {"size": "224", "scale": "0.08,1", "ratio": "0.75,1.3333333333333333"}),
    ("random_horizontal_flip", "SRandomHorizontalFlip", {"p": "0.5"}),
    ("to_tensor", "SToTensor", {}),
    ("normalize", "SNormalize", {"mean": "0.485,0.456,0.406", "std": "0.229,0.224,0.225"}),
    ("collate", "SCollation", {}),
]


def make_dataset(root):
    rnd = random.Random(7)
    for c in range(3):
        d = os.path.join(root, "class%d" % c)
        os.makedirs(d)
        for i in range(6):
            w, h = rnd.choice([(500, 375), (375, 500), (320, 240), (640, 427)])
            img = Image.new("RGB", (w, h))
            px = img.load()
            for y in range(0, h, 4):
                for x in range(0, w, 4):
                    px[x, y] = (rnd.randrange(256), (x * 3) & 255, (y * 5) & 255)
            img.save(os.path.join(d, "img%02d.jpg" % i), quality=90)


def read_events(d):
    ev = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name)) as f:
            ev[name] = [(n, int(s), int(t)) for n, s, t in
                        (line.strip().split(",") for line in f if line.strip())]
    return ev


def has_ooo(lt):
    ev = read_events(lt)
    return any(n.startswith("SBatchWait_") and d == 1000
               for f in ev if "_main_pid_" in f for n, _, d in ev[f])


def expected(side_dir, start, end, images, batches, wcpu, wrss):
    lt = os.path.join(side_dir, "lotustrace")
    lt = os.path.join(lt, os.listdir(lt)[0])
    ev = read_events(lt)
    ops = {}
    preproc, wait_total, ooo, waits = {}, 0, 0, 0
    consumed, worker_of = {}, {}
    worker_files = sorted((f for f in ev if "_worker_pid_" in f),
                          key=lambda f: min(int(n.split("_")[1]) for n, _, _ in ev[f]
                                            if n.startswith("SBatchPreprocessed_")))
    for wid, f in enumerate(worker_files):
        for n, s, d in ev[f]:
            if n.startswith("SBatchPreprocessed_"):
                b = int(n.split("_")[1])
                preproc[b] = (s, d)
                worker_of[b] = wid
            elif not n.startswith("SBatch"):
                ops.setdefault(n, []).append(d)
    for f in ev:
        if "_main_pid_" not in f:
            continue
        for n, s, d in ev[f]:
            if n.startswith("SBatchWait_"):
                waits += 1
                if d == 1000:
                    ooo += 1
                else:
                    wait_total += d
            elif n.startswith("SBatchConsumed_"):
                consumed[int(n.split("_")[1])] = s
    delays = [consumed[b] - (preproc[b][0] + preproc[b][1]) for b in consumed if b in preproc]
    return {
        "images": images,
        "batches": batches,
        "e2e_s": (end - start) / 1e9,
        "ops": {n: {"count": len(v), "mean_ns": sum(v) / len(v)} for n, v in ops.items()},
        "preproc_count": len(preproc),
        "preproc_all_mean_ns": sum(d for _, d in preproc.values()) / len(preproc),
        "wait_records": waits,
        "ooo_batches": ooo,
        "wait_total_s": wait_total / 1e9,
        "stall_pct": 100.0 * wait_total / (end - start),
        "delay_mean_ns": sum(delays) / len(delays),
        "workers_cpu_s": sum(wcpu),
        "worker_maxrss_kib": wrss,
        "worker_of_batch": [worker_of[b] for b in sorted(worker_of)],
    }


def main():
    if not os.path.exists("bench/ppbench"):
        sys.exit("fixtures_compare: build bench/ppbench first (make)")
    tmp = tempfile.mkdtemp(prefix="ppbench-fix-compare.")
    try:
        data = os.path.join(tmp, "data")
        make_dataset(data)
        shutil.rmtree(OUT, ignore_errors=True)
        tdir = os.path.join(OUT, "pytorch")
        lt = os.path.join(tdir, "lotustrace", "b%d_gpu%d" % (BATCH, GPUS))
        cfg = {
            "data": data, "pipeline": "imagenet_train",
            "ops": [{"op": o, "lotus_name": n, "args": a} for o, n, a in OPS],
            "workers": WORKERS, "batch": BATCH, "gpus": GPUS, "prefetch_factor": 2,
            "pin_memory": True, "shuffle": True, "drop_last": False, "seed": 0, "epochs": 1,
            "max_batches": BATCHES, "gpu_step_ns": STEP_MS * 1000000, "h2d_bytes_per_s": 12e9,
            "max_pixels": 178956970, "trace": True, "out": tdir, "lotustrace_dir": lt,
            "prefix": PREFIX, "dump_batches": 0, "dump_dir": os.path.join(tmp, "dump"),
        }
        for _ in range(TRIES):
            shutil.rmtree(tdir, ignore_errors=True)
            os.makedirs(lt)
            with open(os.path.join(tdir, "config.json"), "w") as f:
                json.dump(cfg, f, indent=2)
            subprocess.run([sys.executable, "scripts/torch_side.py",
                            os.path.join(tdir, "config.json")], check=True)
            if has_ooo(lt):
                break
        # no temporary paths in the stored sample
        cfg.update(data="(a temporary dataset)", out="tests/fixtures/compare/pytorch",
                   lotustrace_dir=lt, dump_dir="")
        with open(os.path.join(tdir, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        with open(os.path.join(tdir, "run.json")) as f:
            run = json.load(f)
        exp = {"pytorch": expected(tdir, run["start_wall_ns"], run["end_wall_ns"],
                                   run["images"], run["batches"],
                                   [w["cpu_s"] for w in run["workers"]],
                                   [w["maxrss_kib"] for w in run["workers"]])}

        for _ in range(TRIES):
            pout = os.path.join(tmp, "runs")
            shutil.rmtree(pout, ignore_errors=True)
            subprocess.run(["bench/ppbench", "run", "--data", data, "--workers", str(WORKERS),
                            "--batch", str(BATCH), "--gpus", str(GPUS), "--max-batches",
                            str(BATCHES), "--gpu-step", "%dms" % STEP_MS, "--rng", "torch",
                            "--out", pout, "--tag", "ppbench"], check=True,
                           stdout=subprocess.DEVNULL)
            src = os.path.join(pout, os.listdir(pout)[0])
            sl = os.path.join(src, "lotustrace")
            if has_ooo(os.path.join(sl, os.listdir(sl)[0])):
                break
        pdir = os.path.join(OUT, "ppbench")
        os.makedirs(pdir)
        shutil.copytree(os.path.join(src, "lotustrace"), os.path.join(pdir, "lotustrace"))
        with open(os.path.join(src, "summary.json")) as f:
            s = json.load(f)
        s["options"]["data"] = "(a temporary dataset)"
        s["options"]["out"] = "(a temporary folder)"
        with open(os.path.join(pdir, "summary.json"), "w") as f:
            json.dump(s, f, indent=2)
        exp["ppbench"] = expected(pdir, s["start_wall_ns"], s["end_wall_ns"], s["images"],
                                  s["batches"], s["cpu"]["per_worker_s"],
                                  s["memory"]["worker_max_rss_kib"])
        with open(os.path.join(OUT, "expected.json"), "w") as f:
            json.dump(exp, f, indent=2)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
