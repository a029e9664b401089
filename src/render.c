/* The one table of renderers: every format is fed the same rows. */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "render.h"

static const struct renderer renderers[] = {
	[FORMAT_TABLE] = { render_gpus_table, render_processes_table, render_fit_table, render_run_report_text },
	[FORMAT_JSON] = { render_gpus_json, render_processes_json, render_fit_json, render_run_report_json },
	/* hmn run's report and hmn fit's are a table or JSON alone: cli.c refuses the other formats for them. */
	[FORMAT_CSV] = { render_gpus_csv, render_processes_csv, NULL, NULL },
	[FORMAT_PROMETHEUS] = { render_gpus_prometheus, render_processes_prometheus, NULL, NULL },
};

const struct renderer *renderer_for(enum output_format format)
{
	return &renderers[format];
}

char *text_shown(const char *s)
{
	size_t n = strlen(s) + 1;
	char *shown = malloc(n);
	/* Same length: each byte of a control character or of invalid UTF-8 becomes one '?'. */
	if (shown)
		sanitize_for_terminal(s, shown, n);
	return shown;
}
