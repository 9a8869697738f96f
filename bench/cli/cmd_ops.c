#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "op.h"

static const struct opt ops_opts_table[] = { OPT_END };

static const char ops_description[] =
	"Lists the ops a pipeline file can use (pipelines/*.pipe: one op a line, NAME key=value "
	"...), their LotusTrace event names and their arguments with defaults. Test ops are "
	"marked.";

int cmd_ops(int argc, char **argv)
{
	int npos = 0;
	char none;
	int pr = opts_prelude(ops_opts_table, &none, argc, argv, &npos, "ppbench ops",
			      ops_description, NULL);
	if (pr >= 0)
		return pr;
	if (npos) {
		error_msg("ops takes no argument ('%s'; see ppbench ops --help)", argv[1]);
		return EXIT_USAGE;
	}
	size_t n;
	const struct op_ops *const *ops = op_all(&n);
	printf("%-24s %-24s %s\n", "op", "LotusTrace name", "arguments");
	for (size_t i = 0; i < n; i++) {
		char help[512];
		op_help(ops[i], help, sizeof(help));
		printf("%-24s %-24s %s%s\n", ops[i]->name, ops[i]->lotus_name, help,
		       ops[i]->flags & OP_TEST ? " [test op]" : "");
	}
	return EXIT_OK;
}
