/* The page cache of a dataset's files (pagecache.h). */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsutil.h"
#include "imagefolder.h"
#include "pagecache.h"

/* Calls fn on each of d's files that opens as a regular file (open fd). */
static void each_file(const struct dataset *d, void (*fn)(int fd, const struct stat *st, void *arg),
		      void *arg)
{
	for (size_t i = 0; i < d->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(d->items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		fn(fd, &st, arg);
		close(fd);
	}
}

struct resident {
	int drop;
	long page;
	unsigned char *vec;
	size_t veccap;
	double total, resident;
};

static void count_resident(int fd, const struct stat *st0, void *arg)
{
	struct resident *r = arg;
	struct stat st = *st0;
	if (r->drop)
		drop_page_cache(fd);
	if (fstat(fd, &st) != 0 || st.st_size <= 0)
		return;
	size_t pages = ((size_t)st.st_size + (size_t)r->page - 1) / (size_t)r->page;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (pages > r->veccap) {
		unsigned char *nv = realloc(r->vec, pages);
		if (nv) {
			r->vec = nv;
			r->veccap = pages;
		}
	}
	if (m != MAP_FAILED && pages <= r->veccap && mincore(m, (size_t)st.st_size, r->vec) == 0) {
		for (size_t k = 0; k < pages; k++)
			r->resident += r->vec[k] & 1;
		r->total += (double)pages;
	}
	if (m != MAP_FAILED)
		munmap(m, (size_t)st.st_size);
}

double dataset_cache_resident(const struct dataset *d, int drop)
{
	struct resident r = { .drop = drop, .page = sysconf(_SC_PAGESIZE) };
	each_file(d, count_resident, &r);
	free(r.vec);
	return r.total > 0 ? 100 * r.resident / r.total : -1;
}

static void read_through(int fd, const struct stat *st, void *arg)
{
	char buf[65536];
	(void)st;
	(void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

void dataset_cache_warm(const struct dataset *d)
{
	each_file(d, read_through, NULL);
}

static void drop_one(int fd, const struct stat *st, void *arg)
{
	(void)st;
	(void)arg;
	drop_page_cache(fd);
}

void dataset_cache_drop(const struct dataset *d)
{
	each_file(d, drop_one, NULL);
}
