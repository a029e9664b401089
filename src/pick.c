/* --pick N: the holds file's text and the choice among the rows (pick.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "util/number.h"

/* A key is one word of printable ASCII: it goes in the file between blanks. */
static bool is_key(const char *s, size_t len)
{
	if (len == 0 || len >= PICK_KEY_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* The next blank-separated word of [*p, end) on this line; false at the line's end. */
static bool next_word(const char **p, const char *end, const char **ret_word, size_t *ret_len)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	const char *word = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	*ret_word = word;
	*ret_len = (size_t)(s - word);
	return s > word;
}

static bool parse_line(const char *s, const char *end, uint64_t now_ms, struct pick_hold *ret)
{
	const char *key, *pid_text, *expires_text, *extra;
	size_t key_len, pid_len, expires_len, extra_len;
	uint64_t pid, expires;

	if (!next_word(&s, end, &key, &key_len) || !next_word(&s, end, &pid_text, &pid_len) ||
	    !next_word(&s, end, &expires_text, &expires_len) || next_word(&s, end, &extra, &extra_len))
		return false;
	const char *p = pid_text, *q = expires_text;
	if (!is_key(key, key_len) || !parse_decimal(&p, pid_text + pid_len, UINT32_MAX, &pid) ||
	    p != pid_text + pid_len || pid == 0 ||
	    !parse_decimal(&q, expires_text + expires_len, UINT64_MAX, &expires) || q != expires_text + expires_len)
		return false;
	/* Expired, or claiming to outlast any hold hmn gives: not believed. */
	if (expires <= now_ms || expires - now_ms > PICK_HOLD_MAX_US / 1000)
		return false;
	memcpy(ret->key, key, key_len);
	ret->key[key_len] = '\0';
	ret->pid = (uint32_t)pid;
	ret->expires_ms = expires;
	return true;
}

void pick_holds_parse(const char *text, size_t len, uint64_t now_ms, struct pick_holds *ret)
{
	const char *s = text, *end = text + len;

	ret->n = 0;
	while (s < end && ret->n < PICK_HOLDS_MAX) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *line_end = nl ? nl : end;
		if (parse_line(s, line_end, now_ms, &ret->items[ret->n]))
			ret->n++;
		s = nl ? nl + 1 : end;
	}
}

size_t pick_holds_format(const struct pick_holds *holds, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	for (size_t i = 0; i < holds->n; i++) {
		int n = snprintf(buf + len, size - len, "%s %" PRIu32 " %" PRIu64 "\n", holds->items[i].key,
				 holds->items[i].pid, holds->items[i].expires_ms);
		if (n < 0 || (size_t)n >= size - len) {
			buf[0] = '\0';
			return 0;
		}
		len += (size_t)n;
	}
	return len;
}

bool pick_holds_add(struct pick_holds *holds, const char *key, uint32_t pid, uint64_t expires_ms)
{
	if (holds->n == PICK_HOLDS_MAX || !is_key(key, strlen(key)))
		return false;
	struct pick_hold *h = &holds->items[holds->n++];
	snprintf(h->key, sizeof(h->key), "%s", key);
	h->pid = pid;
	h->expires_ms = expires_ms;
	return true;
}

size_t pick_holds_remove(struct pick_holds *holds, const char *key, uint32_t pid)
{
	size_t kept = 0, removed = 0;
	for (size_t i = 0; i < holds->n; i++) {
		const struct pick_hold *h = &holds->items[i];
		if (h->pid == pid && (!key || strcmp(h->key, key) == 0))
			removed++;
		else
			holds->items[kept++] = *h;
	}
	holds->n = kept;
	return removed;
}

bool pick_holds_has(const struct pick_holds *holds, const char *key)
{
	for (size_t i = 0; i < holds->n; i++)
		if (strcmp(holds->items[i].key, key) == 0)
			return true;
	return false;
}

bool used_through_instances(const struct hmn_gpu *const *rows, size_t n, const struct hmn_gpu *g)
{
	for (size_t i = 0; i < n && !g->place.is_mig; i++)
		if (hmn_place_within(&rows[i]->place, &g->place) && rows[i]->place.is_mig)
			return true;
	return false;
}

bool closer_to_need(const struct size_arg *need, const struct hmn_gpu *a, const struct hmn_gpu *b)
{
	if (need->is_percent && a->total_bytes != HMN_UNKNOWN && a->total_bytes > 0 &&
	    b->total_bytes != HMN_UNKNOWN && b->total_bytes > 0)
		return (double)a->free_bytes / (double)a->total_bytes > (double)b->free_bytes / (double)b->total_bytes;
	return a->free_bytes > b->free_bytes;
}

/* NVIDIA's and AMD's runtimes take a list of GPUs in a variable; Intel's and Apple's are not pointed at one here. */
const char *pick_variable(const struct hmn_gpu *g)
{
	if (g->vendor && strcmp(g->vendor, "nvidia") == 0)
		return "CUDA_VISIBLE_DEVICES";
	if (g->vendor && strcmp(g->vendor, "amd") == 0)
		return "ROCR_VISIBLE_DEVICES";
	return NULL;
}

bool pick_key(const struct hmn_gpu *g, char key[PICK_KEY_MAX])
{
	const char *id = g->uuid ? g->uuid : g->pci_bus_id;

	if (!pick_variable(g) || g->unified_memory)
		return false;
	if (id && is_key(id, strlen(id))) {
		snprintf(key, PICK_KEY_MAX, "%s", id);
		return true;
	}
	snprintf(key, PICK_KEY_MAX, "%s-gpu%u", g->vendor, g->place.index);
	return !g->place.is_mig;
}

void pick_gpus(const struct hmn_gpu *const *rows, size_t n, const struct size_arg *need,
	       const struct pick_holds *holds, const struct hmn_gpu **ret, size_t want,
	       struct pick_outcome *ret_outcome)
{
	struct pick_outcome o = { 0 };
	char key[PICK_KEY_MAX];

	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		if (g->free_bytes == HMN_UNKNOWN || used_through_instances(rows, n, g) || !pick_key(g, key))
			continue;
		bool room = g->free_bytes >= size_for_total(need, g->total_bytes);
		if (room && pick_holds_has(holds, key)) {
			o.held++;
			continue;
		}
		if (!room) {
			if (!o.most || closer_to_need(need, g, o.most))
				o.most = g;
			continue;
		}
		/* Into place among the picks so far, the most free first; the rest fall off the end. */
		size_t at = o.fitting < want ? o.fitting : want;
		while (at > 0 && (ret[at - 1]->free_bytes < g->free_bytes ||
				  (ret[at - 1]->free_bytes == g->free_bytes && ret[at - 1]->place.index > g->place.index)))
			at--;
		if (at < want) {
			size_t last = o.fitting < want ? o.fitting : want - 1;
			memmove(&ret[at + 1], &ret[at], (last - at) * sizeof(*ret));
			ret[at] = g;
		}
		o.fitting++;
	}
	*ret_outcome = o;
}

const char *pick_id(const struct hmn_gpu *g, const struct hmn_gpu_list *all, char *buf, size_t size)
{
	if (g->uuid) {
		snprintf(buf, size, "%s", g->uuid);
		return buf;
	}
	/* No UUID (DRM's AMD GPUs): its place among its vendor's GPUs, as the runtime numbers them. */
	unsigned nth = 0;
	for (size_t i = 0; i < all->count; i++) {
		const struct hmn_gpu *other = &all->gpus[i];
		if (other->place.is_mig || !other->vendor || strcmp(other->vendor, g->vendor) != 0)
			continue;
		if (other->place.index == g->place.index)
			break;
		nth++;
	}
	snprintf(buf, size, "%u", nth);
	return buf;
}
