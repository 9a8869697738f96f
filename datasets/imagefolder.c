/* ImageFolder scan, as torchvision 0.14 datasets/folder.py builds its list:
 *
 *   classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
 *   for c in classes:
 *       for dirpath, _, fnames in sorted(os.walk(root/c, followlinks=True)):
 *           for f in sorted(fnames):
 *               if f.lower().endswith(IMG_EXTENSIONS): keep (dirpath/f, index of c)
 *
 * sorted(os.walk()) orders the folders by their whole path string, so
 * "c/a-b" (0x2d) comes before "c/a/x" (0x2f): we collect every folder of a
 * class, sort the paths with strcmp (Python's str order is code-point order,
 * which is strcmp order on UTF-8), then the files of each folder.
 *
 * Deviations: a folder is walked once per class however many links lead to
 * it (os.walk goes round a symlink cycle until the path is too long, and
 * lists a folder reached by two links twice); file names that are not valid
 * UTF-8 sort by bytes (Python sorts their surrogate escapes). Classes are
 * scanned in parallel.
 *
 * Bounds (a class folder linked to '/', --data /proc/self): a folder that
 * holds the dataset itself (root or one of its parents, reached through a
 * link) stops the scan with its name, as does a class of more than
 * SCAN_MAX_FOLDERS folders; a scan that takes more than SCAN_PROGRESS_S says
 * how far it got every SCAN_PROGRESS_S. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "imagefolder.h"
#include "log.h"

#define SCAN_MAX_FOLDERS 1000000
#define SCAN_PROGRESS_S 2

static const char *const img_ext[] = {
	".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp",
};
#define EXT_LIST ".jpg, .jpeg, .png, .ppm, .bmp, .pgm, .tif, .tiff, .webp"

int dataset_has_image_ext(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(img_ext) / sizeof(img_ext[0]); i++) {
		size_t m = strlen(img_ext[i]);
		if (n < m)
			continue;
		const char *t = name + n - m;
		size_t k = 0;
		while (k < m) {
			char c = t[k];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != img_ext[i][k])
				break;
			k++;
		}
		if (k == m)
			return 1;
	}
	return 0;
}

/* os.path.join(a, b) for a relative b. */
static char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int slash = la > 0 && a[la - 1] != '/';
	char *p = malloc(la + slash + lb + 1);
	if (!p)
		return NULL;
	memcpy(p, a, la);
	if (slash)
		p[la] = '/';
	memcpy(p + la + slash, b, lb + 1);
	return p;
}

/* DirEntry.is_dir(): follows symlinks, False when stat fails. */
static int entry_is_dir(int dfd, const struct dirent *e)
{
	struct stat st;
	if (e->d_type == DT_DIR)
		return 1;
	if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
		return 0;
	if (fstatat(dfd, e->d_name, &st, 0))
		return 0;
	return S_ISDIR(st.st_mode);
}

struct walk_dir {
	char *path;
	dev_t dev;
	ino_t ino;
	size_t parent;     /* index in dirs, SIZE_MAX for the top */
	size_t rank;       /* position in sorted path order */
};

struct walk_file {
	size_t dir;
	size_t name;       /* offset in the name arena */
	uint64_t bytes;
};

/* A folder, by its identity (links lead to the same one). */
struct dev_ino {
	dev_t dev;
	ino_t ino;
};

/* The folders that hold the dataset: root and its parents, and the scan's
 * progress, shared by the classes' threads. */
struct scan_ctx {
	const char *root;
	struct dev_ino up[PATH_MAX / 2];
	size_t nup;
	_Atomic size_t folders, files;
	_Atomic long long next_note;   /* monotonic s of the next progress line */
	_Atomic int stop;              /* a class hit a bound: the others stop */
};

struct walk {
	const struct scan_ctx *ctx;
	struct walk_dir *dirs;
	size_t ndirs, capdirs;
	/* the folders walked (dev, inode), open addressing, 0 = empty */
	struct dev_ino *seen;
	size_t capseen;
	char *bound;       /* why the walk stopped (a bound), malloc'd */
	struct walk_file *files;
	size_t nfiles, capfiles;
	char *names;
	size_t namelen, capnames;
};

/* The class being scanned, for the qsort comparators (one per thread). */
static _Thread_local const struct walk *cmp_walk;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static size_t seen_hash(dev_t dev, ino_t ino, size_t cap)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* Mark (dev, ino) walked: 1 if it was new, 0 if already walked, -1 out of
 * memory. The table stays at most half full. */
static int seen_add(struct walk *w, dev_t dev, ino_t ino)
{
	if (2 * (w->ndirs + 1) > w->capseen) {
		size_t cap = w->capseen ? 2 * w->capseen : 64;
		struct dev_ino *t = calloc(cap, sizeof(*t)), *old = w->seen;
		if (!t)
			return -1;
		size_t oldcap = w->capseen;
		w->seen = t;
		w->capseen = cap;
		for (size_t i = 0; i < oldcap; i++) {
			if (!old[i].dev && !old[i].ino)
				continue;
			size_t k = seen_hash(old[i].dev, old[i].ino, cap);
			while (w->seen[k].dev || w->seen[k].ino)
				k = (k + 1) & (cap - 1);
			w->seen[k] = old[i];
		}
		free(old);
	}
	size_t k = seen_hash(dev, ino, w->capseen);
	while (w->seen[k].dev || w->seen[k].ino) {
		if (w->seen[k].dev == dev && w->seen[k].ino == ino)
			return 0;
		k = (k + 1) & (w->capseen - 1);
	}
	w->seen[k].dev = dev;
	w->seen[k].ino = ino;
	return 1;
}

static long long mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

/* A bound was hit: the walk stops with why (the first one kept). */
static int walk_bound(struct walk *w, const char *fmt, const char *a, const char *b)
{
	if (!w->bound) {
		size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
		if ((w->bound = malloc(n)))
			snprintf(w->bound, n, fmt, a, b);
	}
	atomic_store(&((struct scan_ctx *)w->ctx)->stop, 1);
	return -1;
}

/* Add a folder to walk; 1 when it was walked already (path freed), -1
 * out of memory or a bound hit (path freed; w->bound says which). */
static int add_dir(struct walk *w, char *path, size_t parent, const struct stat *st)
{
	const struct scan_ctx *ctx = w->ctx;
	if (st) {
		for (size_t i = 0; i < ctx->nup; i++)
			if (ctx->up[i].dev == st->st_dev && ctx->up[i].ino == st->st_ino) {
				char real[PATH_MAX];
				int rc = walk_bound(w, "'%s' leads to '%s', a folder that holds the "
						    "dataset itself (a link to '/' or to a parent?): "
						    "ImageFolder would walk it round and round", path,
						    realpath(path, real) ? real : "?");
				free(path);
				return rc;
			}
		int fresh = seen_add(w, st->st_dev, st->st_ino);
		if (fresh <= 0) {
			free(path);
			return fresh < 0 ? -1 : 1;
		}
	}
	if (w->ndirs >= SCAN_MAX_FOLDERS) {
		int rc = walk_bound(w, "'%s' holds more than 1,000,000 folders (a link to a large "
				    "tree?)%s", w->dirs[0].path, "");
		free(path);
		return rc;
	}
	if (grow((void **)&w->dirs, &w->capdirs, w->ndirs + 1, sizeof(*w->dirs))) {
		free(path);
		return -1;
	}
	struct walk_dir *d = &w->dirs[w->ndirs++];
	d->path = path;
	d->dev = st ? st->st_dev : 0;
	d->ino = st ? st->st_ino : 0;
	d->parent = parent;
	d->rank = 0;
	return 0;
}

/* Read one folder: files into w->files, subfolders appended to w->dirs. An
 * unreadable folder yields nothing, as os.walk without onerror. */
static int read_dir(struct walk *w, size_t di)
{
	int dfd = open(w->dirs[di].path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	DIR *dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return 0;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		const char *nm = e->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		if (entry_is_dir(dfd, e)) {
			struct stat st;
			if (fstatat(dfd, nm, &st, 0))
				continue;
			char *p = path_join(w->dirs[di].path, nm);
			if (!p || add_dir(w, p, di, &st) < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (!dataset_has_image_ext(nm))
			continue;
		size_t len = strlen(nm) + 1;
		if (grow((void **)&w->files, &w->capfiles, w->nfiles + 1, sizeof(*w->files)) ||
		    grow((void **)&w->names, &w->capnames, w->namelen + len, 1)) {
			rc = -1;
			break;
		}
		struct stat st;
		struct walk_file *f = &w->files[w->nfiles++];
		f->dir = di;
		f->name = w->namelen;
		f->bytes = fstatat(dfd, nm, &st, 0) ? 0 : (uint64_t)st.st_size;
		memcpy(w->names + w->namelen, nm, len);
		w->namelen += len;
		atomic_fetch_add_explicit(&((struct scan_ctx *)w->ctx)->files, 1, memory_order_relaxed);
	}
	closedir(dir);
	return rc;
}

/* Every SCAN_PROGRESS_S of a long scan, one line of how far it got. */
static void scan_progress(struct scan_ctx *ctx)
{
	size_t folders = atomic_fetch_add_explicit(&ctx->folders, 1, memory_order_relaxed) + 1;
	long long now = mono_s(), next = atomic_load_explicit(&ctx->next_note, memory_order_relaxed);
	if (now < next || !atomic_compare_exchange_strong(&ctx->next_note, &next,
							  now + SCAN_PROGRESS_S))
		return;
	info("scanning '%s': %zu folders, %zu images so far", ctx->root, folders,
	     atomic_load_explicit(&ctx->files, memory_order_relaxed));
}

static int cmp_dir_idx(const void *a, const void *b)
{
	const struct walk *w = cmp_walk;
	return strcmp(w->dirs[*(const size_t *)a].path, w->dirs[*(const size_t *)b].path);
}

static int cmp_file(const void *a, const void *b)
{
	const struct walk *w = cmp_walk;
	const struct walk_file *x = a, *y = b;
	size_t rx = w->dirs[x->dir].rank, ry = w->dirs[y->dir].rank;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(w->names + x->name, w->names + y->name);
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->ndirs; i++)
		free(w->dirs[i].path);
	free(w->dirs);
	free(w->files);
	free(w->names);
	free(w->seen);
	free(w->bound);
	memset(w, 0, sizeof(*w));
}

/* The items of one class, in torchvision order. */
struct class_scan {
	struct dataset_item *items;
	size_t n;
	int failed;        /* out of memory, or a bound (then why) */
	char *why;         /* the bound hit, malloc'd */
};

static void scan_class(struct class_scan *cs, struct scan_ctx *ctx, const char *cls,
		       int64_t label)
{
	struct walk w = { .ctx = ctx };
	size_t *order = NULL;
	char *top = path_join(ctx->root, cls);
	struct stat st;
	if (!top)
		goto fail;
	if (add_dir(&w, top, SIZE_MAX, stat(top, &st) ? NULL : &st) < 0)
		goto fail;
	for (size_t i = 0; i < w.ndirs; i++) {
		if (atomic_load_explicit(&ctx->stop, memory_order_relaxed) || read_dir(&w, i))
			goto fail;
		scan_progress(ctx);
	}

	order = malloc(w.ndirs * sizeof(*order));
	if (!order)
		goto fail;
	for (size_t i = 0; i < w.ndirs; i++)
		order[i] = i;
	cmp_walk = &w;
	qsort(order, w.ndirs, sizeof(*order), cmp_dir_idx);
	for (size_t i = 0; i < w.ndirs; i++)
		w.dirs[order[i]].rank = i;
	if (w.nfiles)
		qsort(w.files, w.nfiles, sizeof(*w.files), cmp_file);
	cmp_walk = NULL;

	if (w.nfiles) {
		cs->items = calloc(w.nfiles, sizeof(*cs->items));
		if (!cs->items)
			goto fail;
	}
	for (size_t i = 0; i < w.nfiles; i++) {
		const struct walk_file *f = &w.files[i];
		char *p = path_join(w.dirs[f->dir].path, w.names + f->name);
		if (!p)
			goto fail;
		cs->items[i].path = p;
		cs->items[i].label = label;
		cs->items[i].bytes = f->bytes;
		cs->n = i + 1;
	}
	free(order);
	walk_free(&w);
	return;
fail:
	cs->failed = 1;
	cs->why = w.bound;
	w.bound = NULL;
	free(order);
	walk_free(&w);
}

/* root and each of its parents, by dev and inode: a folder a class leads
 * to that is one of them holds the dataset itself */
static void scan_ctx_init(struct scan_ctx *ctx, const char *root)
{
	char p[PATH_MAX];
	struct stat st;
	ctx->root = root;
	ctx->nup = 0;
	atomic_store(&ctx->next_note, mono_s() + SCAN_PROGRESS_S);
	if (!realpath(root, p))
		return;
	for (;;) {
		if (stat(p, &st) == 0 && ctx->nup < sizeof(ctx->up) / sizeof(ctx->up[0])) {
			ctx->up[ctx->nup].dev = st.st_dev;
			ctx->up[ctx->nup].ino = st.st_ino;
			ctx->nup++;
		}
		char *slash = strrchr(p, '/');
		if (!slash || !strcmp(p, "/"))
			break;
		if (slash == p)
			p[1] = 0;
		else
			*slash = 0;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* find_classes(): names of the subfolders of root, sorted. */
static int find_classes(struct dataset *d, const char *root, char *err, size_t errlen)
{
	struct stat st;
	if (stat(root, &st)) {
		snprintf(err, errlen, "cannot open '%s': %s", root, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot scan '%s': not a folder", root);
		return -1;
	}
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd < 0 ? NULL : fdopendir(dfd);
	if (!dir) {
		snprintf(err, errlen, "cannot open '%s': %s", root, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	size_t cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(dir))) {
		const char *nm = e->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		if (!entry_is_dir(dfd, e))
			continue;
		char *s = strdup(nm);
		if (!s || grow((void **)&d->classes, &cap, d->nclasses + 1, sizeof(*d->classes))) {
			free(s);
			snprintf(err, errlen, "cannot scan '%s': out of memory", root);
			rc = -1;
			break;
		}
		d->classes[d->nclasses++] = s;
	}
	closedir(dir);
	if (rc)
		return rc;
	if (!d->nclasses) {
		snprintf(err, errlen, "no class folders in '%s': an ImageFolder has one subfolder per class",
			 root);
		return -1;
	}
	qsort(d->classes, d->nclasses, sizeof(*d->classes), cmp_str);
	return 0;
}

/* "found no valid file for the classes a, b, ... and N more (M of K) in
 * 'root': ...": as many names as fit, then the count of the rest. */
static void empty_classes_error(const struct dataset *d, const struct class_scan *cs,
				const char *root, char *err, size_t errlen)
{
	size_t nempty = 0, shown = 0, len = 0;
	for (size_t c = 0; c < d->nclasses; c++)
		nempty += !cs[c].n;
	char tail[1400];
	snprintf(tail, sizeof(tail), " in '%s': supported extensions are " EXT_LIST, root);
	/* room for the names: what the tail and "..., and N more (N of N)" leave */
	size_t room = errlen > strlen(tail) + 80 ? errlen - strlen(tail) - 80 : 0;
	len = (size_t)snprintf(err, errlen, "found no valid file for the class%s ",
			       nempty == 1 ? "" : "es");
	for (size_t c = 0; c < d->nclasses && len < room; c++) {
		if (cs[c].n)
			continue;
		size_t l = strlen(d->classes[c]) + 2;
		if (shown && len + l >= room)
			break;
		len += (size_t)snprintf(err + len, errlen - len, "%s%s", shown ? ", " : "",
					d->classes[c]);
		shown++;
	}
	if (len < errlen && shown < nempty)
		len += (size_t)snprintf(err + len, errlen - len, ", and %zu more (%zu of the %zu "
					"classes are empty)", nempty - shown, nempty, d->nclasses);
	if (len < errlen)
		snprintf(err + len, errlen - len, "%s", tail);
}

int dataset_scan(struct dataset *d, const char *root, char *err, size_t errlen)
{
	struct class_scan *cs = NULL;
	struct scan_ctx *ctx = NULL;
	memset(d, 0, sizeof(*d));
	if (strlen(root) >= sizeof(d->root)) {
		snprintf(err, errlen, "cannot scan '%.200s...': path too long", root);
		return -1;
	}
	snprintf(d->root, sizeof(d->root), "%s", root);
	if (find_classes(d, root, err, errlen))
		goto fail;

	cs = calloc(d->nclasses, sizeof(*cs));
	if (!cs) {
		snprintf(err, errlen, "cannot scan '%s': out of memory", root);
		goto fail;
	}
	const long nc = (long)d->nclasses;
	ctx = malloc(sizeof(*ctx));
	if (!ctx) {
		snprintf(err, errlen, "cannot scan '%s': out of memory", root);
		goto fail;
	}
	memset(ctx, 0, sizeof(*ctx));
	scan_ctx_init(ctx, root);
	#pragma omp parallel for schedule(dynamic)
	for (long c = 0; c < nc; c++)
		scan_class(&cs[c], ctx, d->classes[c], c);

	size_t n = 0, empty = 0;
	for (size_t c = 0; c < d->nclasses; c++)
		if (cs[c].why) {
			snprintf(err, errlen, "cannot scan '%s': %s", root, cs[c].why);
			goto fail;
		}
	for (size_t c = 0; c < d->nclasses; c++) {
		if (cs[c].failed) {
			snprintf(err, errlen, "cannot scan '%s': out of memory", root);
			goto fail;
		}
		n += cs[c].n;
		empty += !cs[c].n;
	}
	if (empty) {
		empty_classes_error(d, cs, root, err, errlen);
		goto fail;
	}
	d->items = malloc(n * sizeof(*d->items));
	if (!d->items) {
		snprintf(err, errlen, "cannot scan '%s': out of memory", root);
		goto fail;
	}
	for (size_t c = 0; c < d->nclasses; c++) {
		for (size_t i = 0; i < cs[c].n; i++) {
			d->items[d->n] = cs[c].items[i];
			d->total_bytes += cs[c].items[i].bytes;
			d->n++;
		}
		free(cs[c].items);
		cs[c].items = NULL;
		cs[c].n = 0;
	}
	free(cs);
	free(ctx);
	return 0;
fail:
	if (cs) {
		for (size_t c = 0; c < d->nclasses; c++) {
			for (size_t i = 0; i < cs[c].n; i++)
				free(cs[c].items[i].path);
			free(cs[c].items);
			free(cs[c].why);
		}
		free(cs);
	}
	free(ctx);
	dataset_release(d);
	return -1;
}

void dataset_release(struct dataset *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->items[i].path);
	free(d->items);
	for (size_t c = 0; c < d->nclasses; c++)
		free(d->classes[c]);
	free(d->classes);
	memset(d, 0, sizeof(*d));
}
