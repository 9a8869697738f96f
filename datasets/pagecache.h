/* The page cache of a dataset's files: how much of it is resident, after
 * dropping it when asked (the paper's vmtouch -e before each run). */
#ifndef PPBENCH_PAGECACHE_H
#define PPBENCH_PAGECACHE_H

struct dataset;

/* When drop is set, drop the page-cache pages of every file of d
 * (fdatasync, then posix_fadvise POSIX_FADV_DONTNEED, as the paper's
 * vmtouch -e); then measure the share of d's bytes still resident
 * (mincore). Returns that share, 0..100, or -1 if nothing could be
 * measured. Files that cannot be opened are passed over. */
double dataset_cache_resident(const struct dataset *d, int drop);

/* Read every file of d once, so that its pages are in the page cache.
 * Files that cannot be opened are passed over. */
void dataset_cache_warm(const struct dataset *d);
/* Drop the page-cache pages of every file of d (as dataset_cache_resident
 * with drop set, without measuring what stays). */
void dataset_cache_drop(const struct dataset *d);

#endif
