/*
 * Parsing nvidia-smi's CSV (--format=csv,noheader,nounits; units and a
 * header are tolerated so recorded output parses too). Pure functions over
 * a buffer and its length: unit tests and a fuzzer reach them directly.
 *
 * Cells like [N/A], [Not Supported] or [Insufficient Permissions] mean
 * "unknown" and become HMN_UNKNOWN or "", never a number or a name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvidia-smi/nvidia-smi.h"
#include "gpu/pci.h"
#include "hmn.h"
#include "util/arena.h"
#include "util/number.h"
#include "util/text.h"

struct span {
	const char *p;
	size_t n;
};

static struct span trim(const char *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return (struct span){ p, n };
}

bool smi_cell_unknown(const char *p, size_t n)
{
	struct span s = trim(p, n);
	return s.n == 0 || (s.p[0] == '[' && s.p[s.n - 1] == ']') ||
	       (s.n == 3 && memcmp(s.p, "N/A", 3) == 0);
}

/* A decimal number, optionally followed by " MiB"; HMN_UNKNOWN if anything else. */
uint64_t smi_parse_mib(const char *p, size_t n)
{
	struct span s = trim(p, n);
	const char *q = s.p, *end = s.p + s.n;
	uint64_t v;

	/* No number, or one past what bytes can hold. */
	if (smi_cell_unknown(s.p, s.n) || !parse_decimal(&q, end, UINT64_MAX / (1024 * 1024), &v))
		return HMN_UNKNOWN;
	struct span unit = trim(q, (size_t)(end - q));
	if (unit.n != 0 && !(unit.n == 3 && memcmp(unit.p, "MiB", 3) == 0))
		return HMN_UNKNOWN;
	return v * 1024 * 1024;
}

uint32_t smi_parse_integer(const char *p, size_t n)
{
	struct span s = trim(p, n);
	const char *q = s.p, *end = s.p + s.n;
	uint64_t v;

	if (smi_cell_unknown(s.p, s.n) || !parse_decimal(&q, end, HMN_VALUE_UNKNOWN - 1, &v))
		return HMN_VALUE_UNKNOWN;
	struct span unit = trim(q, (size_t)(end - q));
	/* "37 %", "41 C": a unit word, nothing numeric after the number. */
	for (size_t k = 0; k < unit.n; k++)
		if ((unit.p[k] >= '0' && unit.p[k] <= '9') || unit.p[k] == '.')
			return HMN_VALUE_UNKNOWN;
	return (uint32_t)v;
}

uint32_t smi_parse_watts(const char *p, size_t n)
{
	struct span s = trim(p, n);
	const char *q = s.p;
	uint64_t whole, milli = 0;

	/* 4 MW at most: no GPU draws more, and the milliwatts stay below 2^32. */
	if (smi_cell_unknown(s.p, s.n) || !parse_decimal(&q, s.p + s.n, 4000000, &whole))
		return HMN_VALUE_UNKNOWN;
	size_t i = (size_t)(q - s.p);
	if (i < s.n && s.p[i] == '.') {
		unsigned scale = 100;
		for (i++; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++, scale /= 10)
			milli += scale * (unsigned)(s.p[i] - '0');
	}
	struct span unit = trim(s.p + i, s.n - i);
	if (unit.n != 0 && !(unit.n == 1 && unit.p[0] == 'W'))
		return HMN_VALUE_UNKNOWN;
	return (uint32_t)(whole * 1000 + milli);
}

static void copy_cell(char *out, size_t size, struct span s)
{
	/* A NUL byte ends the text: what follows could not be printed anyway. */
	const char *nul = memchr(s.p, '\0', s.n);
	if (nul)
		s = trim(s.p, (size_t)(nul - s.p));
	if (smi_cell_unknown(s.p, s.n))
		s.n = 0;
	if (s.n >= size)
		s.n = size - 1;
	memcpy(out, s.p, s.n);
	out[s.n] = '\0';
}

/* Splits a line at commas into at most max cells; returns the count. */
static size_t split(const char *p, size_t n, struct span *cells, size_t max)
{
	size_t count = 0;
	const char *end = p + n;

	while (count < max) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		cells[count++] = trim(p, (size_t)(stop - p));
		if (!comma)
			return count;
		p = comma + 1;
	}
	return count + 1; /* more cells than asked for */
}

/* Calls fn for each line of text that is neither empty nor a # comment. */
static int for_each_line(const char *text, size_t len,
			 int (*fn)(const char *line, size_t n, void *data), void *data)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		struct span line = trim(p, (size_t)(stop - p));
		if (line.n > 0 && line.p[0] != '#') {
			int r = fn(line.p, line.n, data);
			if (r < 0)
				return r;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* A cell that is a number below 2^32 and nothing else. */
static bool cell_u32(struct span s, uint32_t *ret)
{
	const char *q = s.p;
	uint64_t v;
	if (s.n > 10 || !parse_decimal(&q, s.p + s.n, UINT32_MAX, &v) || q != s.p + s.n)
		return false;
	*ret = (uint32_t)v;
	return true;
}

#define MAX_FIELDS 16

struct parse {
	const enum smi_field *fields;
	size_t n_fields;
	void *rows;
	size_t count, capacity, skipped, row_size;
};

static void *next_row(struct parse *p)
{
	if (array_reserve(&p->rows, &p->capacity, p->count, p->row_size) < 0)
		return NULL;
	return (char *)p->rows + p->count++ * p->row_size;
}

static uint32_t percent(struct span c)
{
	uint32_t v = smi_parse_integer(c.p, c.n);
	return v <= 100 ? v : HMN_VALUE_UNKNOWN;
}

/* nvidia-smi's "[N/A]": a value the GPU does not have, not one it failed to give. */
static bool is_na(struct span c)
{
	return (c.n == 5 && memcmp(c.p, "[N/A]", 5) == 0) || (c.n == 3 && memcmp(c.p, "N/A", 3) == 0);
}

static void copy_version(char *out, size_t size, struct span c)
{
	/* Driver 610 may add " [Deprecated; ...]" to the version. */
	const char *bracket = memchr(c.p, '[', c.n);
	if (bracket && bracket > c.p)
		c = trim(c.p, (size_t)(bracket - c.p));
	copy_cell(out, size, c);
}

static int parse_gpu_line(const char *line, size_t n, void *data)
{
	struct parse *g = data;
	struct span cells[MAX_FIELDS];
	struct smi_gpu_row row = {
		.total = HMN_UNKNOWN, .used = HMN_UNKNOWN, .free = HMN_UNKNOWN, .reserved = HMN_UNKNOWN,
		.utilization = HMN_VALUE_UNKNOWN, .memory_utilization = HMN_VALUE_UNKNOWN,
		.temperature = HMN_VALUE_UNKNOWN, .power_mw = HMN_VALUE_UNKNOWN,
		.power_limit_mw = HMN_VALUE_UNKNOWN,
	};
	bool have_index = false;
	unsigned not_available = 0;

	if (split(line, n, cells, g->n_fields) != g->n_fields) {
		g->skipped++;
		return 0;
	}
	for (size_t i = 0; i < g->n_fields; i++) {
		struct span c = cells[i];
		switch (g->fields[i]) {
		case SMI_INDEX: have_index = cell_u32(c, &row.index); break;
		case SMI_UUID: copy_cell(row.uuid, sizeof(row.uuid), c); break;
		case SMI_NAME: copy_cell(row.name, sizeof(row.name), c); break;
		case SMI_PCI_BUS_ID: {
			char raw[sizeof(row.pci_bus_id)];
			copy_cell(raw, sizeof(raw), c);
			if (raw[0])
				normalize_pci_bus_id(raw, row.pci_bus_id, sizeof(row.pci_bus_id));
			break;
		}
		case SMI_MEMORY_TOTAL: row.total = smi_parse_mib(c.p, c.n); not_available += is_na(c); break;
		case SMI_MEMORY_USED: row.used = smi_parse_mib(c.p, c.n); not_available += is_na(c); break;
		case SMI_MEMORY_FREE: row.free = smi_parse_mib(c.p, c.n); not_available += is_na(c); break;
		case SMI_MEMORY_RESERVED: row.reserved = smi_parse_mib(c.p, c.n); break;
		case SMI_DRIVER_VERSION: copy_version(row.driver_version, sizeof(row.driver_version), c); break;
		case SMI_UTILIZATION_GPU: row.utilization = percent(c); break;
		case SMI_UTILIZATION_MEMORY: row.memory_utilization = percent(c); break;
		case SMI_TEMPERATURE: row.temperature = smi_parse_integer(c.p, c.n); break;
		case SMI_POWER_DRAW: row.power_mw = smi_parse_watts(c.p, c.n); break;
		case SMI_POWER_LIMIT: row.power_limit_mw = smi_parse_watts(c.p, c.n); break;
		case SMI_COMPUTE_CAP: copy_cell(row.compute_cap, sizeof(row.compute_cap), c); break;
		default: break;
		}
	}
	/*
	 * [N/A] for all three: a GPU without memory of its own (GB10, Jetson),
	 * which the source measures by the system's. Any other unknown (a
	 * header, a lost GPU's [Unknown Error]) is a row we cannot show.
	 */
	row.memory_not_available = not_available == 3;
	bool has_memory = row.total != HMN_UNKNOWN && row.used != HMN_UNKNOWN && row.free != HMN_UNKNOWN;
	if (!have_index || !(has_memory || row.memory_not_available)) {
		g->skipped++;
		return 0;
	}
	struct smi_gpu_row *out = next_row(g);
	if (!out)
		return -ENOMEM;
	*out = row;
	return 0;
}

/*
 * A process name may hold commas and spaces (Windows paths), so the cells
 * before the name column are split from the left, those after it from the
 * right, and the name is everything between.
 */
static bool process_row(const struct parse *pp, const char *line, size_t n,
			struct smi_process_row *ret)
{
	struct span cells[MAX_FIELDS];
	struct smi_process_row row = { .used = HMN_UNKNOWN };
	const char *p = line, *end = line + n;
	size_t name_at = pp->n_fields;
	bool have_pid = false;

	for (size_t i = 0; i < pp->n_fields; i++)
		if (pp->fields[i] == SMI_PROCESS_NAME)
			name_at = i;
	for (size_t i = 0; i < name_at && i < pp->n_fields; i++) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		if (!comma && i + 1 < pp->n_fields)
			return false;
		const char *stop = comma ? comma : end;
		cells[i] = trim(p, (size_t)(stop - p));
		p = comma ? comma + 1 : end;
	}
	for (size_t i = pp->n_fields; i-- > name_at + 1;) {
		const char *comma = NULL;
		for (const char *q = end; q > p; q--)
			if (q[-1] == ',') {
				comma = q - 1;
				break;
			}
		if (!comma)
			return false;
		cells[i] = trim(comma + 1, (size_t)(end - comma - 1));
		end = comma;
	}
	if (name_at < pp->n_fields)
		cells[name_at] = trim(p, (size_t)(end - p));

	for (size_t i = 0; i < pp->n_fields; i++) {
		struct span c = cells[i];
		switch (pp->fields[i]) {
		case SMI_PID: have_pid = cell_u32(c, &row.pid); break;
		case SMI_USED_MEMORY: row.used = smi_parse_mib(c.p, c.n); break;
		case SMI_GPU_UUID: copy_cell(row.gpu_uuid, sizeof(row.gpu_uuid), c); break;
		case SMI_PROCESS_NAME: copy_cell(row.name, sizeof(row.name), c); break;
		default: break;
		}
	}
	if (!have_pid)
		return false;
	*ret = row;
	return true;
}

static size_t count_commas(const char *p, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += p[i] == ',';
	return count;
}

/* Appends a line to a name that nvidia-smi printed with a raw newline in it. */
static void continue_name(char *name, size_t size, const char *line, size_t n)
{
	size_t len = strlen(name);
	if (len + 1 < size)
		name[len++] = '\n';
	if (n > size - 1 - len)
		n = size - 1 - len;
	memcpy(name + len, line, n);
	name[len + n] = '\0';
}

/*
 * nvidia-smi writes process names raw: one holding a newline spans two
 * lines or more. A line that is no row is joined with the next when the two
 * make one; where the name is the last column, a line that is no row after
 * a row continues its name.
 */
struct process_lines {
	struct parse *pp;
	bool name_last;
	bool after_row;       /* the line before was a row (or continued one) */
	struct span pending;  /* a line that was no row, waiting for the next */
};

static int add_process(struct parse *pp, const struct smi_process_row *row)
{
	struct smi_process_row *out = next_row(pp);
	if (!out)
		return -ENOMEM;
	*out = *row;
	return 0;
}

static int parse_process_line(const char *line, size_t n, void *data)
{
	struct process_lines *l = data;
	struct smi_process_row row;

	if (l->pending.p) {
		/* The two lines lie one after the other in the text: one span holds both. */
		struct span joined = { l->pending.p, (size_t)(line + n - l->pending.p) };
		l->pending.p = NULL;
		if (process_row(l->pp, joined.p, joined.n, &row)) {
			l->after_row = true;
			return add_process(l->pp, &row);
		}
		l->pp->skipped++;
	}
	if (process_row(l->pp, line, n, &row)) {
		l->after_row = true;
		return add_process(l->pp, &row);
	}
	/* A continuation has too few commas to be a row; a bad row stays a bad row. */
	if (l->name_last && l->after_row && count_commas(line, n) + 1 < l->pp->n_fields) {
		struct smi_process_row *last = (struct smi_process_row *)l->pp->rows + l->pp->count - 1;
		continue_name(last->name, sizeof(last->name), line, n);
		return 0;
	}
	l->after_row = false;
	l->pending = (struct span){ line, n };
	return 0;
}

/* Calls line_fn(line, data) for each line into p's rows; the rows are malloc'd. */
static int parse(const char *text, size_t len, struct parse *p,
		 int (*line_fn)(const char *, size_t, void *), void *data,
		 void **ret_rows, size_t *ret_count, size_t *ret_skipped)
{
	if (p->n_fields == 0 || p->n_fields > MAX_FIELDS)
		return -EINVAL;
	int r = for_each_line(text, len, line_fn, data);
	if (r < 0) {
		free(p->rows);
		return r;
	}
	*ret_rows = p->rows;
	*ret_count = p->count;
	if (ret_skipped)
		*ret_skipped = p->skipped;
	return 0;
}

int smi_parse_gpus(const char *text, size_t len, const enum smi_field *fields, size_t n_fields,
		   struct smi_gpu_row **ret_rows, size_t *ret_count, size_t *ret_skipped)
{
	struct parse p = { .fields = fields, .n_fields = n_fields, .row_size = sizeof(**ret_rows) };
	return parse(text, len, &p, parse_gpu_line, &p, (void **)ret_rows, ret_count, ret_skipped);
}

int smi_parse_processes(const char *text, size_t len, const enum smi_field *fields,
			size_t n_fields, struct smi_process_row **ret_rows, size_t *ret_count,
			size_t *ret_skipped)
{
	struct parse p = { .fields = fields, .n_fields = n_fields, .row_size = sizeof(**ret_rows) };
	struct process_lines l = {
		.pp = &p, .name_last = n_fields > 0 && fields[n_fields - 1] == SMI_PROCESS_NAME,
	};
	int r = parse(text, len, &p, parse_process_line, &l, (void **)ret_rows, ret_count, ret_skipped);
	/* A last line that was no row, and no next line to make one with. */
	if (r == 0 && ret_skipped && l.pending.p)
		(*ret_skipped)++;
	return r;
}
