/* The page cache of a dataset's files (pagecache.h). */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsutil.h"
#include "imagefolder.h"
#include "pagecache.h"

double dataset_cache_resident(const struct dataset *d, int drop)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	size_t veccap = 0;
	double total = 0, resident = 0;

	for (size_t i = 0; i < d->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(d->items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		if (drop)
			drop_page_cache(fd);
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			size_t pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
			if (pages > veccap) {
				unsigned char *nv = realloc(vec, pages);
				if (nv) {
					vec = nv;
					veccap = pages;
				}
			}
			if (m != MAP_FAILED && pages <= veccap &&
			    mincore(m, (size_t)st.st_size, vec) == 0) {
				for (size_t k = 0; k < pages; k++)
					resident += vec[k] & 1;
				total += (double)pages;
			}
			if (m != MAP_FAILED)
				munmap(m, (size_t)st.st_size);
		}
		close(fd);
	}
	free(vec);
	return total > 0 ? 100 * resident / total : -1;
}
