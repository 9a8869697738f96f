#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rng.h"
#include "sampler.h"

void sampler_randperm(uint64_t *r, size_t n, struct rng *g)
{
	for (size_t i = 0; i < n; i++)
		r[i] = i;
	for (size_t i = 0; i + 1 < n; i++) {
		/* randperm_cpu: int64_t z = generator->random() % (n - i) */
		size_t z = (size_t)((uint64_t)rng_u32(g) % (uint64_t)(n - i));
		uint64_t t = r[i];
		r[i] = r[z + i];
		r[z + i] = t;
	}
}

void schedule_free(struct schedule *s)
{
	free(s->idx);
	free(s->b);
	free(s->epoch_first);
	free(s->base_seed);
	memset(s, 0, sizeof(*s));
}

int schedule_build(struct schedule *s, size_t n, size_t batch, int epochs, int shuffle,
		   int drop_last, uint64_t seed, uint64_t max_batches, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (n == 0 || batch == 0 || epochs <= 0) {
		snprintf(err, errlen, "nothing to schedule (%zu samples, batch %zu, %d epochs)",
			 n, batch, epochs);
		return -1;
	}
	size_t per_epoch = drop_last ? n / batch : (n + batch - 1) / batch;
	if (per_epoch == 0) {
		snprintf(err, errlen, "no batch: %zu samples are fewer than one batch of %zu "
			 "and the last batch is dropped", n, batch);
		return -1;
	}
	size_t total = per_epoch * (size_t)epochs;
	if (max_batches && max_batches < total)
		total = (size_t)max_batches;
	int ne = (int)((total + per_epoch - 1) / per_epoch);

	struct rng *main_gen = malloc(sizeof(*main_gen));
	struct rng *gen = malloc(sizeof(*gen));
	uint64_t *perm = malloc(n * sizeof(*perm));
	s->b = malloc(total * sizeof(*s->b));
	size_t cap = total * batch < n * (size_t)ne ? total * batch : n * (size_t)ne;
	s->idx = malloc(cap * sizeof(*s->idx));
	s->epoch_first = malloc((size_t)(ne + 1) * sizeof(*s->epoch_first));
	s->base_seed = malloc((size_t)ne * sizeof(*s->base_seed));
	if (!main_gen || !gen || !perm || !s->b || !s->idx || !s->epoch_first || !s->base_seed) {
		snprintf(err, errlen, "out of memory for the schedule of %zu batches", total);
		free(main_gen);
		free(gen);
		free(perm);
		schedule_free(s);
		return -1;
	}
	s->nsamples = n;
	s->epochs = ne;
	rng_seed(main_gen, seed);
	size_t id = 0;
	for (int e = 0; e < ne; e++) {
		/* _BaseDataLoaderIter.__init__ draws base_seed, then the first
		 * next() makes RandomSampler draw its generator's seed */
		s->base_seed[e] = rng_torch_int64(main_gen);
		if (shuffle) {
			rng_seed(gen, (uint64_t)rng_torch_int64(main_gen));
			sampler_randperm(perm, n, gen);
		} else {
			for (size_t i = 0; i < n; i++)
				perm[i] = i;
		}
		s->epoch_first[e] = id;
		for (size_t k = 0; k < per_epoch && id < total; k++, id++) {
			size_t lo = k * batch, hi = lo + batch < n ? lo + batch : n;
			s->b[id].first = s->nidx;
			s->b[id].n = (uint32_t)(hi - lo);
			s->b[id].epoch = (uint32_t)e;
			memcpy(s->idx + s->nidx, perm + lo, (hi - lo) * sizeof(*perm));
			s->nidx += hi - lo;
		}
	}
	s->epoch_first[ne] = id;
	s->nbatches = id;
	free(main_gen);
	free(gen);
	free(perm);
	return 0;
}
