/*
 * The controller's state: the scenario, its tasks as made here, the
 * machine's limits, what was set up and what is known so far. Here alone,
 * so that every file of the runtime may read it and this one reads none.
 */
#include "npg_kst.h"

const struct kst_scenario *kst_sc;
struct ktask *kst_tasks;
const struct kst_era *kst_kernel_era;
uint32_t kst_uid_base = DEFAULT_UID_BASE;
uint64_t kst_host_bnd, kst_host_nproc_hard;
uint64_t kst_bset;
bool kst_subreaper;
bool kst_window_ours;
int kst_exe_fd = -1, kst_filler_pipe[2] = { -1, -1 };
char kst_execdir[256];
char kst_nosuid_dir[300];
char (*kst_file_why)[240];
bool *kst_touched;
long *kst_counts;
bool kst_counts_valid;
char kst_diverged[400];
int kst_cur_line;
pid_t *kst_fillers;
long kst_nfillers;
int kst_npass, kst_nfail, kst_nskip;
volatile sig_atomic_t kst_stop_sig;
bool kst_tearing_down;
