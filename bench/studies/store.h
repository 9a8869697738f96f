/* A store of materialised samples: what a pipeline's deterministic prefix
 * made of each sample, written once (offline) and read back every epoch
 * (ppbench strategies, PRESTO's preprocessing strategies).
 *
 * A store is a folder:
 *   shard-NNN.bin   records, one after the other; each shard is written by
 *                   one thread, so the offline pass runs in parallel
 *   index           where each sample's record is (shard, offset, length)
 *
 * A record is a 64-byte header then the payload, raw or compressed as one
 * block (zstd at a stated level, or lz4's default fast mode). The header
 * holds the sample's state after the prefix (pixel kind, h, w), its label,
 * its dataset index, the payload size before and after compression and an
 * XXH64 of the header and the stored payload, checked on every read (the
 * role TFRecord's CRC32C plays in PRESTO's stores). The index carries an
 * XXH64 of itself. Integers are little-endian. A sample on which the prefix
 * failed is stored as a failed record whose payload is the reason, so the
 * online pass skips exactly the samples the full pipeline skips.
 *
 * Every file is fsync'ed before store_finish returns, so that
 * store_drop_cache (posix_fadvise DONTNEED) can empty the page cache of the
 * store and the next epoch reads from the device.
 *
 * Errors: -1 with err filled, git style ("corrupt store 'dir/shard-001.bin':
 * record of sample 17 at byte 4096: checksum mismatch"). Nothing is printed. */
#ifndef PPBENCH_STORE_H
#define PPBENCH_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

enum store_format {
	STORE_RAW = 0,
	STORE_ZSTD,
	STORE_LZ4,
};
#define STORE_NFORMATS 3
#define STORE_ZSTD_DEFAULT_LEVEL 1

/* "raw", "zstd", "lz4". */
const char *store_format_name(enum store_format f);
/* The format named s, or -1. */
int store_format_parse(const char *s);
/* The library behind a format and its version ("libzstd 1.5.4"). */
void store_format_library(enum store_format f, char *out, size_t n);

/* One sample's state after the prefix. */
struct store_rec {
	int kind;           /* enum pix_kind; PIX_NONE: the encoded file's bytes */
	int failed;         /* 1: the prefix failed; the payload is the reason (text) */
	int h, w;
	int64_t label;
	uint64_t index;     /* index in the dataset */
	uint64_t bytes;     /* payload bytes (decompressed) */
};

/* Per-thread state of a reader or writer: the compression contexts and the
 * buffer for compressed bytes. Zero it before first use. */
struct store_io {
	void *zc, *zd;      /* ZSTD_CCtx, ZSTD_DCtx, made on first use */
	struct buf comp;
};
void store_io_release(struct store_io *io);

struct store_entry {
	uint32_t shard;
	uint64_t offset;    /* of the record's header in its shard */
	uint64_t length;    /* header and stored payload */
};

struct store {
	char dir[1024];
	enum store_format format;
	int level;          /* zstd's level (0 for the other formats) */
	int nshards;
	int writing;
	size_t n;           /* samples (positions 0..n-1) */
	int *fd;            /* [nshards] */
	uint64_t *end;      /* [nshards] writer: bytes written; reader: file size */
	uint64_t *payload;  /* [nshards] writer: payload bytes put */
	struct store_entry *e;  /* [n] */
	uint64_t payload_bytes; /* sum of the records' decompressed payloads */
	uint64_t stored_bytes;  /* sum of the sizes of the store's files */
};

/* Create the folder dir (its parent must exist; dir must not) and nshards
 * empty shards for n samples. level: zstd's compression level (ignored by
 * raw and lz4). */
int store_create(struct store *st, const char *dir, enum store_format f, int level, size_t n,
		 int nshards, char *err, size_t errlen);
/* Append the record of position i (0..n-1) to shard `shard`. Threads may
 * put at the same time into different shards. payload: r->bytes bytes. */
int store_put(struct store *st, struct store_io *io, int shard, size_t i,
	      const struct store_rec *r, const void *payload, char *err, size_t errlen);
/* Every position put? fsync the shards, write and fsync the index, close
 * the files, fill stored_bytes. The store is closed after (also on error). */
int store_finish(struct store *st, char *err, size_t errlen);

/* Open a finished store: read and check its index, open its shards and
 * check that they hold what the index says. */
int store_open(struct store *st, const char *dir, char *err, size_t errlen);
/* Read position i: the header into *r, the payload (decompressed) into out
 * (grown as needed; out->p then holds r->bytes bytes). Checks the record's
 * header and checksum. Safe from several threads with one io each. */
int store_get(const struct store *st, struct store_io *io, size_t i, struct store_rec *r,
	      struct buf *out, char *err, size_t errlen);
/* Drop the store's pages from the page cache (posix_fadvise DONTNEED). */
void store_drop_cache(const struct store *st);
void store_close(struct store *st);

/* Remove a store's files (index, shard-*.bin) and its folder. */
int store_remove(const char *dir, char *err, size_t errlen);

#endif
