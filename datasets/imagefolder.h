/* A dataset: the list of (path, label) of an ImageFolder tree, as
 * torchvision's ImageFolder builds it. */
#ifndef PPBENCH_IMAGEFOLDER_H
#define PPBENCH_IMAGEFOLDER_H

#include <stddef.h>
#include <stdint.h>

struct dataset_item {
	char *path;        /* root/class/.../file, owned */
	int64_t label;     /* index of the class folder in sorted order */
	uint64_t bytes;    /* file size at scan time */
};

struct dataset {
	char root[1024];
	size_t n;
	struct dataset_item *items;
	size_t nclasses;
	char **classes;    /* sorted class folder names, owned */
	uint64_t total_bytes;
};

/* Scan root as ImageFolder: class folders sorted by byte order, label =
 * index, files walked recursively (followlinks, sorted), kept when their
 * lower-cased name ends with one of torchvision's IMG_EXTENSIONS.
 * 0, or -1 with err ("no class folders in 'x'", "cannot open ..."). */
int dataset_scan(struct dataset *d, const char *root, char *err, size_t errlen);
void dataset_release(struct dataset *d);
/* 1 if torchvision would accept the file name. */
int dataset_has_image_ext(const char *name);

#endif
