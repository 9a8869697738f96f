/* RandomResizedCrop.get_params, as torchvision 0.14 computes it with torch's
 * float32 kernels on an AVX2 CPU: uniform_ is an FMA, exp and log are Sleef's
 * 1-ulp functions, the rest is python double arithmetic. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rng.h"
#include "rrc.h"

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float f32_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Sleef's double-float arithmetic (df.h, the ENABLE_FMA_SP variants): a
 * value is x + y with |y| <= ulp(x) / 2. */
struct df {
	float x, y;
};

static struct df df_add2_f_f(float x, float y)
{
	struct df r;
	r.x = x + y;
	float v = r.x - x;
	r.y = (x - (r.x - v)) + (y - v);
	return r;
}

static struct df df_div(struct df n, struct df d)
{
	struct df q;
	float t = 1.0f / d.x;
	q.x = n.x * t;
	float u = fmaf(t, n.x, -q.x);
	q.y = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
	q.y = fmaf(q.x, q.y, fmaf(n.y, t, u));
	return q;
}

static struct df df_mul_f(struct df x, float y)
{
	struct df r;
	r.x = x.x * y;
	r.y = fmaf(x.y, y, fmaf(x.x, y, -r.x));
	return r;
}

/* |x| >= |y| */
static struct df df_add_df(struct df x, struct df y)
{
	struct df r;
	r.x = x.x + y.x;
	r.y = (((x.x - r.x) + y.x) + x.y) + y.y;
	return r;
}

static struct df df_add_f(struct df x, float y)
{
	struct df r;
	r.x = x.x + y;
	r.y = ((x.x - r.x) + y) + x.y;
	return r;
}

/* Sleef xlogf_u1 (what Sleef_logf8_u10 runs on AVX2) */
float rrc_torch_logf(float d)
{
	if (isnan(d) || d < 0.0f)
		return NAN;
	if (d == 0.0f)
		return -INFINITY;
	if (isinf(d))
		return INFINITY;
	int o = d < 0x1p-126f;                 /* FLT_MIN: scale subnormals up */
	if (o)
		d *= 0x1p32f * 0x1p32f;
	int e = (int)((f32_bits(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
	/* vldexp3: add -e to the exponent field */
	float m = f32_from_bits(f32_bits(d) + ((uint32_t)-e << 23));
	if (o)
		e -= 64;
	struct df s = df_mul_f((struct df){ 0.69314718246459960938f, -1.904654323148236017e-09f },
			       (float)e);
	struct df x = df_div(df_add2_f_f(-1.0f, m), df_add2_f_f(1.0f, m));
	float x2 = x.x * x.x;
	float t = +0.3027294874e+0f;
	t = fmaf(t, x2, +0.3996108174e+0f);
	t = fmaf(t, x2, +0.6666694880e+0f);
	s = df_add_df(s, (struct df){ x.x * 2.0f, x.y * 2.0f });
	s = df_add_f(s, x2 * x.x * t);
	return s.x + s.y;
}

void rrc_params_init(struct rrc_params *p, double scale_lo, double scale_hi,
		     double ratio_lo, double ratio_hi)
{
	p->scale_lo = (float)scale_lo;
	p->scale_hi = (float)scale_hi;
	/* torch.tensor(ratio) is float32, then torch.log in float32 */
	p->log_lo = rrc_torch_logf((float)ratio_lo);
	p->log_hi = rrc_torch_logf((float)ratio_hi);
	p->ratio_min = ratio_lo < ratio_hi ? ratio_lo : ratio_hi;
	p->ratio_max = ratio_lo < ratio_hi ? ratio_hi : ratio_lo;
}

void rrc_get_params(struct rng *r, const struct rrc_params *p, int W, int H,
		    int *i, int *j, int *h, int *w)
{
	/* python: area is an int, area * u a double */
	double area = (double)((int64_t)W * (int64_t)H);
	for (int attempt = 0; attempt < 10; attempt++) {
		double target_area = area * (double)rng_torch_uniform(r, p->scale_lo, p->scale_hi);
		double ar = (double)rng_torch_expf(rng_torch_uniform(r, p->log_lo, p->log_hi));
		/* int(round(x)): round half to even, as nearbyint in the
		 * default rounding mode */
		double wd = nearbyint(sqrt(target_area * ar));
		double hd = nearbyint(sqrt(target_area / ar));
		if (wd > 0 && wd <= W && hd > 0 && hd <= H) {
			*h = (int)hd;
			*w = (int)wd;
			*i = (int)rng_torch_randint(r, (uint32_t)(H - *h + 1));
			*j = (int)rng_torch_randint(r, (uint32_t)(W - *w + 1));
			return;
		}
	}
	/* fallback to a central crop, with python's double ratios */
	double in_ratio = (double)W / (double)H;
	if (in_ratio < p->ratio_min) {
		*w = W;
		*h = (int)nearbyint(*w / p->ratio_min);
	} else if (in_ratio > p->ratio_max) {
		*h = H;
		*w = (int)nearbyint(*h * p->ratio_max);
	} else {
		*w = W;
		*h = H;
	}
	/* python floor division; h <= H and w <= W here */
	*i = (H - *h) / 2;
	*j = (W - *w) / 2;
}
