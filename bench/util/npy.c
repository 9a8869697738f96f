/* .npy reader and writer (see npy.h; the format is NumPy's NEP 1). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy.h"
#include "fsutil.h"

static const char magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

int npy_write(const char *path, const char *dtype, const size_t *shape, int ndim,
	      const void *data, char *err, size_t errlen)
{
	if (strcmp(dtype, "|u1") && strcmp(dtype, "<f4")) {
		snprintf(err, errlen, "cannot write '%s': dtype '%s' is not |u1 or <f4", path, dtype);
		return -1;
	}
	if (ndim < 0 || ndim > NPY_MAX_DIM) {
		snprintf(err, errlen, "cannot write '%s': %d dimensions", path, ndim);
		return -1;
	}
	char hdr[256];
	int len = snprintf(hdr, sizeof(hdr), "{'descr': '%s', 'fortran_order': False, 'shape': (",
			   dtype);
	size_t count = 1;
	for (int i = 0; i < ndim; i++) {
		len += snprintf(hdr + len, sizeof(hdr) - (size_t)len, "%zu,%s", shape[i],
				i + 1 < ndim ? " " : "");
		count *= shape[i];
	}
	if (ndim > 1)
		len--;   /* "(3, 4)" but "(3,)" */
	len += snprintf(hdr + len, sizeof(hdr) - (size_t)len, "), }");
	/* pad with spaces and a newline so the data starts on a multiple of 64 */
	int total = (10 + len + 1 + 63) / 64 * 64;
	while (10 + len + 1 < total)
		hdr[len++] = ' ';
	hdr[len++] = '\n';
	uint8_t pre[10];
	memcpy(pre, magic, 6);
	pre[6] = 1, pre[7] = 0;
	pre[8] = (uint8_t)(len & 0xff), pre[9] = (uint8_t)(len >> 8);

	size_t bytes = count * (dtype[2] == '1' ? 1 : 4);
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	int bad = fwrite(pre, 1, 10, f) != 10 || fwrite(hdr, 1, (size_t)len, f) != (size_t)len ||
		  (bytes && fwrite(data, 1, bytes, f) != bytes);
	int saved = errno;
	if (fclose(f) && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(saved));
		return -1;
	}
	return 0;
}

/* The value after 'key': in a header dict, or NULL. */
static const char *dict_value(const char *hdr, const char *key)
{
	char k[32];
	snprintf(k, sizeof(k), "'%s'", key);
	const char *p = strstr(hdr, k);
	if (!p)
		return NULL;
	p += strlen(k);
	while (*p == ' ')
		p++;
	if (*p++ != ':')
		return NULL;
	while (*p == ' ')
		p++;
	return p;
}

static int parse_header(const char *hdr, struct npy *a)
{
	const char *p = dict_value(hdr, "descr");
	if (!p || *p != '\'')
		return -1;
	const char *q = strchr(++p, '\'');
	if (!q || q - p >= (long)sizeof(a->dtype) || q - p < 3)
		return -1;
	memcpy(a->dtype, p, (size_t)(q - p));
	a->dtype[q - p] = 0;
	if (a->dtype[0] != '<' && a->dtype[0] != '|')
		return -1;   /* big-endian */
	if (!strchr("uif", a->dtype[1]))
		return -1;
	a->itemsize = strtoul(a->dtype + 2, NULL, 10);
	if (a->itemsize != 1 && a->itemsize != 2 && a->itemsize != 4 && a->itemsize != 8)
		return -1;

	p = dict_value(hdr, "fortran_order");
	if (!p || strncmp(p, "False", 5))
		return -1;

	p = dict_value(hdr, "shape");
	if (!p || *p++ != '(')
		return -1;
	a->ndim = 0;
	a->count = 1;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || errno || a->ndim == NPY_MAX_DIM)
			return -1;
		a->shape[a->ndim++] = (size_t)v;
		if (v && a->count > SIZE_MAX / v)
			return -1;
		a->count *= (size_t)v;
		p = end;
	}
	return 0;
}

int npy_read(const char *path, struct npy *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	char *hdr = NULL;
	int rc = -1;
	char why[256];
	FILE *f = fopen_regular(path, FILE_MAX_TABLE, why, sizeof(why));
	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, why);
		return -1;
	}
	uint8_t pre[12];
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, magic, 6) || pre[6] < 1 || pre[6] > 3)
		goto bad;
	size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
	if (pre[6] > 1) {
		if (fread(pre + 10, 1, 2, f) != 2)
			goto bad;
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > 1 << 20 || !(hdr = malloc(hlen + 1)))
		goto bad;
	if (fread(hdr, 1, hlen, f) != hlen)
		goto bad;
	hdr[hlen] = 0;
	if (parse_header(hdr, a))
		goto bad;
	if (a->itemsize && a->count > SIZE_MAX / a->itemsize)
		goto bad;
	size_t bytes = a->count * a->itemsize;
	a->data = malloc(bytes ? bytes : 1);
	if (!a->data) {
		snprintf(err, errlen, "cannot read '%s': out of memory", path);
		goto out;
	}
	if (fread(a->data, 1, bytes, f) != bytes) {
		snprintf(err, errlen, "cannot read '%s': data is short of %zu bytes", path, bytes);
		goto out;
	}
	rc = 0;
	goto out;
bad:
	snprintf(err, errlen, "cannot read '%s': not a .npy file this reader handles "
		 "(C order, little-endian)", path);
out:
	free(hdr);
	fclose(f);
	if (rc)
		npy_free(a);
	return rc;
}

void npy_free(struct npy *a)
{
	free(a->data);
	a->data = NULL;
}
