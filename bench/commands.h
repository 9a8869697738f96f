/* The subcommands of ppbench; each takes argv with argv[0] = its name. */
#ifndef PPBENCH_COMMANDS_H
#define PPBENCH_COMMANDS_H

int cmd_apply(int argc, char **argv);
int cmd_dataset(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_ls(int argc, char **argv);

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,      /* the work failed (a data error with --on-error fail, a failed run) */
	EXIT_USAGE = 2,     /* bad option or argument: nothing ran */
	EXIT_WORKER = 3,    /* a worker died */
};

#endif
