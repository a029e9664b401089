/* The one table of renderers: every format is fed the same rows. */
#include <stddef.h>

#include "render.h"

static const struct renderer renderers[] = {
	[FORMAT_TABLE] = { render_gpus_table, render_processes_table },
	[FORMAT_JSON] = { render_gpus_json, render_processes_json },
	[FORMAT_CSV] = { render_gpus_csv, render_processes_csv },
	[FORMAT_PROMETHEUS] = { render_gpus_prometheus, render_processes_prometheus },
};

const struct renderer *renderer_for(enum output_format format)
{
	return &renderers[format];
}
