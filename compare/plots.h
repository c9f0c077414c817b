/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plots.h: the gnuplot scripts and data of a report (write_plots.c).
 */
#ifndef ATW_REPORT_PLOTS_H
#define ATW_REPORT_PLOTS_H

/* RESDIR/plots/{cdf-NDELAY.gp,qd.dat,qd.gp}; nothing without samples. */
void write_plots(void);

#endif
