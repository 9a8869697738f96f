#include <string.h>
#include "log.h"
#include "options.h"
#include "optpos.h"

int opts_positional_bad(char **pos, int n, const char *cmd)
{
	for (int i = 0; i < n; i++) {
		char err[512];
		opts_unexpected(pos[i], cmd, err, sizeof(err));
		if (strncmp(err, "unexpected argument", 19)) {
			error_msg("%s", err);
			return 1;
		}
	}
	return 0;
}
