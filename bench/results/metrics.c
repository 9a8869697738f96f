/* The metric table (bench/results/metrics.h): every figure of a run, where it
 * lives, its unit and its definition. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "analysis.h"
#include "backend.h"
#include "log.h"
#include "metrics.h"
#include "sweep_row.h"

#define STR(x) #x
#define XSTR(x) STR(x)

#define RUN(n, j, u, c, t, f, s, o, d) \
	{ #n, j, u, c, d, MSRC_RUN, t, offsetof(struct run_metrics, f), s, \
	  offsetof(struct sweep_row, n), o }
#define SWP(n, j, u, c, d) \
	{ #n, j, u, c, d, MSRC_SWEEP, MCT_DOUBLE, 0, 1, offsetof(struct sweep_row, n), 0 }
#define OPM(n, j, u, c, t, f, s, o, d) \
	{ #n, j, u, c, d, t, offsetof(struct op_metrics, f), s, offsetof(struct sweep_op, n), o }

const struct metric metric_table[] = {
	RUN(e2e_s, "e2e_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, e2e_s, 1, 0,
	    "wall time of the run: from the first batch task sent to the last batch handed to the consumer"),
	RUN(images, "images", "count", COMBINE_SAME, MCT_U64, images, 1, 0,
	    "images handed to the consumer"),
	RUN(batches, "batches", "count", COMBINE_SAME, MCT_U64, batches, 1, 0,
	    "batches handed to the consumer"),
	RUN(images_per_s, "images_per_s", "images/s", COMBINE_MEDIAN, MCT_DOUBLE, images_per_s, 1, 0,
	    "images / e2e_s"),
	RUN(workers_cpu_s, "cpu.workers_total_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, workers_cpu_s, 1, 0,
	    "CPU time of all workers, user + system (getrusage at exit)"),
	RUN(main_cpu_s, "cpu.main_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, main_cpu_s, 1, 0,
	    "CPU time of the main process with all its threads (pin thread, simulated GPU), user + system"),
	RUN(ops_span_s, "cpu.ops_span_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, ops_span_s, 1, 0,
	    "sum of the ops' wall spans (pipeline ops and collation, all workers): what Lotus calls the ops' \"CPU seconds\" (Fig. 6); it includes time a worker was descheduled"),
	RUN(ops_oncpu_s, "cpu.ops_oncpu_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, ops_oncpu_s, 1, 1,
	    "the same ops' time on a CPU (--counters: task-clock, else the thread CPU clock); null when not counted"),
	RUN(workers_cpu_per_image_ms, "cpu.workers_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, workers_cpu_ms_per_image, 1, 0,
	    "workers_cpu_s per image handed over"),
	RUN(ops_span_per_image_ms, "cpu.ops_span_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, ops_span_ms_per_image, 1, 0,
	    "ops_span_s per image handed over"),
	RUN(tree_cpu_per_image_ms, "cpu.tree_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, tree_cpu_ms_per_image, 1, 1,
	    "the whole process tree's CPU time (workers + main process with its threads, user + system) per image handed over"),
	RUN(main_setup_s, "cpu.main_setup_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, main_setup_cpu_s, 1, 1,
	    "the main process's CPU time (user + system) setting the run up before its first batch task: mapping, populating and locking the batch slots and the shared area, whose first touch is paid here once instead of in collate; outside cpu.main_s and cpu.tree_per_image_ms; null when not read"),
	RUN(main_teardown_s, "cpu.main_teardown_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, main_teardown_cpu_s, 1, 1,
	    "the main process's CPU time (user + system) tearing the run down after the workers stopped: unmapping the batch slots and freeing the run's buffers; outside cpu.main_s; null when not read"),
	RUN(run_cpu_per_image_ms, "cpu.run_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, run_cpu_ms_per_image, 1, 1,
	    "the process tree's CPU per image with the main process's set-up and teardown added (cpu.tree_per_image_ms + (cpu.main_setup_s + cpu.main_teardown_s) / images): what the whole run cost, per image; null when not read"),
	RUN(workers_sys_per_image_ms, "cpu.workers_sys_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, workers_sys_ms_per_image, 1, 1,
	    "the workers' system time per image (their own getrusage at the end of their loops; the kernel samples the user/system split by ticks, so per op it is not known: see the ops' page_faults_per_call); null when not read"),
	RUN(main_sys_per_image_ms, "cpu.main_sys_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, main_sys_ms_per_image, 1, 1,
	    "the main process's system time (all its threads) over the run per image; null when not read"),
	RUN(workers_faults_per_image, "faults.workers_per_image", "count", COMBINE_MEDIAN, MCT_DOUBLE, workers_faults_per_image, 1, 1,
	    "the workers' page faults (minor + major, getrusage) from their start to the end of their loops, per image handed over"),
	RUN(workers_faults_after_first_batch_per_image, "faults.workers_after_first_batch_per_image", "count", COMBINE_MEDIAN, MCT_DOUBLE, workers_faults_after_per_image, 1, 1,
	    "the workers' page faults from the end of each one's first batch (its buffers grown) to the end, per sample processed then: the steady state, which must not grow with the batch size"),
	RUN(workers_cpu_after_first_batch_per_image_ms, "cpu.workers_after_first_batch_per_image_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, workers_cpu_after_ms_per_image, 1, 1,
	    "the workers' CPU time (user + system) from the end of each one's first batch to the end of its loop, per sample processed then: the steady state, without start-up and the first batch's first touches (make bench's batch section: per-run costs apart)"),
	RUN(main_faults_per_image, "faults.main_per_image", "count", COMBINE_MEDIAN, MCT_DOUBLE, main_faults_per_image, 1, 1,
	    "the main process's page faults over the run (its own threads) per image"),
	RUN(worker_rss_max_kib, "memory.worker_max_rss_largest_kib", "KiB", COMBINE_MEDIAN, MCT_DOUBLE, worker_rss_max_kib, 1, 0,
	    "peak resident memory of the largest worker"),
	RUN(worker_rss_mean_kib, "memory.worker_max_rss_mean_kib", "KiB", COMBINE_MEDIAN, MCT_DOUBLE, worker_rss_mean_kib, 1, 0,
	    "mean over the workers of their peak resident memory"),
	RUN(main_max_rss_kib, "memory.main_max_rss_kib", "KiB", COMBINE_MEDIAN, MCT_LONG, main_maxrss_kib, 1, 0,
	    "peak resident memory of the main process (getrusage ru_maxrss)"),
	RUN(preproc_batches, "batch_preproc.count", "count", COMBINE_MEDIAN, MCT_SIZE, preproc.n, 1, 0,
	    "batches in the per-batch preprocessing figures, after Lotus's low-tail cut (values below q1 - 2 IQR dropped: the short last batch)"),
	RUN(preproc_avg_ms, "batch_preproc.mean_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.mean, 1e-06, 0,
	    "mean time a worker took to preprocess a batch (its samples and the collation), after the cut"),
	RUN(preproc_std_ms, "batch_preproc.std_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.std, 1e-06, 0,
	    "standard deviation (ddof 0) of the per-batch preprocessing time, after the cut"),
	RUN(preproc_min_ms, "batch_preproc.min_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.min, 1e-06, 0,
	    "shortest per-batch preprocessing time, after the cut"),
	RUN(preproc_p25_ms, "batch_preproc.p25_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.p25, 1e-06, 0,
	    "25th percentile of the per-batch preprocessing time, after the cut"),
	RUN(preproc_p50_ms, "batch_preproc.p50_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.p50, 1e-06, 0,
	    "median per-batch preprocessing time, after the cut"),
	RUN(preproc_p75_ms, "batch_preproc.p75_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.p75, 1e-06, 0,
	    "75th percentile of the per-batch preprocessing time, after the cut"),
	RUN(preproc_p90_ms, "batch_preproc.p90_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.p90, 1e-06, 0,
	    "90th percentile of the per-batch preprocessing time, after the cut"),
	RUN(preproc_p99_ms, "batch_preproc.p99_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.p99, 1e-06, 0,
	    "99th percentile of the per-batch preprocessing time, after the cut"),
	RUN(preproc_max_ms, "batch_preproc.max_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc.max, 1e-06, 0,
	    "longest per-batch preprocessing time"),
	RUN(preproc_std_pct, "batch_preproc.std_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, preproc_std_pct, 1, 0,
	    "preproc_std_ms / preproc_avg_ms: how much batches vary"),
	RUN(preproc_iqr_ms, "batch_preproc.iqr_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc_iqr_ns, 1e-06, 0,
	    "interquartile range of the per-batch preprocessing time, after the cut"),
	RUN(preproc_low_tail_dropped, "batch_preproc.low_tail_dropped", "count", COMBINE_MEDIAN, MCT_SIZE, preproc_dropped, 1, 0,
	    "batches dropped by the low-tail cut"),
	RUN(preproc_all_batches, "batch_preproc.all_count", "count", COMBINE_MEDIAN, MCT_SIZE, preproc_all.n, 1, 0,
	    "batches preprocessed, before the cut"),
	RUN(preproc_all_avg_ms, "batch_preproc.all_mean_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc_all.mean, 1e-06, 0,
	    "mean per-batch preprocessing time before the cut"),
	RUN(preproc_all_std_ms, "batch_preproc.all_std_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, preproc_all.std, 1e-06, 0,
	    "its standard deviation before the cut"),
	RUN(wait_records, "main.wait_records", "count", COMBINE_MEDIAN, MCT_SIZE, wait_events, 1, 0,
	    "SBatchWait records of the main process (one per batch handed over)"),
	RUN(ooo_batches, "main.out_of_order_batches", "count", COMBINE_MEDIAN, MCT_SIZE, ooo_batches, 1, 0,
	    "batches that arrived before a batch with a smaller id"),
	RUN(ooo_pct, "main.out_of_order_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, ooo_pct, 1, 0,
	    "out-of-order batches, % of the batches that arrived"),
	RUN(stall_pct, "main.stall_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, stall_pct, 1, 0,
	    "sum_wait_s / e2e_s: the share of the run the main process waited for the batch it hands over next"),
	RUN(sum_wait_s, "main.wait_total_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, wait_total_s, 1, 0,
	    "total time the main process waited for the batch it hands over next (out-of-order markers excluded)"),
	RUN(wait_count, "main.wait.count", "count", COMBINE_MEDIAN, MCT_SIZE, wait.n, 1, 0,
	    "waits in the wait figures (SBatchWait records that are not out-of-order markers)"),
	RUN(wait_avg_ms, "main.wait.mean_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.mean, 1e-06, 0,
	    "mean wait of the main process for a batch"),
	RUN(wait_std_ms, "main.wait.std_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.std, 1e-06, 0,
	    "standard deviation of the waits"),
	RUN(wait_min_ms, "main.wait.min_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.min, 1e-06, 0,
	    "shortest wait"),
	RUN(wait_p50_ms, "main.wait.p50_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.p50, 1e-06, 0,
	    "median wait"),
	RUN(wait_p90_ms, "main.wait.p90_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.p90, 1e-06, 0,
	    "90th percentile of the waits"),
	RUN(wait_p99_ms, "main.wait.p99_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.p99, 1e-06, 0,
	    "99th percentile of the waits"),
	RUN(wait_max_ms, "main.wait.max_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, wait.max, 1e-06, 0,
	    "longest wait"),
	RUN(wait_gt_500ms_pct, "main.wait.over_500ms_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, wait_over_500ms_pct, 1, 0,
	    "waits over 500 ms, % of all SBatchWait records (Lotus's denominator: out-of-order markers included)"),
	RUN(wait_inorder_gt_500ms_pct, "main.wait.inorder_over_500ms_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, wait_inorder_over_500ms_pct, 1, 0,
	    "waits over 500 ms, % of the waits (markers excluded)"),
	RUN(delay_count, "main.delay.count", "count", COMBINE_MEDIAN, MCT_SIZE, delay.n, 1, 0,
	    "batches with a delay (preprocessed and consumed)"),
	RUN(delay_avg_ms, "main.delay.mean_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.mean, 1e-06, 0,
	    "mean delay: from the end of a batch's preprocessing to its hand-over to the consumer"),
	RUN(delay_std_ms, "main.delay.std_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.std, 1e-06, 0,
	    "standard deviation of the delays"),
	RUN(delay_min_ms, "main.delay.min_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.min, 1e-06, 0,
	    "shortest delay"),
	RUN(delay_p50_ms, "main.delay.p50_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.p50, 1e-06, 0,
	    "median delay"),
	RUN(delay_p90_ms, "main.delay.p90_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.p90, 1e-06, 0,
	    "90th percentile of the delays"),
	RUN(delay_p99_ms, "main.delay.p99_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.p99, 1e-06, 0,
	    "99th percentile of the delays"),
	RUN(delay_max_ms, "main.delay.max_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, delay.max, 1e-06, 0,
	    "longest delay"),
	RUN(delay_gt_500ms_pct, "main.delay.over_500ms_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, delay_over_500ms_pct, 1, 0,
	    "delays over 500 ms, % of the batches with a delay"),
	RUN(gpu_busy_s, "gpu.busy_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, gpu_busy_s, 1, 0,
	    "time the simulated GPUs copied or stepped"),
	RUN(gpu_idle_s, "gpu.idle_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, gpu_idle_s, 1, 0,
	    "time the simulated GPUs waited for a batch"),
	RUN(gpu_util_pct, "gpu.utilization_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, gpu_util_pct, 1, 0,
	    "gpu_busy_s / (gpu_busy_s + gpu_idle_s)"),
	RUN(checksum_s, "harness.checksum_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, checksum_s, 1, 0,
	    "time spent hashing every batch (--checksum; 0 when off)"),
	RUN(checksum_bytes, "harness.checksum_bytes", "B", COMBINE_SAME, MCT_U64, checksum_bytes, 1, 0,
	    "bytes hashed"),
	RUN(checksum_gb_per_s, "harness.checksum_gb_per_s", "GB/s", COMBINE_MEDIAN, MCT_DOUBLE, checksum_gb_per_s, 1, 1,
	    "hashing speed; null when nothing was hashed"),
	RUN(gpu_copy_s, "harness.gpu_copy_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, gpu_copy_s, 1, 0,
	    "time of the simulated host-to-device copies"),
	RUN(pin_copy_s, "harness.pin_copy_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, pin_copy_s, 1, 0,
	    "time of the pin thread's copies into page-locked memory (modelled work, as PyTorch's pin thread does it; 0 when --pin-memory is off)"),
	RUN(gpu_overshoot_s, "harness.gpu_overshoot_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, gpu_overshoot_s, 1, 1,
	    "the simulated GPU's busy time beyond what its copies and steps model (a sleep lasts at least the kernel's timer slack); wall time, mostly asleep: the CPU it costs is in harness_main_per_sample_us; null when not measured"),
	RUN(harness_per_sample_us, "harness.per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_us, 1, 1,
	    "the harness's CPU time (user + system) per sample handed over, beyond the pipeline's and the pin copy's: the process tree's CPU minus the ops' minus the pin copy = harness_startup + harness_counters + harness_checksum + harness_workers + harness_main; null when the workers' usage was not read"),
	RUN(harness_startup_per_sample_us, "harness.startup_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_startup_us, 1, 1,
	    "the workers' CPU outside their loops (process start after the fork, its copy-on-write faults, opening counters, exit), per sample: a cost per run, spread over its samples"),
	RUN(harness_counters_per_sample_us, "harness.counters_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_counters_us, 1, 1,
	    "the counters' reads (--counters: one per op boundary, each costing what `ppbench info` measures at start-up) per sample; 0 with --counters none"),
	RUN(harness_checksum_per_sample_us, "harness.checksum_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_checksum_us, 1, 1,
	    "hashing the samples (--checksum) per sample: the hashes' wall time times the share of their tasks' wall time the workers were on a CPU (reading a CPU clock around each hash would cost a tenth of it)"),
	RUN(harness_workers_per_sample_us, "harness.workers_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_workers_us, 1, 1,
	    "the workers' per-task work per sample: their loops' CPU minus the ops', the counter reads and the checksum (queue get and put, sample set-up and seeding, trace events, buffers)"),
	RUN(harness_main_per_sample_us, "harness.main_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, harness_main_us, 1, 1,
	    "the main process's CPU per sample (its loop: dispatch, reorder, events, buffer release; the pin thread's queue and pool handling; the simulated GPU; starting and stopping the workers) minus the pin copy"),
	RUN(pin_copy_per_sample_us, "harness.pin_copy_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, pin_copy_us, 1, 1,
	    "the pin thread's copies into page-locked memory per sample, CPU time (the thread's CPU clock around each copy): what PyTorch's pin thread does too, so not in harness_per_sample_us; 0 with --pin-memory off"),
	RUN(pipeline_per_sample_us, "harness.pipeline_per_sample_us", "us", COMBINE_MEDIAN, MCT_DOUBLE, pipeline_us, 1, 1,
	    "the pipeline's CPU per sample: the ops' on-CPU time (--counters, cpu.ops_oncpu_s: the counter reads inside their windows are off it), or, not counted, their wall spans times the share of their tasks' wall time the workers were on a CPU"),
	RUN(harness_to_pipeline_ratio, "harness.to_pipeline_ratio", "ratio", COMBINE_MEDIAN, MCT_DOUBLE, harness_ratio, 1, 1,
	    "harness_per_sample_us / pipeline_per_sample_us; null when the pipeline took no time"),
	RUN(inflight_max, "harness.inflight_max_batches", "count", COMBINE_MEDIAN, MCT_INT, inflight_max, 1, 0,
	    "most batches in flight at once (PyTorch's bound: prefetch factor x workers)"),
	RUN(samples_reordered_count, "policy.samples_reordered", "count", COMBINE_MEDIAN, MCT_U64, samples_reordered, 1, 0,
	    "samples that left the batch the sampler put them in (shared-queue and speedy policies; 0 for torch)"),
	RUN(speedy_slow_lane, "policy.speedy_slow_lane_samples", "count", COMBINE_MEDIAN, MCT_U64, speedy_slow_lane, 1, 0,
	    "speedy: samples sent to the slow lane"),
	RUN(speedy_timeout_s, "policy.speedy_timeout_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, speedy_timeout_s, 1, 1,
	    "speedy: the slow-lane timeout; null for other policies"),
	RUN(fused_region_decodes, "fused.region_decodes", "count", COMBINE_SAME, MCT_DOUBLE, fused_region_decodes, 1, 1,
	    "decode_random_resized_crop (the fused what-if): images decoded over their crop only; null when the pipeline has no such op"),
	RUN(fused_full_decodes, "fused.full_decodes", "count", COMBINE_SAME, MCT_DOUBLE, fused_full_decodes, 1, 1,
	    "decode_random_resized_crop: images decoded in full and then cropped (a PNG, a JPEG without its EOI, a failed region decode); null when the pipeline has no such op"),
	RUN(others_cpu_pct, "noise.others_cpu_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, others_cpu_pct, 1, 1,
	    "CPU time other processes took while the run measured, % of the CPUs it could use (the noise guard; null when not measured)"),
	RUN(steal_pct, "noise.steal_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, steal_pct, 1, 1,
	    "CPU time the hypervisor took from those CPUs meanwhile, %"),
	RUN(load_avg_1min, "noise.load_avg_1min", "count", COMBINE_MEDIAN, MCT_DOUBLE, load1, 1, 1,
	    "1-minute load average at the end of the run"),
	RUN(nice, "noise.nice", "count", COMBINE_SAME, MCT_DOUBLE, nice, 1, 1,
	    "the run's nice value (-20..19; below 0: a raised CPU priority, set with nice or renice): a CPU other processes of its scheduling group want goes to the run first"),
	RUN(autogroup_nice, "noise.autogroup_nice", "count", COMBINE_SAME, MCT_DOUBLE, group_nice, 1, 1,
	    "where the kernel schedules each session as a group (sched_autogroup_enabled), the nice of the run's session's group, which weighs it against other sessions' processes; null when autogroups are off"),
	RUN(cpus_usable, "cpu.cpus_usable", "count", COMBINE_SAME, MCT_DOUBLE, cpus_usable, 1, 1,
	    "CPUs the run could use: its affinity mask (taskset, Slurm, a cpuset), or its cgroup CPU quota when smaller"),
	RUN(busy_threads, "cpu.busy_threads", "count", COMBINE_MEDIAN, MCT_DOUBLE, busy_threads, 1, 0,
	    "threads busy at once on average: the workers, plus the main process (with its pin and GPU threads) for its share of the run"),
	RUN(oversubscribed, "cpu.oversubscribed", "count", COMBINE_SAME, MCT_DOUBLE, oversubscribed, 1, 1,
	    "1 when busy_threads exceeds cpus_usable by more than half a thread (time-slicing then inflates per-batch time and its spread), else 0"),
	RUN(trace_events, "trace.events", "count", COMBINE_MEDIAN, MCT_U64, trace_events, 1, 0,
	    "trace events recorded"),
	RUN(trace_dropped, "trace.dropped_events", "count", COMBINE_MEDIAN, MCT_U64, trace_dropped, 1, 0,
	    "trace events lost because a buffer was full (0 unless --trace-capacity is set too low)"),
	RUN(trace_cost_ns, "trace.cost_per_event_ns", "ns", COMBINE_MEDIAN, MCT_DOUBLE, trace_cost_ns, 1, 0,
	    "measured cost of recording one trace event"),
	RUN(skipped_files, "skipped.count", "count", COMBINE_SAME, MCT_U64, nskipped, 1, 0,
	    "files that could not be read or decoded, left out of the batches (with --on-error fail, the "
	    "one that stopped the run), each listed with its reason in skipped.files"),
	SWP(wall_s, "wall_s", "s", COMBINE_MEDIAN,
	    "the run process's wall time as the sweep saw it (start-up and writing included)"),
	SWP(cache_resident_pct, "page_cache_resident_pct", "%", COMBINE_MEDIAN,
	    "share of the dataset's bytes in the page cache before the run (mincore)"),
};
const struct op_metric op_metric_table[] = {
	OPM(count, "count", "count", COMBINE_MEDIAN, MCT_SIZE, st.n, 1, 0,
	    "events of the op: calls (samples), or batches for collation"),
	OPM(mean_ms, "mean_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.mean, 1e-06, 0,
	    "mean duration of one call"),
	OPM(std_ms, "std_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.std, 1e-06, 0,
	    "standard deviation of the durations"),
	OPM(min_ms, "min_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.min, 1e-06, 0,
	    "shortest call"),
	OPM(p50_ms, "p50_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.p50, 1e-06, 0,
	    "median call"),
	OPM(p90_ms, "p90_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.p90, 1e-06, 0,
	    "90th percentile"),
	OPM(p99_ms, "p99_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.p99, 1e-06, 0,
	    "99th percentile"),
	OPM(max_ms, "max_ms", "ms", COMBINE_MEDIAN, MCT_DOUBLE, st.max, 1e-06, 0,
	    "longest call"),
	OPM(span_s, "span_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, span_s, 1, 0,
	    "sum of the op's wall spans over all workers: Lotus's per-op \"CPU seconds\" (Fig. 6b); includes time descheduled"),
	OPM(under_10ms_pct, "under_10ms_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, under_10ms_pct, 1, 0,
	    "calls shorter than 10 ms, % (Table II)"),
	OPM(under_100us_pct, "under_100us_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, under_100us_pct, 1, 0,
	    "calls shorter than 100 us, % (Table II)"),
	OPM(regions, "regions", "count", COMBINE_MEDIAN, MCT_DOUBLE, regions, 1, 1,
	    "calls counted by --counters"),
	OPM(page_faults_per_call, "page_faults_per_call", "count", COMBINE_MEDIAN, MCT_DOUBLE, faults_per_call, 1, 1,
	    "page faults per counted call (--counters with page-faults, as the default sw has; null otherwise): with the processes' system time (cpu.*_sys_per_image_ms), what the kernel did for the op"),
	OPM(page_faults_per_call_after_first_batch, "page_faults_per_call_after_first_batch", "count", COMBINE_MEDIAN, MCT_DOUBLE, faults_per_call_after, 1, 1,
	    "the same from the end of each worker's first batch on (its buffers grown): the steady state"),
	OPM(page_faults_per_call_after_first_epoch, "page_faults_per_call_after_first_epoch", "count", COMBINE_MEDIAN, MCT_DOUBLE, faults_per_call_after_epoch, 1, 1,
	    "the same in the epochs after each worker's first (its buffers grown to the largest data it met once; null with one epoch)"),
	OPM(oncpu_s, "oncpu_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, oncpu_s, 1, 1,
	    "time on a CPU during the op's calls (--counters)"),
	OPM(descheduled_s, "descheduled_s", "s", COMBINE_MEDIAN, MCT_DOUBLE, descheduled_s, 1, 1,
	    "wall time of the counted calls minus oncpu_s: time descheduled"),
	OPM(oncpu_pct, "oncpu_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, oncpu_pct, 1, 1,
	    "oncpu / wall of the counted calls"),
	OPM(oncpu_under_10ms_pct, "oncpu_under_10ms_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, oncpu_under_10ms_pct, 1, 1,
	    "counted calls whose own time on a CPU (task-clock, else the thread CPU clock, between the counter reads around the call) was under 10 ms, %: Table II's threshold on the op's own work, which waits for a CPU (other load, time-slicing) do not stretch; null without --counters"),
	OPM(oncpu_under_100us_pct, "oncpu_under_100us_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, oncpu_under_100us_pct, 1, 1,
	    "the same under 100 us, % (each call's on-CPU time less what an empty counted region shows, the reads' own ends: ppbench info)"),
	OPM(ipc, "ipc", "1", COMBINE_MEDIAN, MCT_DOUBLE, ipc, 1, 1,
	    "instructions per cycle (hardware events; null where not supported)"),
	OPM(cache_mpki, "cache_mpki", "1", COMBINE_MEDIAN, MCT_DOUBLE, cache_mpki, 1, 1,
	    "cache misses per 1000 instructions (hardware events)"),
	OPM(branch_mpki, "branch_mpki", "1", COMBINE_MEDIAN, MCT_DOUBLE, branch_mpki, 1, 1,
	    "branch misses per 1000 instructions (hardware events)"),
	OPM(frontend_stall_pct, "frontend_stall_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, frontend_stall_pct, 1, 1,
	    "front-end stall cycles, % of cycles (hardware events)"),
	OPM(backend_stall_pct, "backend_stall_pct", "%", COMBINE_MEDIAN, MCT_DOUBLE, backend_stall_pct, 1, 1,
	    "back-end stall cycles, % of cycles (hardware events)"),
};
#undef RUN
#undef SWP
#undef OPM

const size_t metric_count = sizeof(metric_table) / sizeof(metric_table[0]);
const size_t op_metric_count = sizeof(op_metric_table) / sizeof(op_metric_table[0]);

const struct summary_key summary_keys[] = {
	{ "schema_version", "integer", "version of this layout (RESULTS_SCHEMA_VERSION)" },
	{ "tool", "string", "\"ppbench\"" },
	{ "complete", "bool", "the run handed over every batch it planned (false: stopped early, or its results could not all be written)" },
	{ "stop_reason", "string", "why the run is incomplete (only when complete is false)" },
	{ "write_error", "string", "why the results folder could not be written completely (only then)" },
	{ "checksum", "string", "XXH3 of every sample's output and label, 16 hex digits: the same for every worker count, backend, order and policy" },
	{ "kernels", "string", "the ops' kernels that ran: sse2, avx2, avx512 or avx512vnni (the widest the CPU has, or PPBENCH_KERNEL)" },
	{ "batch_size", "integer", "--batch" },
	{ "workers", "integer", "--workers" },
	{ "gpus", "integer", "--gpus" },
	{ "start_wall_ns", "integer", "start of the E2E window, wall-clock ns" },
	{ "end_wall_ns", "integer", "end of the E2E window, wall-clock ns" },
	{ "cpu", "object", "CPU time figures" },
	{ "cpu.per_worker_s", "array", "CPU time of each worker, user + system, s" },
	{ "memory", "object", "memory figures" },
	{ "memory.worker_max_rss_kib", "array", "peak resident memory of each worker, KiB" },
	{ "ops", "object", "one object per op, keyed by the op's id (a second op of the same id is \"id#2\"), with the op figures" },
	{ "ops.*.lotus_name", "string", "the op's LotusTrace event name (SLoader, SRandomResizedCrop, ...)" },
	{ "batch_preproc", "object", "per-batch preprocessing figures" },
	{ "main", "object", "the main process: out of order, stall, wait, delay" },
	{ "main.wait", "object", "the main process's waits" },
	{ "main.delay", "object", "the batches' delays" },
	{ "gpu", "object", "the simulated GPUs" },
	{ "harness", "object", "what the harness itself did and cost" },
	{ "faults", "object", "page faults per image, by process" },
	{ "policy", "object", "what the loader policy did" },
	{ "fused", "object", "the fused what-if op decode_random_resized_crop: how it decoded" },
	{ "trace", "object", "the trace" },
	{ "trace.chrome", "object.*", "what trace.json.gz (the Chrome trace, gzip'd) keeps: file, sampled, op_events_every_nth_batch (past max_events the per-sample op events of every Nth batch only; every batch event is kept), op_events, op_events_kept, max_events" },
	{ "skipped", "object", "files left out" },
	{ "skipped.files", "array", "the files left out (up to the first " XSTR(ERR_LOG_CAP) ", what the workers' shared error log holds): {path, reason}" },
	{ "noise", "object", "what else used the machine while the run measured (the noise guard)" },
	{ "noise.noisy", "bool", "others_cpu_pct or steal_pct above noise.threshold_pct: the run's timings are not this machine's alone" },
	{ "noise.threshold_pct", "number", "the share above which a run is noisy" },
	{ "options", "object.*", "every option of the run, with its value" },
	{ "dataset", "object", "what the run read: the same block as bench.json's, sweep.json's and compare.json's" },
	{ "dataset.path", "string", "the dataset's folder (--data, or the default dataset's path)" },
	{ "dataset.generated", "bool", "made by `ppbench dataset generate` (its ppbench-dataset.txt is there); false: a folder of the user's own, such as ImageNet" },
	{ "dataset.profile", "string", "the generator's profile (imagenet or photos); null when not generated" },
	{ "dataset.generator_version", "integer", "the generator version that made it; null when not generated (or not recorded)" },
	{ "dataset.seed", "integer", "the generator's seed; null when not generated" },
	{ "dataset.images", "integer", "image files found in the folder (the run may use fewer: --max-batches)" },
	{ "dataset.classes", "integer", "class folders found" },
	{ "dataset.bytes", "integer", "the image files' total size, bytes" },
	{ "machine", "object.*", "the machine: CPU, CPUs the run could use, kernel, libraries, clock" },
	{ "loader", "object.*", "the loader's configuration and memory plan" },
	{ "loader.memory", "object", "memory planned and used, beside what PyTorch 1.13 would hold for the same configuration (docs/protocol.md)" },
	{ "loader.memory.batch_buffer_bytes", "integer", "one batch buffer: the largest batch as the batch op collates it, page-rounded, bytes" },
	{ "loader.memory.batch_buffers", "integer", "batch buffers in the pool: in flight + 1 (pin memory off) or + 2 (on), in flight = min(prefetch x workers, batches of the run)" },
	{ "loader.memory.batch_buffers_peak", "integer", "most batch buffers in use at once during the run (measured)" },
	{ "loader.memory.largest_batch", "integer", "the largest batch that exists: min(--batch, images)" },
	{ "loader.memory.planned_bytes", "integer", "memory the run was planned to need: batch buffers + trace buffers + samples, bytes" },
	{ "loader.memory.planned_batch_bytes", "integer", "batch_buffers x batch_buffer_bytes" },
	{ "loader.memory.planned_trace_bytes", "integer", "trace event buffers, bytes" },
	{ "loader.memory.planned_sample_bytes", "integer", "samples the workers hold before collation (estimated from the probe sample), bytes" },
	{ "loader.memory.torch_batch_buffers", "integer", "batch buffers PyTorch 1.13's DataLoader holds at most for this configuration" },
	{ "loader.memory.torch_bytes", "integer", "what PyTorch would hold: torch_batch_buffers x batch_buffer_bytes + the workers' samples, bytes" },
	{ "loader.memory.measured_peak_rss_sum_bytes", "integer", "peak resident memory summed over the main process and the workers (getrusage; a shared page counts in every process that touched it: an upper bound), bytes; null when not read" },
	{ "loader.memory.available_bytes", "integer", "memory available when the run started (MemAvailable, or the cgroup's limit if lower), bytes" },
	{ "counters", "object.*", "--counters: the events, their status, their raw sums per op" },
	{ "pin", "object.*", "--pin: where the workers, the main process and the pin thread were bound" },
	{ "model", "object.*", "ppbench model: the cost source, the machine and its contention (a modelled run only; tool is \"model\")" },
	{ "pytorch", "object.*", "compare's PyTorch side: versions, pin memory asked and effective, its workers (summary.json of the pytorch/ folder only)" },
};
const size_t summary_key_count = sizeof(summary_keys) / sizeof(summary_keys[0]);

const struct metric *metric_find(const char *name)
{
	for (size_t i = 0; i < metric_count; i++)
		if (!strcmp(metric_table[i].name, name))
			return &metric_table[i];
	fprintf(stderr, "ppbench: internal error: no metric '%s' in the metric table\n", name);
	abort();
}

const struct op_metric *op_metric_find(const char *name)
{
	for (size_t i = 0; i < op_metric_count; i++)
		if (!strcmp(op_metric_table[i].name, name))
			return &op_metric_table[i];
	fprintf(stderr, "ppbench: internal error: no op metric '%s' in the metric table\n", name);
	abort();
}

static double field_value(const void *base, enum metric_ctype t, size_t off, double scale)
{
	const char *p = (const char *)base + off;
	double v;

	switch (t) {
	case MCT_U64:
		v = (double)*(const uint64_t *)p;
		break;
	case MCT_SIZE:
		v = (double)*(const size_t *)p;
		break;
	case MCT_INT:
		v = (double)*(const unsigned *)p;
		break;
	case MCT_LONG:
		v = (double)*(const long *)p;
		break;
	default:
		v = *(const double *)p;
		break;
	}
	return v * scale;
}

double metric_of_run(const struct metric *mt, const struct run_metrics *m)
{
	if (mt->src != MSRC_RUN)
		return NAN;
	return field_value(m, mt->ctype, mt->run_off, mt->scale);
}

double op_metric_of(const struct op_metric *mt, const struct op_metrics *om)
{
	return field_value(om, mt->ctype, mt->op_off, mt->scale);
}

json_t *json_path(json_t *o, const char *path)
{
	char key[128];

	while (o && json_is_object(o)) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		if (!dot)
			return o;
		path = dot + 1;
	}
	return NULL;
}

double metric_json_get(const json_t *o, const char *path)
{
	json_t *v = json_path((json_t *)o, path);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

double metric_from_json(const struct metric *mt, json_t *summary)
{
	return metric_json_get(summary, mt->json);
}

json_t *metric_json_value(enum metric_ctype t, double scale, double v)
{
	if (!isfinite(v))
		return json_null();
	if (t != MCT_DOUBLE && scale == 1)
		return json_integer((json_int_t)v);
	return json_real(v);
}

int metric_json_put(json_t *o, const char *path, json_t *v)
{
	char key[128];
	const char *p = path;

	if (!v)
		v = json_null();
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(key)) {
			json_decref(v);
			return -1;
		}
		memcpy(key, p, n);
		key[n] = 0;
		if (!dot)
			return json_object_set_new(o, key, v);
		json_t *c = json_object_get(o, key);
		if (!json_is_object(c)) {
			c = json_object();
			if (!c || json_object_set_new(o, key, c)) {
				json_decref(v);
				return -1;
			}
		}
		o = c;
		p = dot + 1;
	}
}

double *metric_row_field(const struct metric *mt, struct sweep_row *r)
{
	return (double *)((char *)r + mt->row_off);
}

double metric_row_get(const struct metric *mt, const struct sweep_row *r)
{
	return *(const double *)((const char *)r + mt->row_off);
}

double *op_metric_field(const struct op_metric *mt, struct sweep_op *o)
{
	return (double *)((char *)o + mt->row_off);
}

double op_metric_get(const struct op_metric *mt, const struct sweep_op *o)
{
	return *(const double *)((const char *)o + mt->row_off);
}

void metric_put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, METRIC_NUM_FMT, v);
}

/* ---- the key check ---------------------------------------------------------*/

struct problems {
	int n;
	char *err;
	size_t len;
};

static void problem(struct problems *p, const char *what, const char *path)
{
	size_t l = strlen(p->err);
	if (p->n++ < 8 && l + 1 < p->len)
		snprintf(p->err + l, p->len - l, "%s%s '%s'", l ? "; " : "", what, path);
}

static int is_metric_path(const char *path)
{
	for (size_t i = 0; i < metric_count; i++)
		if (metric_table[i].src == MSRC_RUN && !strcmp(metric_table[i].json, path))
			return 1;
	return 0;
}

/* 1: a key of summary_keys (a leaf, or an object); 2: a descriptive block */
static int known_key(const char *path)
{
	for (size_t i = 0; i < summary_key_count; i++) {
		const char *k = summary_keys[i].json;
		if (!strcmp(k, path))
			return strcmp(summary_keys[i].type, "object.*") ? 1 : 2;
	}
	return 0;
}

static void check_object(json_t *o, const char *prefix, struct problems *p)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		char path[256];
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", key);
		int known = known_key(path);
		if (known == 2)
			continue;
		if (!strcmp(path, "ops") && json_is_object(v)) {
			const char *op;
			json_t *ov;
			json_object_foreach(v, op, ov) {
				const char *k2;
				json_t *x;
				char opath[256];
				json_object_foreach(ov, k2, x) {
					int ok = !strcmp(k2, "lotus_name");
					for (size_t i = 0; !ok && i < op_metric_count; i++)
						ok = !strcmp(op_metric_table[i].json, k2);
					snprintf(opath, sizeof(opath), "ops.%s.%s", op, k2);
					if (!ok)
						problem(p, "unknown key", opath);
				}
				for (size_t i = 0; i < op_metric_count; i++)
					if (!json_object_get(ov, op_metric_table[i].json)) {
						snprintf(opath, sizeof(opath), "ops.%s.%s", op,
							 op_metric_table[i].json);
						problem(p, "missing", opath);
					}
			}
			continue;
		}
		if (json_is_object(v)) {
			if (!known && !strchr(path, '.') && !json_object_size(v))
				problem(p, "unknown key", path);
			check_object(v, path, p);
			continue;
		}
		if (!known && !is_metric_path(path))
			problem(p, "unknown key", path);
	}
}

int metrics_check_summary(json_t *summary, char *err, size_t errlen)
{
	struct problems p = { 0, err, errlen };

	if (errlen)
		err[0] = 0;
	if (!json_is_object(summary)) {
		problem(&p, "not a JSON object:", "summary.json");
		return p.n;
	}
	check_object(summary, "", &p);
	for (size_t i = 0; i < metric_count; i++) {
		const struct metric *mt = &metric_table[i];
		if (mt->src == MSRC_RUN && !json_path(summary, mt->json))
			problem(&p, "missing", mt->json);
	}
	return p.n;
}

static const char *combine_name(enum metric_combine c)
{
	return c == COMBINE_SAME ? "same" : "median";
}

/* Markdown table cells hold no '|' */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
}

void metrics_print(FILE *f, int markdown)
{
	if (!markdown) {
		fprintf(f, "%-28s %-36s %-9s %-7s %s\n", "summary.csv", "summary.json", "unit",
			"repeats", "definition");
		for (size_t i = 0; i < metric_count; i++) {
			const struct metric *m = &metric_table[i];
			char where[80];
			snprintf(where, sizeof(where), "%s%s", m->src == MSRC_SWEEP ? "sweep.json runs[]." : "",
				 m->json);
			fprintf(f, "%-28s %-36s %-9s %-7s %s\n", m->name, where, m->unit,
				combine_name(m->combine), m->def);
		}
		fprintf(f, "\nper op: summary.csv op_<op>_<name>, summary.json ops.<op>.<name>, ops.csv <name>\n");
		for (size_t i = 0; i < op_metric_count; i++) {
			const struct op_metric *m = &op_metric_table[i];
			fprintf(f, "%-28s %-36s %-9s %-7s %s\n", m->name, m->json, m->unit,
				combine_name(m->combine), m->def);
		}
		fprintf(f, "\nother keys of summary.json\n");
		for (size_t i = 0; i < summary_key_count; i++)
			fprintf(f, "%-28s %-36s %s\n", summary_keys[i].json, summary_keys[i].type,
				summary_keys[i].def);
		fprintf(f, "\nrepeats: median = the median over repeats, with min-max and a %s; same = equal in every repeat\n",
			"95 % confidence interval of the median (order statistics) from 6 repeats on");
		return;
	}
	fprintf(f, "# Metrics\n\n"
		"Generated by `ppbench metrics --markdown` from the metric table "
		"(`bench/results/metrics.c`); do not edit by hand.\n\n"
		"Every figure a run produces, where `summary.json` holds it, its column in a "
		"sweep's `summary.csv`, its unit, how the repeats of one configuration combine, "
		"and what it is. Numbers are written with 15 significant digits in every file; a "
		"figure that was not measured (a counter that is not supported, an op that was "
		"not counted) is `null` in JSON and an empty CSV field, never 0.\n\n"
		"Repeats: *median* is the median over repeats, reported with its min-max spread "
		"and, from 6 repeats on, a 95 %% distribution-free confidence interval of the "
		"median (order statistics, binomial method); *same* must be equal in every repeat.\n\n");
	fprintf(f, "## Run figures\n\n| summary.csv | summary.json | unit | repeats | definition |\n"
		"|---|---|---|---|---|\n");
	for (size_t i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];
		fprintf(f, "| `%s` | %s`%s` | %s | %s | ", m->name,
			m->src == MSRC_SWEEP ? "sweep.json `runs[]`: " : "", m->json, m->unit,
			combine_name(m->combine));
		md_cell(f, m->def);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Per-op figures\n\n`summary.json` `ops.<op>.<key>`, `summary.csv` "
		"`op_<op>_<name>`, `ops.csv` column `<name>`.\n\n"
		"| name | key | unit | repeats | definition |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < op_metric_count; i++) {
		const struct op_metric *m = &op_metric_table[i];
		fprintf(f, "| `%s` | `%s` | %s | %s | ", m->name, m->json, m->unit,
			combine_name(m->combine));
		md_cell(f, m->def);
		fputs(" |\n", f);
	}
	fprintf(f, "\n## Other keys of summary.json\n\n| key | type | what |\n|---|---|---|\n");
	for (size_t i = 0; i < summary_key_count; i++) {
		fprintf(f, "| `%s` | %s | ", summary_keys[i].json, summary_keys[i].type);
		md_cell(f, summary_keys[i].def);
		fputs(" |\n", f);
	}
}
