/*
 * CSV (RFC 4180's quoting): a header naming the JSON keys (top-level only:
 * the nested mig object is left out), one record per row, null as an empty
 * cell. Lines end in LF, not RFC 4180's CRLF: as nvidia-smi's CSV and every
 * Unix tool's, so that `awk -F, '{print $NF}'` or `cut` never sees a "\r" in
 * the last cell (Python's csv module and pandas read either). Text shows
 * each control character and each byte of invalid UTF-8 as '?', as the
 * table does (JSON escapes them instead); a cell holding a comma, a quote,
 * CR or LF is quoted, quotes doubled.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "outbuf.h"
#include "render.h"

/* Is s printable ASCII with nothing to quote? Then it goes out as it is. */
static bool plain_ascii(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == ',' || *p == '"')
			return false;
	return true;
}

static int put_text(struct outbuf *o, const char *s)
{
	if (!s)
		return 0;
	if (plain_ascii(s)) {
		outbuf_puts(o, s);
		return 0;
	}
	char *shown = text_shown(s);
	if (!shown)
		return -ENOMEM;
	/* CR and LF are shown as '?' already; quoted all the same, should that ever change. */
	if (!strpbrk(shown, ",\"\r\n")) {
		outbuf_puts(o, shown);
	} else {
		outbuf_put(o, "\"", 1);
		for (const char *p = shown; *p; p++) {
			if (*p == '"')
				outbuf_put(o, "\"", 1);
			outbuf_put(o, p, 1);
		}
		outbuf_put(o, "\"", 1);
	}
	free(shown);
	return 0;
}

/*
 * A process's command (an array in JSON) as one cell: the line a shell
 * would take back (command_text), shown as text is; nothing for NULL.
 */
static int put_command_cell(struct outbuf *o, const char *const *argv)
{
	if (!argv)
		return 0;
	char *line = command_text(argv, strv_count(argv));
	int r = line ? put_text(o, line) : -ENOMEM;
	free(line);
	return r;
}

static void put_number(struct outbuf *o, uint64_t value, uint64_t unknown)
{
	if (value != unknown)
		outbuf_put_u64(o, value);
}

static void put_bool(struct outbuf *o, bool value)
{
	outbuf_puts(o, value ? "true" : "false");
}

#define SEP(o) outbuf_put(o, ",", 1)
#define END(o) outbuf_put(o, "\n", 1)

static int write_gpu(struct outbuf *o, const struct hmn_gpu *g)
{
	int r = 0;
	outbuf_put_u64(o, g->place.index);
	SEP(o), r |= put_text(o, g->name);
	SEP(o), r |= put_text(o, g->uuid);
	SEP(o), r |= put_text(o, g->vendor);
	SEP(o), r |= put_text(o, g->pci_bus_id);
	SEP(o), put_number(o, g->total_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, g->free_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, g->used_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, g->reserved_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, g->shared_total_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, g->shared_used_bytes, HMN_UNKNOWN);
	SEP(o), r |= put_text(o, g->driver_version);
	SEP(o), r |= put_text(o, g->source);
	SEP(o), put_bool(o, g->unified_memory);
	SEP(o), put_number(o, g->utilization_percent, HMN_VALUE_UNKNOWN);
	SEP(o), put_number(o, g->memory_utilization_percent, HMN_VALUE_UNKNOWN);
	SEP(o), put_number(o, g->temperature_celsius, HMN_VALUE_UNKNOWN);
	SEP(o), put_number(o, g->power_milliwatts, HMN_VALUE_UNKNOWN);
	SEP(o), put_number(o, g->power_limit_milliwatts, HMN_VALUE_UNKNOWN);
	SEP(o), r |= put_text(o, g->compute_capability);
	END(o);
	return r;
}

static int write_process(struct outbuf *o, const struct hmn_process *p)
{
	int r = 0;
	outbuf_put_u64(o, p->pid);
	SEP(o), r |= put_text(o, p->name);
	SEP(o), put_number(o, p->used_bytes, HMN_UNKNOWN);
	SEP(o), put_number(o, p->shared_used_bytes, HMN_UNKNOWN);
	SEP(o), outbuf_put_u64(o, p->place.index);
	SEP(o), r |= put_text(o, p->device_name);
	SEP(o), r |= put_text(o, p->device_uuid);
	SEP(o), r |= put_text(o, process_type_name(p->type, false));
	SEP(o), r |= put_text(o, p->user);
	SEP(o), put_number(o, p->uid, HMN_UID_UNKNOWN);
	SEP(o), r |= put_text(o, p->path);
	SEP(o), put_bool(o, p->is_protected);
	SEP(o), r |= put_text(o, p->source);
	SEP(o), put_number(o, p->ns_pid, 0);
	SEP(o), r |= put_text(o, p->container);
	SEP(o), put_bool(o, p->is_mps_client);
	SEP(o), put_number(o, p->ram_bytes, HMN_UNKNOWN);
	SEP(o), r |= put_text(o, p->pod_uid);
	SEP(o), r |= put_command_cell(o, p->command);
	END(o);
	return r;
}

/* The header, then one record a row through write_row; each with a time cell first for a log. */
static int write_csv(FILE *out, const struct render_options *options, const char *header,
		     const void *const *rows, size_t n, int (*write_row)(struct outbuf *, const void *))
{
	struct outbuf *o = outbuf_new(out);
	int r = 0;
	if (!o)
		return -ENOMEM;
	if (!options->no_header) {
		if (options->time)
			OUTBUF_LITERAL(o, "time,");
		outbuf_puts(o, header);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (options->time && (r = put_text(o, options->time)) == 0)
			SEP(o);
		if (r == 0)
			r = write_row(o, rows[i]);
	}
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

static int write_gpu_row(struct outbuf *o, const void *row)
{
	return write_gpu(o, row);
}

static int write_process_row(struct outbuf *o, const void *row)
{
	return write_process(o, row);
}

int render_gpus_csv(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		    const struct render_options *options)
{
	return write_csv(out, options,
			 "index,name,uuid,vendor,pci_bus_id,total_bytes,free_bytes,used_bytes,"
			 "reserved_bytes,shared_total_bytes,shared_used_bytes,driver_version,source,"
			 "unified_memory,utilization_percent,memory_utilization_percent,"
			 "temperature_celsius,power_milliwatts,power_limit_milliwatts,compute_capability\n",
			 (const void *const *)gpus, n, write_gpu_row);
}

int render_processes_csv(FILE *out, const struct hmn_process *const *rows, size_t n,
			 const struct render_options *options)
{
	return write_csv(out, options,
			 "pid,name,used_bytes,shared_used_bytes,device_index,device_name,device_uuid,"
			 "type,user,uid,path,protected,source,ns_pid,container,mps,ram_bytes,pod_uid,command\n",
			 (const void *const *)rows, n, write_process_row);
}
