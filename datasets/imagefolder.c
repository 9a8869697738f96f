/* STUB: being written. */
#include "imagefolder.h"
#include <stdio.h>
int dataset_scan(struct dataset *d, const char *root, char *err, size_t errlen) { (void)d; snprintf(err, errlen, "not implemented: %s", root); return -1; }
void dataset_release(struct dataset *d) { (void)d; }
int dataset_has_image_ext(const char *name) { (void)name; return 0; }
