/* ppbench bottleneck: the caching ladder of "A Caching Strategy for
 * Identifying Bottlenecks on the Data Input Pipeline", automated. */
#ifndef PPBENCH_BOTTLENECK_H
#define PPBENCH_BOTTLENECK_H

/* argv[0] = "bottleneck". Measures images/s with (1) one batch cached on
 * the simulated GPU (step only), (2) one batch cached on the host (copy +
 * step), (3) one processed sample cached in each worker (collate, the
 * loader's protocol, pin memory, copy, step), (4) the dataset's files in
 * the page cache (every per-sample op + the rest), (5) the full pipeline
 * from storage with a cold page cache (posix_fadvise DONTNEED on every
 * file first). Prints a table and names the stage whose inclusion causes
 * the largest drop, with the post's caveats.
 *
 * Exit codes: 0 done; 1 a step failed; 2 a bad option (nothing ran). */
int cmd_bottleneck(int argc, char **argv);

#endif
