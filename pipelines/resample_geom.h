/* Pillow's precompute_coeffs geometry for the bilinear filter on the box
 * (0, in_size) (Resample.c): shared by the resampler (resample.c) and the
 * kernels that compute its weights (kernels_body.h). */
#ifndef PPBENCH_RESAMPLE_GEOM_H
#define PPBENCH_RESAMPLE_GEOM_H

#define RS_PRECISION_BITS (32 - 8 - 2)

/* the scale and the filter's support */
struct rs_geom {
	double scale, filterscale, support;
};

static inline void rs_geom_init(struct rs_geom *g, int in_size, int out_size)
{
	float in0 = 0.0f, in1 = (float)in_size;
	g->filterscale = g->scale = (double)(in1 - in0) / out_size;
	if (g->filterscale < 1.0)
		g->filterscale = 1.0;
	g->support = 1.0 * g->filterscale;
}

/* output index xx's first input index and tap count; *center gets the
 * filter's center */
static inline int rs_span(const struct rs_geom *g, int in_size, int xx, int *count, double *center)
{
	*center = (xx + 0.5) * g->scale;
	int xmin = (int)(*center - g->support + 0.5);
	if (xmin < 0)
		xmin = 0;
	int xmax = (int)(*center + g->support + 0.5);
	if (xmax > in_size)
		xmax = in_size;
	*count = xmax - xmin;
	return xmin;
}

#endif
