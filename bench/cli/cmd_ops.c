#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "op.h"

int cmd_ops(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ppbench ops\n\nLists the ops a pipeline file can use (pipelines/*.pipe: "
		       "one op a line, NAME key=value ...), their LotusTrace event names and their "
		       "arguments with defaults. Test ops are marked.\n");
		exit_codes_help(stdout);
		return EXIT_OK;
	}
	if (argc > 1) {
		error_msg("ops takes no argument ('%s'; see ppbench ops --help)", argv[1]);
		return EXIT_USAGE;
	}
	size_t n;
	const struct op_ops *const *ops = op_all(&n);
	printf("%-24s %-24s %s\n", "op", "LotusTrace name", "arguments");
	for (size_t i = 0; i < n; i++)
		printf("%-24s %-24s %s%s\n", ops[i]->name, ops[i]->lotus_name, ops[i]->help,
		       ops[i]->flags & OP_TEST ? " [test op]" : "");
	return EXIT_OK;
}
