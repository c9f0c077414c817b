// SPDX-License-Identifier: GPL-2.0
/*
 * report: the scripts/compare report from one results directory.
 *
 *	report RESULTS_DIR REPO_ROOT
 *	report --selftest      known answers (selftest.c), TAP lines
 *
 * Reads RESULTS_DIR/env.txt (KEY=VALUE, written by scripts/compare) and, for
 * every boot RESULTS_DIR/rROUND-VARIANT/results/: bench.jsonl (bench_io),
 * probe.jsonl (bench_probe), fio.jsonl and fio-NAME-NDELAY.json, cdf-*.txt,
 * stable_cost.jsonl (bench_stable_cost), pgbench.jsonl (pg_bench);
 * for each kernel RESULTS_DIR/powercut-VARIANT/results/powercut_*.tap.
 * Reads the series patches under REPO_ROOT/series-NAME/ for the cost section.
 * Writes RESULTS_DIR/report.txt (80 columns), RESULTS_DIR/results.json and
 * gnuplot scripts and data under RESULTS_DIR/plots/.
 *
 * Every figure is the median over the rounds, with min and max.
 *
 * Exit status: 0; 3 when some input could not be read (each said on
 * stderr, listed in report.txt and results.json, the rest reported); 1 on
 * a fatal error (no env.txt, cannot write); 2 on a usage error.
 *
 * The units, by job (make -C compare; see the Makefile):
 *   read_*.c      one reader per source, into the tables of results.h
 *   json_in.c     JSON lines and fields through libjansson
 *   bad_inputs.c  inputs that could not be read
 *   aggregate.c   medians over the rounds, latencies, ratios to DIO and
 *                 of bench_stable_cost's modes to their baselines
 *   section_*.c   one unit per section of report.txt
 *   write_json.c  results.json through libjansson
 *   write_plots.c gnuplot scripts and data
 */
#include "aggregate.h"
#include "bad_inputs.h"
#include "json_out.h"
#include "plots.h"
#include "readers.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[1200];
	FILE *out;

	if (argc == 2 && !strcmp(argv[1], "--selftest"))
		return selftest();
	if (argc != 3) {
		fprintf(stderr, "usage: report RESULTS_DIR REPO_ROOT\n");
		return 2;
	}
	resdir = argv[1];
	root = argv[2];
	read_env();
	read_runs();
	collect_latencies();
	read_powercut();
	read_randops();
	read_series("base");
	read_series("writethrough");
	read_series("pgatomic");

	snprintf(path, sizeof(path), "%s/report.txt", resdir);
	out = fopen(path, "w");
	if (!out)
		die("cannot write in %s", resdir);
	json_out_begin();
	section_env(out);
	section_inputs(out);
	if (nsamples || nprobes) {
		section_matrix(out);
		section_perf(out);
		section_device(out);
		section_curves(out);
		section_stable_cost(out);
		section_pgbench(out);
		section_targets(out);
		section_profile(out);
		section_objections(out);
		section_fio(out);
	} else {
		fprintf(out, "\n(no benchmark rounds in this run: --rounds 0)\n");
	}
	section_powercut(out);
	if (!(nsamples || nprobes))
		section_objections_powercut(out);
	section_randops(out);
	section_cost(out);
	json_out_workloads();
	if (fclose(out))
		die("%s: cannot write it", path);
	snprintf(path, sizeof(path), "%s/results.json", resdir);
	json_out_write(path);
	write_plots();
	if (nbad_inputs()) {
		fprintf(stderr, "report: %d input(s) could not be read: listed in %s/report.txt\n",
			nbad_inputs(), resdir);
		return 3;
	}
	return 0;
}
