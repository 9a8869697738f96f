#!/bin/sh
# Turns the Lotus reference tables (verbatim copies in this folder) into the
# data files that plots/*.gp draw, so that the paper's figures and this
# machine's are drawn by the same scripts: paper_*.csv. Run from anywhere;
# the output is committed (ppbench report reads it, it does not run this).
set -eu
cd "$(dirname "$0")"

# col NAME FILE: awk program prefix that maps header names to $-indexes
hdr='!/^#/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } h'

# Fig. 6 worker sweep: b1024, 4 GPUs, workers 8..28
{
	echo "# from lotus_ic_worker_sweep.csv (Lotus IISWC 2024, Fig. 6): b1024, 4 GPUs"
	echo "series,series_label,workers,batch,gpus,runs,e2e_s,ops_span_s,ooo_pct,stall_pct,wait_gt_500ms_pct,delay_gt_500ms_pct,preproc_avg_ms,preproc_std_pct"
	awk -F, "$hdr"' { printf "1,paper: b1024 / 4 GPUs,%s,1024,4,1,%s,%s,%s,%s,%s,%s,%s,%s\n", $c["workers"], $c["e2e_s"], $c["cpu_s"], $c["ooo_pct"], $c["stall_pct"], $c["wait_gt_500ms_pct"], $c["delay_gt_500ms_pct"], $c["preproc_avg_ms"], $c["preproc_std_pct"] }' lotus_ic_worker_sweep.csv
} >paper_worker_sweep.csv

# Fig. 6(b): per-op "CPU seconds" (sums of LotusTrace op spans) at each
# worker count, stacked in the order of the pipeline
{
	echo "# from lotus_ic_cpu_s_per_op_vs_workers.csv (Lotus IISWC 2024, Fig. 6b): sum of each op's spans"
	echo "series,series_label,workers,span_s,cum_span_s"
	awk -F, "$hdr"' {
		n = split("Loader RandomResizedCrop RandomHorizontalFlip ToTensor Normalize Collation", op, " ")
		cum = 0
		for (i = 1; i <= n; i++) {
			cum += $c[op[i]]
			line[i, ++m[i]] = sprintf("%d,%s,%s,%s,%s", i, op[i], $c["workers"], $c[op[i]], cum)
		}
	}
	END { for (i = 1; i <= 6; i++) for (j = 1; j <= m[i]; j++) print line[i, j] }' lotus_ic_cpu_s_per_op_vs_workers.csv
} >paper_cpu_by_op.csv

# Figs. 4-5 grid: batch x GPUs with workers = GPUs; against workers, one
# series per batch size; against batch size, one series per worker count
grid() { # $1: series column, $2: label format, $3: x column
	awk -F, -v s="$1" -v fmt="$2" -v x="$3" "$hdr"' {
		key = $c[s]
		if (!(key in id)) { id[key] = ++n; lab[n] = sprintf(fmt, key, key) }
		row[id[key], ++m[id[key]]] = sprintf("%s,%s,%s,1,%s,,%s,%s,%s,%s,%s,%s", $c["workers"], $c["batch"], $c["gpus"], $c["e2e_s"], $c["ooo_pct"], $c["stall_pct"], $c["wait_gt_500ms_pct"], $c["delay_gt_500ms_pct"], $c["preproc_avg_ms"], $c["preproc_std_pct"])
		xv[id[key], m[id[key]]] = $c[x] + 0
	}
	END {
		for (k = 1; k <= n; k++) {
			# rows of a series in x order (insertion sort: a handful of rows)
			for (i = 1; i <= m[k]; i++) ord[i] = i
			for (i = 2; i <= m[k]; i++)
				for (j = i; j > 1 && xv[k, ord[j - 1]] > xv[k, ord[j]]; j--) {
					t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t
				}
			for (i = 1; i <= m[k]; i++) printf "%d,%s,%s\n", k, lab[k], row[k, ord[i]]
		}
	}' lotus_ic_batch_gpu_sweep.csv
}
cols="series,series_label,workers,batch,gpus,runs,e2e_s,ops_span_s,ooo_pct,stall_pct,wait_gt_500ms_pct,delay_gt_500ms_pct,preproc_avg_ms,preproc_std_pct"
{
	echo "# from lotus_ic_batch_gpu_sweep.csv (Lotus IISWC 2024, Figs. 4-5): workers = GPUs, one series per batch size"
	echo "$cols"
	grid batch "paper: b%s / workers = GPUs" workers
} >paper_grid_vs_workers.csv
{
	echo "# from lotus_ic_batch_gpu_sweep.csv (Lotus IISWC 2024, Figs. 4-5): one series per worker (= GPU) count"
	echo "$cols"
	grid workers "paper: workers = GPUs = %s" batch
} >paper_grid_vs_batch.csv
