/* Which samples go in which batch, as a DataLoader decides it: torch's
 * RandomSampler (or SequentialSampler without shuffle) and BatchSampler,
 * over several epochs, with the seeds a DataLoader draws from its main
 * generator (spec section 2.11).
 *
 * The main generator is MT19937 seeded with --seed (torch.manual_seed).
 * Each epoch is a new, non-persistent iterator: it first draws its
 * base_seed (int64, the workers' seeds are base_seed + worker id), then, with
 * shuffle, the RandomSampler draws the seed of its own generator and takes
 * randperm(n) from it. */
#ifndef PPBENCH_SAMPLER_H
#define PPBENCH_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

struct rng;

/* One batch of the schedule. */
struct sched_batch {
	uint64_t first;        /* offset of its sample indices in schedule.idx */
	uint32_t n;            /* samples */
	uint32_t epoch;
};

/* Every batch of a run, in id order (ids run on across epochs). */
struct schedule {
	size_t nsamples;       /* dataset size */
	int epochs;            /* epochs that hold at least one batch */
	uint64_t *idx;         /* dataset indices, batch after batch */
	size_t nidx;
	struct sched_batch *b; /* [nbatches] */
	size_t nbatches;
	size_t *epoch_first;   /* [epochs + 1]: id of the first batch of each epoch, then nbatches */
	int64_t *base_seed;    /* [epochs]: the DataLoader's base_seed of each epoch */
};

/* torch.randperm(n, generator=g) on the CPU: r[i] = i, then for i in
 * 0..n-2: swap(r[i], r[i + random() % (n - i)]). */
void sampler_randperm(uint64_t *r, size_t n, struct rng *g);

/* Build the schedule of `epochs` epochs over n samples in batches of
 * `batch` (the last one smaller unless drop_last), shuffled or in order,
 * cut after max_batches batches in total (0: no cut). 0, or -1 with err
 * (out of memory; no batch at all). */
int schedule_build(struct schedule *s, size_t n, size_t batch, int epochs, int shuffle,
		   int drop_last, uint64_t seed, uint64_t max_batches, char *err, size_t errlen);
void schedule_free(struct schedule *s);

#endif
