/*
 * lib/gpu: the GPU queries of hmn.h — the context (opened once, reused:
 * NVML initialised once per context), the one array of sources, the rows
 * they give, the processes a context remembers. Each source is a folder of
 * its own (nvml/, nvidia-smi/, drm/, dxgi-pdh/, metal/): its reader, its
 * parser, its header. gpu/ uses lib/util and lib/os; it knows nothing of
 * hmn run (a filter that asks about a tree takes a predicate) nor of
 * models. struct hmn_context is private to it (gpu/context.h).
 *
 * This header is what the rest of libhmn may ask of a context: to log, and
 * to record why a call failed.
 */
#ifndef HMN_GPU_H
#define HMN_GPU_H

#include <stdarg.h>

#include "hmn.h"
#include "util/util.h"

/* The longest explanation a context keeps (hmn_context_error). */
#define HMN_ERROR_MAX 512

void hmn_log(const hmn_context *ctx, enum hmn_log_level level, const char *fmt, ...) HMN_PRINTF(3, 4);
/* Records the explanation hmn_context_error() returns; returns r. */
int hmn_fail(hmn_context *ctx, int r, const char *fmt, ...) HMN_PRINTF(3, 4);

#endif
