/* ppbench compare: the children (`ppbench run`, scripts/torch_side.py) and
 * the PyTorch side's files (compare.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "fsutil.h"
#include "emit.h"
#include "log.h"
#include "subprocess.h"
#include "resdir.h"
#include "conventions.h"
#include "compare_int.h"
#include "stopsig.h"

/* Run argv[0] (a path) with stdout to out_fd (-1: ours) in its own process
 * group; pass SIGINT/SIGTERM on. Returns its exit code, 128 + signal if a
 * signal ended it, 127 if it could not start. */
static int spawn(char *const argv[], int out_fd)
{
	sigset_t stop, old;
	int st = 0, forwarded = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (stop_signal()) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 128 + stop_signal();
	}
	static const int dfl[] = { SIGINT, SIGTERM, 0 };
	struct spawn sp = SPAWN_INIT;
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	sp.out = out_fd >= 0 ? out_fd : SPAWN_KEEP;
	sp.own_group = 1;
	sp.dfl = dfl;
	sp.mask = &old;
	pid_t pid = spawn_start(&sp);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		error_msg("cannot run '%s': %s", argv[0], strerror(errno));
		return 127;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return 127;
		if (stop_signal() && !forwarded) {
			kill(-pid, stop_signal());
			forwarded = 1;
		}
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return spawn_code(st);
}

/* spawn with stdout into a file (created) */
static int spawn_logged(char *const argv[], const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		warn_msg("cannot create '%s': %s", log, strerror(errno));
	int rc = spawn(argv, fd);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---- files --------------------------------------------------------------- */

/* The one entry of dir whose name ends with suffix, into out. */
static int find_entry(const char *dir, const char *suffix, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t sl = strlen(suffix);
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] != '.' && l > sl && !strcmp(de->d_name + l - sl, suffix)) {
			errf(out, n, "%s/%s", dir, de->d_name);
			found = 1;
			break;
		}
	}
	closedir(d);
	return found ? 0 : -1;
}

/* Remove the .npy files of dir, then dir (the dumps: big, and checked). */
void compare_remove_dumps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".npy")) {
			errf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

static const char *const torch_ops[] = {
	"decode", "random_resized_crop", "random_horizontal_flip", "resize", "center_crop",
	"to_tensor", "normalize", "collate",
};

/* The pipeline as torch_side.py takes it, or NULL with why (no equivalent). */
json_t *compare_torch_pipeline(const struct pipeline *p, char *why, size_t whylen)
{
	json_t *ops = json_array();
	char list[256] = "";

	for (size_t k = 0; k < sizeof(torch_ops) / sizeof(torch_ops[0]); k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
			 torch_ops[k]);
	for (int i = 0; i < p->nops; i++) {
		const char *name = p->op[i].ops->name;
		int known = 0;
		for (size_t k = 0; k < sizeof(torch_ops) / sizeof(torch_ops[0]); k++)
			known |= !strcmp(name, torch_ops[k]);
		if (!known) {
			errf(why, whylen, "pipeline '%s': op '%s' has no torchvision equivalent "
				"(compare knows %s)", p->name, name, list);
			goto bad;
		}
		if (!strcmp(name, "decode") != (i == 0) ||
		    !strcmp(name, "collate") != (i == p->nops - 1)) {
			errf(why, whylen, "pipeline '%s': compare needs decode first and collate "
				"last, as ImageFolder and default_collate do", p->name);
			goto bad;
		}
		json_t *o = json_object(), *args = json_object();
		char line[sizeof(p->op[i].line)], *save = NULL, *tok;
		snprintf(line, sizeof(line), "%s", p->op[i].line);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		tok = strtok_r(line, " \t\r\n", &save);   /* the op's name */
		while (tok && (tok = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(tok, '=');
			if (!eq)
				continue;
			*eq = 0;
			json_object_set_new(args, tok, json_string(eq + 1));
		}
		json_object_set_new(o, "op", json_string(name));
		json_object_set_new(o, "lotus_name", json_string(p->op[i].ops->lotus_name ?
								 p->op[i].ops->lotus_name : name));
		json_object_set_new(o, "args", args);
		json_array_append_new(ops, o);
	}
	return ops;
bad:
	json_decref(ops);
	return NULL;
}

/* python torch_side.py --probe: 0 with the versions in info, or -1 with why. */
int compare_probe_python(const char *python, const char *script, char *info, size_t infolen,
			char *why, size_t whylen)
{
	char *argv[] = { (char *)python, (char *)script, "--probe", NULL };
	char buf[4096];
	size_t got = 0;
	int fds[2];

	if (access(python, X_OK)) {
		errf(why, whylen, "'%s': %s", python, strerror(errno));
		return -1;
	}
	if (pipe(fds)) {
		errf(why, whylen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	/* the probe's output is a few hundred bytes: the pipe holds it */
	int rc = spawn(argv, fds[1]);
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], buf + got, sizeof(buf) - 1 - got);
		if (r > 0 && got + (size_t)r < sizeof(buf) - 1) {
			got += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	close(fds[0]);
	buf[got] = 0;
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	const char *e = json_string_value(json_object_get(j, "error"));
	if (rc || !j || e) {
		errf(why, whylen, "%s", e ? e : rc == 127 ? "cannot run it" : "its probe failed");
		json_decref(j);
		return -1;
	}
	snprintf(info, infolen, "torch %s, torchvision %s, Pillow %s, ATen CPU capability %s%s%s",
		 jget_str(j, "torch", "?"), jget_str(j, "torchvision", "?"), jget_str(j, "pillow", "?"),
		 jget_str(j, "cpu_capability", "?"),
		 jget_str(j, "aten_cpu_capability_env", "")[0] ? " (ATEN_CPU_CAPABILITY=" : "",
		 jget_str(j, "aten_cpu_capability_env", "")[0] ? jget_str(j, "aten_cpu_capability_env", "") : "");
	if (jget_str(j, "aten_cpu_capability_env", "")[0])
		snprintf(info + strlen(info), infolen - strlen(info), ")");
	json_decref(j);
	return 0;
}

/* `ppbench run` with the user's options plus extra ones, into out_root;
 * its folder renamed to dest. Returns run's exit code. */
int compare_run_ppbench(const struct compare_opts *c, const char *const *extra, const char *out_root,
		       const char *dest, const char *log)
{
	char **argv = calloc((size_t)c->nfwd + 24, sizeof(char *));
	char found[PATH_MAX];
	int k = 0, rc;

	if (!argv) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	argv[k++] = "/proc/self/exe";
	argv[k++] = "run";
	for (int i = 0; i < c->nfwd; i++)
		argv[k++] = c->fwd[i];
	if (!c->rng) {
		argv[k++] = "--rng";
		argv[k++] = "torch";
	}
	for (int i = 0; extra && extra[i]; i++)
		argv[k++] = (char *)extra[i];
	argv[k++] = "--out";
	argv[k++] = (char *)out_root;
	argv[k++] = "--tag";
	argv[k++] = "ppbench";
	argv[k] = NULL;
	rc = spawn_logged(argv, log);
	free(argv);
	if (rc)
		return rc;
	if (find_entry(out_root, "-ppbench", found, sizeof(found)) || rename(found, dest)) {
		error_msg("cannot find the results of `ppbench run` in '%s'", out_root);
		return EXIT_FAIL;
	}
	return 0;
}

/* Write the PyTorch side's config.json from ppbench's resolved options. */
int compare_write_torch_config(const char *dir, const json_t *opt, json_t *ops, int gpus,
			      uint64_t max_batches, int fidelity, char *err, size_t errlen)
{
	char path[PATH_MAX], lt[PATH_MAX], dump[PATH_MAX];
	json_t *c = json_object();
	long long batch = jget_int(opt, "batch", 0);

	errf(lt, sizeof(lt), "%s/lotustrace/b%lld_gpu%d", dir, batch, gpus);
	errf(dump, sizeof(dump), "%s/batches", dir);
	if (mkdir_p(lt, 0777) || (fidelity && mkdir_p(dump, 0777))) {
		errf(err, errlen, "cannot create '%s': %s", lt, strerror(errno));
		json_decref(c);
		return -1;
	}
	json_object_set_new(c, "data", json_string(jget_str(opt, "data", "")));
	json_object_set_new(c, "pipeline", json_string(jget_str(opt, "pipeline", "")));
	json_object_set(c, "ops", ops);
	json_object_set_new(c, "workers", json_integer(jget_int(opt, "workers", 1)));
	json_object_set_new(c, "batch", json_integer(batch));
	json_object_set_new(c, "gpus", json_integer(gpus));
	json_object_set_new(c, "prefetch_factor", json_integer(jget_int(opt, "prefetch_factor", 2)));
	json_object_set_new(c, "pin_memory", json_boolean(json_is_true(json_object_get(opt, "pin_memory"))));
	json_object_set_new(c, "shuffle", json_boolean(json_is_true(json_object_get(opt, "shuffle"))));
	json_object_set_new(c, "drop_last", json_boolean(json_is_true(json_object_get(opt, "drop_last"))));
	json_object_set_new(c, "seed", json_integer(jget_int(opt, "seed", 0)));
	json_object_set_new(c, "epochs", json_integer(jget_int(opt, "epochs", 1)));
	json_object_set_new(c, "max_batches", json_integer((json_int_t)max_batches));
	json_object_set_new(c, "gpu_step_ns", json_integer(fidelity ? 0 : jget_int(opt, "gpu_step_ns", 0)));
	json_object_set_new(c, "h2d_bytes_per_s",
			    json_real(fidelity ? 0.0 : jget_num(opt, "h2d_bandwidth_bytes_per_s")));
	json_object_set_new(c, "max_pixels", json_integer(jget_int(opt, "max_pixels", 0)));
	json_object_set_new(c, "trace", json_boolean(!fidelity));
	json_object_set_new(c, "out", json_string(dir));
	json_object_set_new(c, "lotustrace_dir", json_string(lt));
	json_object_set_new(c, "prefix", json_string(LOTUSTRACE_PREFIX));
	json_object_set_new(c, "dump_batches", json_integer(fidelity ? (json_int_t)max_batches : 0));
	json_object_set_new(c, "dump_dir", json_string(dump));
	errf(path, sizeof(path), "%s/config.json", dir);
	int rc = json_dump_file(c, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(c);
	if (rc) {
		errf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}

int compare_run_torch(const struct compare_opts *c, const char *script, const char *dir, const char *log)
{
	char cfg[PATH_MAX];
	errf(cfg, sizeof(cfg), "%s/config.json", dir);
	char *argv[] = { (char *)c->python, (char *)script, cfg, NULL };
	return spawn_logged(argv, log);
}

/* The PyTorch side's results files, computed here: summary.json (tool
 * "pytorch", with a "pytorch" block from run.json), batches.csv, ops.csv,
 * trace.json.gz. */
int compare_write_torch_results(const char *dir, const struct compare_side *s, char *err,
			       size_t errlen)
{
	json_t *cfg = compare_load_json(dir, "config.json", err, errlen);
	json_t *run = cfg ? compare_load_json(dir, "run.json", err, errlen) : NULL;
	json_t *mach = machine_json(), *blocks = json_object(), *blk = json_object();
	int rc = -1;

	if (!run)
		goto out;
	json_object_set(blk, "versions", json_object_get(run, "versions"));
	json_object_set(blk, "pin_memory_requested", json_object_get(run, "pin_memory_requested"));
	json_object_set(blk, "pin_memory_effective", json_object_get(run, "pin_memory_effective"));
	json_object_set(blk, "workers", json_object_get(run, "workers"));
	json_object_set(blocks, "options", cfg);
	json_object_set(blocks, "machine", mach);
	json_object_set(blocks, "pytorch", blk);
	struct results_in in = { .m = &s->m, .t = &s->t, .tool = "pytorch", .no_checksum = 1,
				 .blocks = blocks, .lotustrace = 0, .chrome = 1 };
	if (results_write(dir, &in, err, errlen))
		goto out;
	rc = 0;
out:
	json_decref(blocks);
	json_decref(blk);
	json_decref(cfg);
	json_decref(run);
	json_decref(mach);
	return rc;
}

