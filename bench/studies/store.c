/* The materialised-sample store (store.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>
#include "checksum.h"
#include "fsutil.h"
#include "store.h"

#define INDEX_MAGIC "PPBSTORE"
#define INDEX_VERSION 1
#define INDEX_HEADER 64
#define INDEX_ENTRY 24
#define REC_MAGIC "PPSR"
#define REC_HEADER 64
#define MAX_SHARDS 4096

static const char *const format_names[STORE_NFORMATS] = { "raw", "zstd", "lz4" };

const char *store_format_name(enum store_format f)
{
	return (unsigned)f < STORE_NFORMATS ? format_names[f] : "?";
}

int store_format_parse(const char *s)
{
	for (int i = 0; i < STORE_NFORMATS; i++)
		if (!strcmp(s, format_names[i]))
			return i;
	return -1;
}

void store_format_library(enum store_format f, char *out, size_t n)
{
	switch (f) {
	case STORE_ZSTD:
		snprintf(out, n, "libzstd %s", ZSTD_versionString());
		break;
	case STORE_LZ4:
		snprintf(out, n, "liblz4 %s", LZ4_versionString());
		break;
	default:
		snprintf(out, n, "none");
		break;
	}
}

/* ---- little-endian fields ------------------------------------------------*/

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Record header:
 *   0 "PPSR"   4 kind u8, failed u8, format u8, 0   8 h u32   12 w u32
 *  16 label i64   24 index u64   32 bytes u64   40 stored u64   48 0 u64
 *  56 XXH64(payload as stored, seed = XXH64(header[0..56))) */
static void rec_header(unsigned char *h, const struct store_rec *r, enum store_format f,
		       uint64_t stored)
{
	memset(h, 0, REC_HEADER);
	memcpy(h, REC_MAGIC, 4);
	h[4] = (unsigned char)r->kind;
	h[5] = (unsigned char)(r->failed != 0);
	h[6] = (unsigned char)f;
	put32(h + 8, (uint32_t)r->h);
	put32(h + 12, (uint32_t)r->w);
	put64(h + 16, (uint64_t)r->label);
	put64(h + 24, r->index);
	put64(h + 32, r->bytes);
	put64(h + 40, stored);
}

static uint64_t rec_hash(const unsigned char *h, const void *stored, uint64_t n)
{
	return checksum_xxh64(stored, (size_t)n, checksum_xxh64(h, 56, 0));
}

/* Index header:
 *   0 "PPBSTORE"   8 version u32   12 format u32   16 level i32   20 nshards u32
 *  24 count u64   32 payload bytes u64   40 0 u64
 *  48 XXH64(entries, seed = XXH64(header[0..48)))   56 0 u64
 * then count entries: shard u32, 0 u32, offset u64, length u64. */

/* ---- helpers ---------------------------------------------------------------*/

static void shard_path(char *out, size_t n, const char *dir, int k)
{
	snprintf(out, n, "%.1000s/shard-%03d.bin", dir, k);
}

/* Past the first n bytes of the vector *iov[0..*niov): whole entries
 * dropped, the next one shortened (after a short pwritev/preadv). */
static void iov_advance(struct iovec **iov, int *niov, size_t n)
{
	while (*niov > 0 && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*niov)--;
	}
	if (*niov > 0) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}

static int write_all(int fd, struct iovec *iov, int niov, uint64_t off)
{
	while (niov > 0) {
		ssize_t w = pwritev(fd, iov, niov, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		off += (uint64_t)w;
		iov_advance(&iov, &niov, (size_t)w);
	}
	return 0;
}

/* Read iov fully; 1 if the file ended first, -1 on error. */
static int read_all(int fd, struct iovec *iov, int niov, uint64_t off)
{
	while (niov > 0) {
		ssize_t r = preadv(fd, iov, niov, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 1;
		off += (uint64_t)r;
		iov_advance(&iov, &niov, (size_t)r);
	}
	return 0;
}

static void free_arrays(struct store *st)
{
	free(st->fd);
	free(st->end);
	free(st->payload);
	free(st->e);
	st->fd = NULL;
	st->end = NULL;
	st->payload = NULL;
	st->e = NULL;
}

static int alloc_arrays(struct store *st)
{
	st->fd = malloc((size_t)st->nshards * sizeof(*st->fd));
	st->end = calloc((size_t)st->nshards, sizeof(*st->end));
	st->payload = calloc((size_t)st->nshards, sizeof(*st->payload));
	st->e = calloc(st->n ? st->n : 1, sizeof(*st->e));
	if (!st->fd || !st->end || !st->payload || !st->e) {
		free_arrays(st);
		return -1;
	}
	for (int k = 0; k < st->nshards; k++)
		st->fd[k] = -1;
	return 0;
}

void store_close(struct store *st)
{
	if (st->fd)
		for (int k = 0; k < st->nshards; k++)
			if (st->fd[k] >= 0)
				close(st->fd[k]);
	free_arrays(st);
}

void store_io_release(struct store_io *io)
{
	ZSTD_freeCCtx(io->zc);
	ZSTD_freeDCtx(io->zd);
	io->zc = io->zd = NULL;
	buf_free(&io->comp);
}

/* ---- writing -------------------------------------------------------------*/

int store_create(struct store *st, const char *dir, enum store_format f, int level, size_t n,
		 int nshards, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	if ((unsigned)f >= STORE_NFORMATS || nshards < 1 || nshards > MAX_SHARDS) {
		snprintf(err, errlen, "store '%s': bad format or shard count", dir);
		return -1;
	}
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	st->format = f;
	st->level = f == STORE_ZSTD ? level : 0;
	st->nshards = nshards;
	st->n = n;
	st->writing = 1;
	if (alloc_arrays(st)) {
		snprintf(err, errlen, "out of memory (index of %zu samples)", n);
		return -1;
	}
	if (mkdir(dir, 0777)) {
		snprintf(err, errlen, "cannot create store '%s': %s", dir, strerror(errno));
		free_arrays(st);
		return -1;
	}
	for (int k = 0; k < nshards; k++) {
		char p[1100];
		shard_path(p, sizeof(p), dir, k);
		st->fd[k] = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (st->fd[k] < 0) {
			snprintf(err, errlen, "cannot create '%s': %s", p, strerror(errno));
			store_close(st);
			return -1;
		}
	}
	return 0;
}

/* Compress n bytes of src into io->comp with st's format; *out the result. */
static int compress(const struct store *st, struct store_io *io, const void *src, uint64_t n,
		    const void **out, uint64_t *outn, char *err, size_t errlen)
{
	if (st->format == STORE_RAW) {
		*out = src;
		*outn = n;
		return 0;
	}
	if (st->format == STORE_ZSTD) {
		if (!io->zc && !(io->zc = ZSTD_createCCtx())) {
			snprintf(err, errlen, "out of memory (zstd context)");
			return -1;
		}
		size_t cap = ZSTD_compressBound((size_t)n);
		if (buf_reserve(&io->comp, cap)) {
			snprintf(err, errlen, "out of memory (%zu bytes to compress into)", cap);
			return -1;
		}
		size_t r = ZSTD_compressCCtx(io->zc, io->comp.p, cap, src, (size_t)n, st->level);
		if (ZSTD_isError(r)) {
			snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
			return -1;
		}
		*out = io->comp.p;
		*outn = r;
		return 0;
	}
	if (n > (uint64_t)LZ4_MAX_INPUT_SIZE) {
		snprintf(err, errlen, "lz4: %" PRIu64 " bytes is over its limit of %d", n,
			 LZ4_MAX_INPUT_SIZE);
		return -1;
	}
	int cap = LZ4_compressBound((int)n);
	if (buf_reserve(&io->comp, (size_t)cap)) {
		snprintf(err, errlen, "out of memory (%d bytes to compress into)", cap);
		return -1;
	}
	int r = LZ4_compress_default(src, io->comp.p, (int)n, cap);
	if (r <= 0) {
		snprintf(err, errlen, "lz4: compression failed");
		return -1;
	}
	*out = io->comp.p;
	*outn = (uint64_t)r;
	return 0;
}

int store_put(struct store *st, struct store_io *io, int shard, size_t i,
	      const struct store_rec *r, const void *payload, char *err, size_t errlen)
{
	if (!st->writing || shard < 0 || shard >= st->nshards || i >= st->n) {
		snprintf(err, errlen, "store '%s': bad put (shard %d, sample %zu)", st->dir, shard, i);
		return -1;
	}
	if (st->e[i].length) {
		snprintf(err, errlen, "store '%s': sample %zu stored twice", st->dir, i);
		return -1;
	}
	static const char nothing[1];
	const void *stored;
	uint64_t sn;
	if (compress(st, io, r->bytes ? payload : nothing, r->bytes, &stored, &sn, err, errlen))
		return -1;
	unsigned char h[REC_HEADER];
	rec_header(h, r, st->format, sn);
	put64(h + 56, rec_hash(h, stored, sn));
	struct iovec iov[2] = {
		{ .iov_base = h, .iov_len = REC_HEADER },
		{ .iov_base = (void *)stored, .iov_len = (size_t)sn },
	};
	uint64_t off = st->end[shard];
	if (write_all(st->fd[shard], iov, sn ? 2 : 1, off)) {
		char p[1100];
		shard_path(p, sizeof(p), st->dir, shard);
		snprintf(err, errlen, "cannot write '%s': %s", p, strerror(errno));
		return -1;
	}
	st->e[i] = (struct store_entry){ .shard = (uint32_t)shard, .offset = off,
					 .length = REC_HEADER + sn };
	st->end[shard] = off + REC_HEADER + sn;
	st->payload[shard] += r->bytes;
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int store_finish(struct store *st, char *err, size_t errlen)
{
	int rc = -1, fd = -1;
	unsigned char *ix = NULL;
	char p[1100];

	if (!st->writing) {
		snprintf(err, errlen, "store '%s' is not being written", st->dir);
		goto out;
	}
	for (size_t i = 0; i < st->n; i++)
		if (!st->e[i].length) {
			snprintf(err, errlen, "store '%s': sample %zu was never stored", st->dir, i);
			goto out;
		}
	st->payload_bytes = 0;
	st->stored_bytes = 0;
	for (int k = 0; k < st->nshards; k++) {
		shard_path(p, sizeof(p), st->dir, k);
		if (fsync(st->fd[k])) {
			snprintf(err, errlen, "cannot write '%s': %s", p, strerror(errno));
			goto out;
		}
		st->payload_bytes += st->payload[k];
		st->stored_bytes += st->end[k];
	}
	size_t size = INDEX_HEADER + st->n * INDEX_ENTRY;
	ix = calloc(1, size);
	if (!ix) {
		snprintf(err, errlen, "out of memory (index of %zu samples)", st->n);
		goto out;
	}
	memcpy(ix, INDEX_MAGIC, 8);
	put32(ix + 8, INDEX_VERSION);
	put32(ix + 12, (uint32_t)st->format);
	put32(ix + 16, (uint32_t)st->level);
	put32(ix + 20, (uint32_t)st->nshards);
	put64(ix + 24, st->n);
	put64(ix + 32, st->payload_bytes);
	for (size_t i = 0; i < st->n; i++) {
		unsigned char *e = ix + INDEX_HEADER + i * INDEX_ENTRY;
		put32(e, st->e[i].shard);
		put64(e + 8, st->e[i].offset);
		put64(e + 16, st->e[i].length);
	}
	put64(ix + 48, checksum_xxh64(ix + INDEX_HEADER, size - INDEX_HEADER,
				      checksum_xxh64(ix, 48, 0)));
	snprintf(p, sizeof(p), "%.1000s/index", st->dir);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	struct iovec iov = { .iov_base = ix, .iov_len = size };
	if (fd < 0 || write_all(fd, &iov, 1, 0) || fsync(fd)) {
		snprintf(err, errlen, "cannot write '%s': %s", p, strerror(errno));
		goto out;
	}
	st->stored_bytes += size;
	fsync_dir(st->dir);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(ix);
	store_close(st);
	st->writing = 0;
	return rc;
}

/* ---- reading -------------------------------------------------------------*/

static int read_index(const char *path, unsigned char **out, size_t *n, char *err, size_t errlen)
{
	char why[256];
	struct stat sb;
	int fd = open_regular(path, &sb, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "cannot open store index '%s': %s", path, why);
		return -1;
	}
	if (sb.st_size > FILE_MAX_TABLE) {
		snprintf(err, errlen, "store index '%s' is %lld bytes, more than the %lld ppbench "
			 "reads", path, (long long)sb.st_size, (long long)FILE_MAX_TABLE);
		close(fd);
		return -1;
	}
	size_t size = (size_t)sb.st_size;
	unsigned char *ix = malloc(size ? size : 1);
	if (!ix) {
		close(fd);
		snprintf(err, errlen, "out of memory (store index of %zu bytes)", size);
		return -1;
	}
	struct iovec iov = { .iov_base = ix, .iov_len = size };
	int r = read_all(fd, &iov, 1, 0);
	close(fd);
	if (r) {
		snprintf(err, errlen, "cannot read store index '%s': %s", path,
			 r > 0 ? "it shrank while read" : strerror(errno));
		free(ix);
		return -1;
	}
	*out = ix;
	*n = size;
	return 0;
}

int store_open(struct store *st, const char *dir, char *err, size_t errlen)
{
	unsigned char *ix = NULL;
	size_t size = 0;
	char p[1100];

	memset(st, 0, sizeof(*st));
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	snprintf(p, sizeof(p), "%.1000s/index", dir);
	if (read_index(p, &ix, &size, err, errlen))
		return -1;
	if (size < INDEX_HEADER || memcmp(ix, INDEX_MAGIC, 8)) {
		snprintf(err, errlen, "corrupt store index '%s': not a ppbench store index", p);
		goto fail;
	}
	uint32_t version = get32(ix + 8), format = get32(ix + 12), nshards = get32(ix + 20);
	uint64_t count = get64(ix + 24);
	if (version != INDEX_VERSION) {
		snprintf(err, errlen, "store index '%s' has version %" PRIu32 ", expected %d", p,
			 version, INDEX_VERSION);
		goto fail;
	}
	if (format >= STORE_NFORMATS || nshards < 1 || nshards > MAX_SHARDS ||
	    count > (UINT64_MAX - INDEX_HEADER) / INDEX_ENTRY || get64(ix + 40) || get64(ix + 56)) {
		snprintf(err, errlen, "corrupt store index '%s': bad header", p);
		goto fail;
	}
	if (INDEX_HEADER + count * INDEX_ENTRY != size) {
		snprintf(err, errlen, "corrupt store index '%s': %zu bytes for %" PRIu64
			 " samples, expected %" PRIu64 " (truncated?)", p, size, count,
			 INDEX_HEADER + count * INDEX_ENTRY);
		goto fail;
	}
	if (get64(ix + 48) != checksum_xxh64(ix + INDEX_HEADER, size - INDEX_HEADER,
					     checksum_xxh64(ix, 48, 0))) {
		snprintf(err, errlen, "corrupt store index '%s': checksum mismatch", p);
		goto fail;
	}
	st->format = (enum store_format)format;
	st->level = (int)get32(ix + 16);
	st->nshards = (int)nshards;
	st->n = (size_t)count;
	st->payload_bytes = get64(ix + 32);
	if (alloc_arrays(st)) {
		snprintf(err, errlen, "out of memory (index of %zu samples)", st->n);
		goto fail;
	}
	for (size_t i = 0; i < st->n; i++) {
		const unsigned char *e = ix + INDEX_HEADER + i * INDEX_ENTRY;
		st->e[i].shard = get32(e);
		st->e[i].offset = get64(e + 8);
		st->e[i].length = get64(e + 16);
		if (st->e[i].shard >= nshards || st->e[i].length < REC_HEADER ||
		    st->e[i].offset > UINT64_MAX - st->e[i].length) {
			snprintf(err, errlen, "corrupt store index '%s': bad entry for sample %zu",
				 p, i);
			goto fail;
		}
	}
	st->stored_bytes = size;
	for (int k = 0; k < st->nshards; k++) {
		struct stat sb;
		shard_path(p, sizeof(p), dir, k);
		char why[256];
		st->fd[k] = open_regular(p, &sb, why, sizeof(why));
		if (st->fd[k] < 0) {
			snprintf(err, errlen, "cannot open '%s': %s", p, why);
			goto fail;
		}
		st->end[k] = (uint64_t)sb.st_size;
		st->stored_bytes += (uint64_t)sb.st_size;
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct store_entry *e = &st->e[i];
		if (e->offset + e->length > st->end[e->shard]) {
			shard_path(p, sizeof(p), dir, (int)e->shard);
			snprintf(err, errlen, "corrupt store '%s': %" PRIu64 " bytes, but the record "
				 "of sample %zu ends at byte %" PRIu64 " (truncated?)", p,
				 st->end[e->shard], i, e->offset + e->length);
			goto fail;
		}
	}
	free(ix);
	return 0;
fail:
	free(ix);
	store_close(st);
	return -1;
}

static int rec_fail(const struct store *st, size_t i, const char *why, char *err, size_t errlen)
{
	char p[1100];
	shard_path(p, sizeof(p), st->dir, (int)st->e[i].shard);
	snprintf(err, errlen, "corrupt store '%s': record of sample %zu at byte %" PRIu64 ": %s",
		 p, i, st->e[i].offset, why);
	return -1;
}

static int reserve(struct buf *b, uint64_t n, char *err, size_t errlen)
{
	if (n > SIZE_MAX || buf_reserve(b, n ? (size_t)n : 1)) {
		snprintf(err, errlen, "out of memory (%" PRIu64 " bytes for a stored sample)", n);
		return -1;
	}
	return 0;
}

int store_get(const struct store *st, struct store_io *io, size_t i, struct store_rec *r,
	      struct buf *out, char *err, size_t errlen)
{
	if (i >= st->n || !st->e) {
		snprintf(err, errlen, "store '%s': no sample %zu (it holds %zu)", st->dir, i, st->n);
		return -1;
	}
	const struct store_entry *e = &st->e[i];
	uint64_t sn = e->length - REC_HEADER;
	struct buf *dst = st->format == STORE_RAW ? out : &io->comp;
	if (reserve(dst, sn, err, errlen))
		return -1;
	unsigned char h[REC_HEADER];
	struct iovec iov[2] = {
		{ .iov_base = h, .iov_len = REC_HEADER },
		{ .iov_base = dst->p, .iov_len = (size_t)sn },
	};
	int rr = read_all(st->fd[e->shard], iov, 2, e->offset);
	if (rr < 0) {
		char p[1100];
		shard_path(p, sizeof(p), st->dir, (int)e->shard);
		snprintf(err, errlen, "cannot read '%s': %s", p, strerror(errno));
		return -1;
	}
	if (rr > 0)
		return rec_fail(st, i, "the file ends inside it (truncated?)", err, errlen);
	if (memcmp(h, REC_MAGIC, 4))
		return rec_fail(st, i, "no record header there", err, errlen);
	if (get64(h + 56) != rec_hash(h, dst->p, sn))
		return rec_fail(st, i, "checksum mismatch", err, errlen);
	r->kind = h[4];
	r->failed = h[5];
	r->h = (int)get32(h + 8);
	r->w = (int)get32(h + 12);
	r->label = (int64_t)get64(h + 16);
	r->index = get64(h + 24);
	r->bytes = get64(h + 32);
	if (h[6] != st->format || get64(h + 40) != sn || r->kind > PIX_F32_CHW || r->failed > 1 ||
	    r->h < 0 || r->w < 0)
		return rec_fail(st, i, "header does not match the index", err, errlen);
	if (!r->failed && r->kind != PIX_NONE) {
		uint64_t px = (uint64_t)r->h * (uint64_t)r->w * 3;
		if (r->bytes != (r->kind == PIX_U8_HWC ? px : px * sizeof(float)))
			return rec_fail(st, i, "size does not match its pixels", err, errlen);
	}
	switch (st->format) {
	case STORE_RAW:
		if (r->bytes != sn)
			return rec_fail(st, i, "header does not match the index", err, errlen);
		return 0;
	case STORE_ZSTD: {
		if (!io->zd && !(io->zd = ZSTD_createDCtx())) {
			snprintf(err, errlen, "out of memory (zstd context)");
			return -1;
		}
		if (reserve(out, r->bytes, err, errlen))
			return -1;
		size_t got = ZSTD_decompressDCtx(io->zd, out->p, (size_t)r->bytes, io->comp.p,
						 (size_t)sn);
		if (ZSTD_isError(got)) {
			char why[200];
			snprintf(why, sizeof(why), "zstd: %s", ZSTD_getErrorName(got));
			return rec_fail(st, i, why, err, errlen);
		}
		if (got != r->bytes)
			return rec_fail(st, i, "zstd: fewer bytes than its header says", err, errlen);
		return 0;
	}
	case STORE_LZ4: {
		if (r->bytes > (uint64_t)LZ4_MAX_INPUT_SIZE || sn > (uint64_t)INT_MAX)
			return rec_fail(st, i, "lz4: too large", err, errlen);
		if (reserve(out, r->bytes, err, errlen))
			return -1;
		int got = LZ4_decompress_safe(io->comp.p, out->p, (int)sn, (int)r->bytes);
		if (got < 0 || (uint64_t)got != r->bytes)
			return rec_fail(st, i, "lz4: corrupt data", err, errlen);
		return 0;
	}
	}
	return rec_fail(st, i, "unknown format", err, errlen);
}

void store_drop_cache(const struct store *st)
{
	if (!st->fd)
		return;
	for (int k = 0; k < st->nshards; k++)
		if (st->fd[k] >= 0)
			drop_page_cache(st->fd[k]);
}

int store_remove(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot remove store '%s': %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		int ours = !strcmp(n, "index") ||
			   (!strncmp(n, "shard-", 6) && len > 10 && !strcmp(n + len - 4, ".bin"));
		if (!ours)
			continue;
		char p[1400];
		snprintf(p, sizeof(p), "%.1000s/%.300s", dir, n);
		if (unlink(p) && !rc) {
			snprintf(err, errlen, "cannot remove '%s': %s", p, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	if (!rc && rmdir(dir)) {
		snprintf(err, errlen, "cannot remove store '%s': %s", dir, strerror(errno));
		rc = -1;
	}
	return rc;
}
