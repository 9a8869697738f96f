#include <stdio.h>
#include "commands.h"
#include "op.h"

int cmd_ops(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	size_t n;
	const struct op_ops *const *ops = op_all(&n);
	printf("%-24s %-24s %s\n", "op", "LotusTrace name", "arguments");
	for (size_t i = 0; i < n; i++)
		printf("%-24s %-24s %s%s\n", ops[i]->name, ops[i]->lotus_name, ops[i]->help,
		       ops[i]->flags & OP_TEST ? " [test op]" : "");
	return EXIT_OK;
}
