/* The pipeline-file parser (pipelines/pipeline.c: pipeline_parse, each op's
 * argument parser): a .pipe file's text. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "pipeline.h"

void fuzz_init(void)
{
}

int fuzz_one(const uint8_t *data, size_t n)
{
	char *text = malloc(n + 1);
	if (!text)
		return 0;
	memcpy(text, data, n);
	text[n] = 0;
	struct pipeline p;
	char err[512];
	if (pipeline_parse(&p, text, "fuzz.pipe", err, sizeof(err)) == 0)
		pipeline_release(&p);
	free(text);
	return 0;
}
