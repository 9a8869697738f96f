/* Every op, in one list, read top to bottom. */
#include <string.h>
#include "op.h"

extern const struct op_ops op_decode, op_random_resized_crop, op_random_horizontal_flip,
	op_to_tensor, op_normalize, op_collate, op_resize, op_center_crop, op_null, op_sleep,
	op_synth, op_decode_random_resized_crop;

static const struct op_ops *const ops[] = {
	&op_decode,
	&op_random_resized_crop,
	&op_random_horizontal_flip,
	&op_to_tensor,
	&op_normalize,
	&op_collate,
	&op_resize,
	&op_center_crop,
	&op_null,
	&op_sleep,
	&op_synth,
	&op_decode_random_resized_crop,
};

const struct op_ops *op_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i]->name, name))
			return ops[i];
	return NULL;
}

const struct op_ops *const *op_all(size_t *n)
{
	*n = sizeof(ops) / sizeof(ops[0]);
	return ops;
}
