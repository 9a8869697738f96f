#!/usr/bin/python3
"""Golden fixtures for the decode op: small JPEG and PNG files in every
layout the decoder handles, and what Pillow 9.4 makes of them.

For each good file tests/fixtures/decode/<file> the expected pixels are in
tests/fixtures/decode/<file>.npy = np.asarray(Image.open(f).convert('RGB')).
Broken files go to tests/fixtures/bad/, and bad/manifest.json records what
Pillow does with each ("error" and the exception, or "ok" plus a .npy when
Pillow decodes it anyway, as it does for garbled entropy-coded data).

Run from the repository top with Debian's /usr/bin/python3 (Pillow 9.4,
libjpeg-turbo 2.1.5). Deterministic: fixed seeds, no timestamps."""

import ctypes
import json
import os
import struct
import sys
import warnings
import zlib

import numpy as np
from PIL import Image

GOOD = "tests/fixtures/decode"
BAD = "tests/fixtures/bad"


def photo(w, h, seed=1):
    """Gradients, noise and sharp coloured shapes: chroma subsampling and
    upsampling both matter on this."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 40 + 180 * x / max(w - 1, 1) + 20 * np.sin(y / 3.0)
    g = 60 + 150 * y / max(h - 1, 1) + 25 * np.cos(x / 5.0)
    b = 128 + 100 * np.sin((x + y) / 9.0)
    img = np.stack([r, g, b], axis=-1)
    img += rng.normal(0, 14, img.shape)
    cx, cy = 0.35 * w, 0.5 * h
    disk = (x - cx) ** 2 + (y - cy) ** 2 < (0.22 * min(w, h) + 1) ** 2
    img[disk] = (230, 20, 40)
    box = (x > 0.6 * w) & (x < 0.85 * w) & (y > 0.15 * h) & (y < 0.55 * h)
    img[box] = (10, 200, 30)
    stripes = ((x + 2 * y) // 3 % 2 == 0) & (y > 0.7 * h)
    img[stripes] = (250, 250, 20)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def gray(w, h, seed=2):
    return photo(w, h, seed).astype(np.uint16).sum(axis=2).__floordiv__(3).astype(np.uint8)


def expected(path):
    with Image.open(path) as im:
        mode = im.mode
        a = np.asarray(im.convert("RGB"))
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
    return mode, a


# --- raw PNG writer (for what Pillow cannot write) --------------------------

def chunk(cid, data):
    return (struct.pack(">I", len(data)) + cid + data +
            struct.pack(">I", zlib.crc32(cid + data) & 0xffffffff))


def pack_row(samples, depth):
    """samples: 1-D array of channel values of one row."""
    if depth == 16:
        return samples.astype(">u2").tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per = 8 // depth
    n = len(samples)
    out = bytearray((n * depth + 7) // 8)
    for i, v in enumerate(samples):
        out[i // per] |= int(v) << (8 - depth * (i % per + 1))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
         (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_bytes(a, depth, ctype, plte=None, trns=None, interlace=False):
    """a: h x w x channels array of sample values."""
    if a.ndim == 2:
        a = a[:, :, None]
    h, w, _ = a.shape
    raw = bytearray()
    if interlace:
        for x0, y0, dx, dy in ADAM7:
            sub = a[y0::dy, x0::dx]
            if sub.shape[0] == 0 or sub.shape[1] == 0:
                continue
            for row in sub:
                raw += b"\0" + pack_row(row.reshape(-1), depth)
    else:
        for y, row in enumerate(a):
            data = pack_row(row.reshape(-1), depth)
            if y % 2 and depth >= 8:
                # Sub filter on odd rows, so unfiltering is exercised
                bpp = max(1, a.shape[2] * depth // 8)
                b = bytearray(data)
                for i in range(len(b) - 1, bpp - 1, -1):
                    b[i] = (b[i] - b[i - bpp]) & 0xff
                raw += b"\1" + bytes(b)
            else:
                raw += b"\0" + data
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0,
                                      1 if interlace else 0))
    if plte is not None:
        out += chunk(b"PLTE", bytes(plte))
    if trns is not None:
        out += chunk(b"tRNS", bytes(trns))
    z = zlib.compress(bytes(raw), 9)
    # two IDAT chunks, as real encoders split them
    out += chunk(b"IDAT", z[: len(z) // 2]) + chunk(b"IDAT", z[len(z) // 2:])
    out += chunk(b"IEND", b"")
    return out


# --- TurboJPEG through ctypes (YCCK and 4:4:0, which Pillow cannot write) --

def tj_compress(rgb_or_cmyk, pixfmt, subsamp, quality=90):
    tj = ctypes.CDLL("libturbojpeg.so.0")
    tj.tjInitCompress.restype = ctypes.c_void_p
    h = tj.tjInitCompress()
    buf = ctypes.POINTER(ctypes.c_ubyte)()
    size = ctypes.c_ulong(0)
    a = np.ascontiguousarray(rgb_or_cmyk)
    hh, ww, ch = a.shape
    rc = tj.tjCompress2(ctypes.c_void_p(h), a.ctypes.data_as(ctypes.c_void_p),
                        ww, ww * ch, hh, pixfmt, ctypes.byref(buf),
                        ctypes.byref(size), subsamp, quality, 0)
    assert rc == 0, "tjCompress2 failed"
    data = ctypes.string_at(buf, size.value)
    tj.tjFree(buf)
    tj.tjDestroy(ctypes.c_void_p(h))
    return data


TJPF_CMYK, TJSAMP_420, TJSAMP_440, TJPF_RGB = 11, 2, 4, 0


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    # "Palette images with Transparency expressed in bytes...": only info
    warnings.simplefilter("ignore", UserWarning)
    os.makedirs(GOOD, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    for d in (GOOD, BAD):
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    made = []   # (file name, how it was made)

    def save_pil(name, im, **kw):
        im.save(os.path.join(GOOD, name), **kw)
        made.append((name, "Pillow " + im.mode + " " +
                     " ".join(f"{k}={v}" for k, v in kw.items())))

    def save_raw(name, data, how):
        write(os.path.join(GOOD, name), data)
        made.append((name, how))

    rgb = Image.fromarray(photo(48, 40))
    # JPEG: the subsamplings, progressive, optimised Huffman, odd sizes
    save_pil("j420.jpg", rgb, quality=90, subsampling=2)
    save_pil("j422.jpg", rgb, quality=90, subsampling=1)
    save_pil("j444.jpg", rgb, quality=90, subsampling=0)
    save_pil("jq50.jpg", rgb, quality=50)
    save_pil("jprog.jpg", rgb, quality=85, progressive=True)
    save_pil("jopt.jpg", rgb, quality=85, optimize=True)
    save_pil("jgray.jpg", Image.fromarray(gray(48, 40)), quality=90)
    save_pil("jgray_prog.jpg", Image.fromarray(gray(33, 17)), quality=80, progressive=True)
    save_pil("jcmyk.jpg", rgb.convert("CMYK"), quality=90)
    cmyk = photo(40, 30, 7).astype(np.uint8)
    k = (np.arange(40)[None, :] * 6 + np.arange(30)[:, None] * 2) % 256
    cmyk4 = np.dstack([cmyk, k.astype(np.uint8)])
    save_pil("jcmyk_k.jpg", Image.fromarray(cmyk4, "CMYK"), quality=92)
    save_raw("jycck.jpg", tj_compress(cmyk4, TJPF_CMYK, TJSAMP_420),
             "TurboJPEG CMYK input, YCCK 4:2:0 (Adobe transform 2)")
    save_raw("j440.jpg", tj_compress(photo(50, 37, 3), TJPF_RGB, TJSAMP_440),
             "TurboJPEG 4:4:0")
    for w, h, ss in ((37, 23, 2), (37, 23, 1), (1, 1, 2), (1, 300, 2),
                     (300, 1, 2), (17, 9, 0)):
        save_pil(f"j{w}x{h}_s{ss}.jpg", Image.fromarray(photo(w, h, w + h)),
                 quality=90, subsampling=ss)

    # PNG written by Pillow
    save_pil("prgb.png", rgb)
    rgba = np.dstack([photo(48, 40), (np.arange(48 * 40) % 256).reshape(40, 48).astype(np.uint8)])
    save_pil("prgba.png", Image.fromarray(rgba, "RGBA"))
    la = np.dstack([gray(48, 40), 255 - gray(48, 40)])
    save_pil("pla.png", Image.fromarray(la, "LA"))
    save_pil("pl.png", Image.fromarray(gray(48, 40)))
    pal = rgb.quantize(200)
    save_pil("ppal.png", pal)
    pal_t = pal.copy()
    pal_t.info["transparency"] = 3
    save_pil("ppal_trns1.png", pal_t, transparency=3)
    save_pil("ppal_trns.png", pal, transparency=bytes(range(0, 200)))
    save_pil("ppal4.png", rgb.quantize(16), bits=4)
    save_pil("p1bit.png", Image.fromarray(gray(37, 23)).convert("1"))

    # PNG written raw: sub-byte gray, 16-bit, Adam7, short palettes
    g = gray(37, 23).astype(np.int64)
    for depth in (1, 2, 4):
        save_raw(f"pgray{depth}.png", png_bytes(g >> (8 - depth), depth, 0),
                 f"raw gray {depth}-bit 37x23")
    rng = np.random.default_rng(5)
    g16 = (g * 257 + rng.integers(0, 257, g.shape)) // 1
    g16[:8] = g[:8]            # some values <= 255, which show through
    g16[8:12] = g[8:12] + 200  # and some just above 255, which clip
    save_raw("pgray16.png", png_bytes(g16, 16, 0), "raw gray 16-bit (mode I)")
    save_raw("pgray16_trns.png", png_bytes(g16, 16, 0, trns=struct.pack(">H", 300)),
             "raw gray 16-bit with tRNS")
    p = photo(37, 23, 9).astype(np.int64)
    p16 = p * 256 + rng.integers(0, 256, p.shape)
    save_raw("prgb16.png", png_bytes(p16, 16, 2), "raw RGB 16-bit")
    a16 = rng.integers(0, 65536, (23, 37, 1))
    save_raw("prgba16.png", png_bytes(np.dstack([p16, a16]), 16, 6), "raw RGBA 16-bit")
    save_raw("pla16.png", png_bytes(np.dstack([g16, a16[:, :, 0]]), 16, 4), "raw LA 16-bit")
    save_raw("prgb_trns.png", png_bytes(p, 8, 2, trns=struct.pack(">HHH", 1, 2, 3)),
             "raw RGB with tRNS")
    # palette of 5 entries, indices up to 15: Pillow's palette beyond PLTE
    idx = (np.arange(37)[None, :] + np.arange(23)[:, None]) % 16
    plte = bytes([200, 10, 10, 10, 200, 10, 10, 10, 200, 250, 250, 0, 7, 8, 9])
    save_raw("ppal_short.png", png_bytes(idx, 4, 3, plte=plte), "raw P 4-bit, 5-entry PLTE, indices to 15")
    idx2 = (np.arange(37)[None, :] * 3 + np.arange(23)[:, None]) % 4
    save_raw("ppal2.png", png_bytes(idx2, 2, 3, plte=plte[:12], trns=b"\x00\x80"),
             "raw P 2-bit with tRNS")
    idx1 = (np.arange(37)[None, :] + np.arange(23)[:, None] // 2) % 2
    save_raw("ppal1.png", png_bytes(idx1, 1, 3, plte=plte[:6]), "raw P 1-bit")
    save_raw("padam7_rgb.png", png_bytes(photo(37, 23, 11), 8, 2, interlace=True),
             "raw RGB Adam7 37x23")
    save_raw("padam7_gray2.png", png_bytes(g >> 6, 2, 0, interlace=True),
             "raw gray 2-bit Adam7 37x23")
    save_raw("padam7_rgba16.png", png_bytes(np.dstack([p16, a16]), 16, 6, interlace=True),
             "raw RGBA 16-bit Adam7")
    save_raw("padam7_tiny.png", png_bytes(photo(3, 2, 12), 8, 2, interlace=True),
             "raw RGB Adam7 3x2 (empty passes)")
    # a PNG named .JPEG, as n02105855_2933.JPEG in ImageNet
    with open(os.path.join(GOOD, "prgb.png"), "rb") as f:
        save_raw("png_named.JPEG", f.read(), "prgb.png under a .JPEG name")

    modes = {}
    for name, how in made:
        path = os.path.join(GOOD, name)
        mode, a = expected(path)
        np.save(path + ".npy", a)
        modes[name] = {"pillow_mode": mode, "shape": list(a.shape), "made": how}
    with open(os.path.join(GOOD, "manifest.json"), "w") as f:
        json.dump(modes, f, indent=1, sort_keys=True)
        f.write("\n")

    make_bad()


def make_bad():
    rgb = Image.fromarray(photo(48, 40))
    import io

    def jpeg(**kw):
        b = io.BytesIO()
        rgb.save(b, "JPEG", **kw)
        return b.getvalue()

    base = jpeg(quality=90)
    sos = base.index(b"\xff\xda")
    sos_end = sos + 2 + struct.unpack(">H", base[sos + 2:sos + 4])[0]
    sof = base.index(b"\xff\xc0")
    bad = {}

    def add(name, data, why):
        write(os.path.join(BAD, name), data)
        bad[name] = {"why": why}

    add("trunc_scan.jpg", base[: (sos_end + len(base)) // 2], "cut in the middle of the scan")
    prog = jpeg(quality=90, progressive=True)
    add("trunc_prog.jpg", prog[: len(prog) * 3 // 4], "progressive, cut in a later scan")
    add("noeoi.jpg", base[:-2], "complete scan, EOI marker missing")
    add("eoi_to_dqt.jpg", base[:-1] + b"\xdb",
        "EOI turned into a DQT marker whose segment is cut (after the last row)")
    add("trunc_noeoi_1.jpg", base[:-3], "last entropy byte and EOI missing")
    g = bytearray(base)
    for i in range(sos_end + 40, len(g) - 40, 97):
        if g[i] != 0xff and g[i - 1] != 0xff:
            g[i] ^= 0x5a
            if g[i] == 0xff:
                g[i] = 0x7f
    add("garbled_scan.jpg", bytes(g), "bytes flipped in the entropy-coded data")
    gh = bytearray(base)
    gh[sof + 2:sof + 12] = b"\xff\xff\x00\x00\x13\x37\xde\xad\xbe\xef"
    add("garbled_header.jpg", bytes(gh), "SOF segment overwritten with junk")
    add("garbled_both.jpg", bytes(gh[:sos_end]) + bytes(g[sos_end:]),
        "junk SOF and flipped scan bytes")
    add("empty.jpg", b"", "empty file")
    add("header_only.jpg", base[:20], "SOI and APP0 only")
    add("text.JPEG", b"this is not an image, just some text\n", "text file named .JPEG")
    add("gif.JPEG", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!"
        b"\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
        "a 1x1 GIF named .JPEG")
    add("bmp.JPEG", b"BM" + bytes(60), "BMP magic")
    add("webp.JPEG", b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(24), "WebP magic")
    huge = bytearray(base[:sos_end])
    huge[sof + 5:sof + 9] = struct.pack(">HH", 30000, 30000)
    add("huge.jpg", bytes(huge), "SOF claims 30000x30000, no scan data")
    big = bytearray(base[:sos_end])
    big[sof + 5:sof + 9] = struct.pack(">HH", 56, 40)
    add("empty_scan.jpg", bytes(big) + b"\xff\xd9",
        "SOF claims 40x56, EOI right after SOS: libjpeg fills grey")
    twelve = bytearray(base)
    twelve[sof + 4] = 12
    add("bits12.jpg", bytes(twelve), "SOF says 12-bit samples")

    b = io.BytesIO()
    rgb.save(b, "PNG")
    png = b.getvalue()
    idat = png.index(b"IDAT")
    add("trunc.png", png[: idat + 4 + 200], "cut inside IDAT")
    add("png_sig_only.png", png[:8], "PNG signature only")
    add("png_noiend.png", png[:-12], "IEND chunk missing")
    ph = bytearray(png)
    ph[16:24] = bytes(8)
    add("png_zero_size_crc.png", bytes(ph), "IHDR 0x0, CRC left wrong")
    add("png_zero_size.png", bytes(ph[:8]) + chunk(b"IHDR", bytes(ph[16:29])) + bytes(ph[33:]),
        "IHDR 0x0, CRC right")
    two = png_bytes(photo(48, 40), 8, 2)   # two IDAT chunks
    i1 = two.index(b"IDAT")
    ic = bytearray(two)
    ic[i1 + 4 + struct.unpack(">I", two[i1 - 4:i1])[0]] ^= 0xff
    add("png_idat_crc.png", bytes(ic), "first of two IDAT CRCs wrong (Pillow does not check them)")
    add("png_cut_crc.png", png[:-14], "cut inside the last IDAT CRC")
    i2 = two.index(b"IDAT", i1 + 4)
    add("png_idat_len.png", two[:i2 - 4] + struct.pack(">I", 0xf0000000) + two[i2:],
        "second IDAT length 0xf0000000 (over 2^31, runs past the end)")
    add("png_cut_adler.png", png[:-18], "cut inside the zlib adler32")
    z = bytearray(png)
    z[idat + 4 + 10: idat + 4 + 40] = bytes(30)
    add("png_bad_zlib.png", bytes(z), "zeros inside the zlib stream (IDAT CRC wrong)")
    bigp = png_bytes(np.zeros((1, 1), np.uint8), 8, 0)
    bigp = bigp[:16] + struct.pack(">II", 20000, 20000) + bigp[24:29]
    bigp = (bigp[:8] + chunk(b"IHDR", bigp[16:29]) +
            chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))
    add("huge.png", bigp, "IHDR claims 20000x20000")

    # where ppbench's decoder knowingly differs (pipelines/decode.h)
    deviations = {
        "gif.JPEG": "refused: only JPEG and PNG are decoded",
        "png_idat_len.png": "refused: libpng rejects chunk lengths over 2^31 - 1",
    }
    for name, info in bad.items():
        path = os.path.join(BAD, name)
        info["ppbench"] = deviations.get(name, "as Pillow")
        try:
            mode, a = expected(path)
        except Exception as e:  # what Pillow raises is the point
            info["pillow"] = "error"
            info["exception"] = f"{type(e).__name__}: {e}".replace(os.getcwd() + "/", "")
        else:
            info["pillow"] = "ok"
            info["pillow_mode"] = mode
            np.save(path + ".npy", a)
    with open(os.path.join(BAD, "manifest.json"), "w") as f:
        json.dump(bad, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
