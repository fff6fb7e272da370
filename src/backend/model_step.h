/*
 * The model backend's step, on a world the caller owns: the explorer
 * (src/explore/) keeps its own worlds, decoded from compact states, and
 * runs every step through the same dispatch as `run`, so each kernel rule
 * still has one implementation.
 */
#ifndef NPG_BACKEND_MODEL_STEP_H
#define NPG_BACKEND_MODEL_STEP_H

#include "backend/backend.h"

/* Run step @st on @w: dead tasks yield NPG_R_DEAD, as in `run`. */
struct npg_result npg_model_step(struct npg_world *w, const struct npg_stmt *st);
/* The world of a started model backend (NULL before start). */
struct npg_world *npg_model_world(struct npg_backend *b);

#endif
