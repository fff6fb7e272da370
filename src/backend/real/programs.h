/* The scenario's declared programs made on this machine (programs.c), at the run's start */
#ifndef NPG_REAL_PROGRAMS_H
#define NPG_REAL_PROGRAMS_H

#include "backend/real/real_priv.h"

/*
 * Every declared file not declared missing, in the run's directory; one
 * this machine cannot hold gets its reason in r->file_why. 0, or -1 with
 * b->error.
 */
int npg_real_make_files(struct npg_backend *b, struct real_priv *r);

#endif
