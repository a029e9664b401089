/*
 * config.json's keys as the readers take them: a key looked up in
 * text_config before the top level (and in a sub-configuration, DBRX's
 * "attn_config.kv_n_heads"), the family's default for a key left out, and
 * every number checked before it is used: a string, -1, 32.5 or 1e300 is
 * malformed, said naming file and key, never a shape of 0 or a product
 * that wraps.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config-keys.h"

/* v, unless it is absent or null (which configs write for "none": q_lora_rank, sliding_window). */
static const cJSON *present(const cJSON *v)
{
	return v && !cJSON_IsNull(v) ? v : NULL;
}

/* key's value, text_config's before the top level's; *ret_where names which, for messages. */
const cJSON *config_lookup(const struct config *c, const char *key, const char **ret_where)
{
	/* "attn_config.kv_n_heads": a key of a sub-configuration (DBRX's), wherever that is. */
	const char *dot = strchr(key, '.');
	if (dot) {
		char outer[32];
		if ((size_t)(dot - key) >= sizeof(outer))
			return NULL;
		memcpy(outer, key, (size_t)(dot - key));
		outer[dot - key] = '\0';
		const cJSON *o = config_lookup(c, outer, NULL);
		/* A sub-configuration that is not an object is refused by sub_config_refused(), naming it. */
		const cJSON *v = cJSON_IsObject(o) ? present(cJSON_GetObjectItemCaseSensitive(o, dot + 1)) : o;
		if (v && ret_where)
			*ret_where = "";
		return v;
	}
	const char *where = "text_config.";
	const cJSON *v = c->text != c->root ? present(cJSON_GetObjectItemCaseSensitive(c->text, key)) : NULL;
	if (!v) {
		v = present(cJSON_GetObjectItemCaseSensitive(c->root, key));
		where = "";
	}
	if (v && ret_where)
		*ret_where = where;
	return v;
}

/* The first of keys the config has (the one a message about its value names), else the first. */
const char *config_key_written(const struct config *c, const char *const *keys)
{
	for (const char *const *k = keys; *k; k++)
		if (config_lookup(c, *k, NULL))
			return *k;
	return keys[0];
}

/* A JSON value as a message shows it: a number as written, a string quoted, else what it is. */
void config_describe(const cJSON *v, char *out, size_t size)
{
	if (cJSON_IsNumber(v)) {
		/* The shorter of cJSON's own two precisions that reads back as the same number. */
		snprintf(out, size, "%.15g", v->valuedouble);
		if (strtod(out, NULL) != v->valuedouble)
			snprintf(out, size, "%.17g", v->valuedouble);
	} else if (cJSON_IsString(v)) {
		char s[40];
		printable_name(v->valuestring, s, sizeof(s));
		snprintf(out, size, "the string \"%s\"", s);
	} else {
		snprintf(out, size, "%s", cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" :
			 cJSON_IsArray(v) ? "an array" : "an object");
	}
}

/*
 * A key of a sub-configuration ("ffn_config.ffn_hidden_size") whose
 * sub-configuration is there but not an object ("ffn_config": 16) is
 * malformed, said naming the sub-configuration: its number is no key's value.
 */
static int sub_config_refused(const struct config *c, const char *key)
{
	const char *dot = strchr(key, '.');
	char outer[32];
	if (!dot || (size_t)(dot - key) >= sizeof(outer))
		return 0;
	memcpy(outer, key, (size_t)(dot - key));
	outer[dot - key] = '\0';
	const char *where = "";
	const cJSON *o = config_lookup(c, outer, &where);
	if (!o || cJSON_IsObject(o))
		return 0;
	char shown[64];
	config_describe(o, shown, sizeof(shown));
	return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not an object (of %s)", c->file, where, outer, shown, dot + 1);
}

/* One of keys written as null, in text_config or at the top level. */
static bool written_null(const struct config *c, const char *const *keys)
{
	for (; *keys; keys++)
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c->text, *keys)) ||
		    cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c->root, *keys)))
			return true;
	return false;
}

/*
 * The family's default for keys, none of which the config has: the first
 * of them (a name or an alias) its config class sets. A null is no such
 * default: transformers passes it to the class as None, which says "none"
 * (sliding_window, DeepSeek-V2-Lite's q_lora_rank) or "derive it"
 * (num_key_value_heads: as many as the heads), as the fallbacks here do.
 */
static const struct config_default *family_default(const struct config *c, const char *const *keys)
{
	if (!c->family || !c->family->defaults || written_null(c, keys))
		return NULL;
	for (; *keys; keys++)
		for (const struct config_default *d = c->family->defaults; d->key; d++)
			if (!strcmp(d->key, *keys))
				return d;
	return NULL;
}

/*
 * The first of keys present: a whole number in [min, max] into *ret, 1;
 * else the family's default, 1; 0 when there is neither (*ret untouched).
 * Anything else is malformed, said naming the key (-EINVAL): a string, -1,
 * 32.5, or 1e300 would become a shape of 0 or a product that wraps, and a
 * confident wrong estimate.
 */
int config_number(const struct config *c, const char *const *keys, uint64_t min, uint64_t max,
			 uint64_t *ret)
{
	const char *const *names = keys;
	for (; *keys; keys++) {
		const char *where = "";
		int r = sub_config_refused(c, *keys);
		if (r < 0)
			return r;
		const cJSON *v = config_lookup(c, *keys, &where);
		if (!v)
			continue;
		char shown[64];
		config_describe(v, shown, sizeof(shown));
		if (!cJSON_IsNumber(v))
			return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a number", c->file, where, *keys, shown);
		double d = v->valuedouble;
		if (!(d >= (double)min) || d != floor(d))
			return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a whole number of %" PRIu64 " or more",
					  c->file, where, *keys, shown, min);
		if (d > (double)max)
			return model_fail(c->e, -EINVAL, "%s: %s%s: %s is more than %" PRIu64, c->file, where, *keys,
					  shown, max);
		*ret = (uint64_t)d;
		return 1;
	}
	const struct config_default *d = family_default(c, names);
	if (!d)
		return 0;
	*ret = d->value;
	return 1;
}

/* As config_number, for what the shape cannot do without: absent is malformed too. */
int config_required(const struct config *c, const char *const *keys, uint64_t min, uint64_t max,
			   uint64_t *ret)
{
	int r = config_number(c, keys, min, max, ret);
	if (r == 0) {
		/* Neither written nor a default of the family: hmn would be guessing the model's size. */
		char tried[160] = "";
		size_t at = 0;
		for (const char *const *k = keys + 1; *k && at < sizeof(tried); k++)
			at += (size_t)snprintf(tried + at, sizeof(tried) - at, "%s%s", k == keys + 1 ? "nor " : ", ", *k);
		const char *nested = c->text != c->root ? "from text_config and the top level" : "";
		return model_fail(c->e, -EINVAL, "%s: key %s is missing for model_type %s%s%s%s%s%s", c->file, keys[0],
				  c->model_type ? c->model_type : "(none)", *tried || *nested ? " (" : "", tried,
				  *tried && *nested ? "; " : "", nested, *tried || *nested ? ")" : "");
	}
	return r < 0 ? r : 0;
}

/* As config_number, fallback when none of keys is present. */
int config_optional(const struct config *c, const char *const *keys, uint64_t min, uint64_t max,
			   uint64_t fallback, uint64_t *ret)
{
	uint64_t v;
	int r = config_number(c, keys, min, max, &v);
	if (r < 0)
		return r;
	*ret = r ? v : fallback;
	return 0;
}

/* true or false; when absent, the family's default, else fallback; anything else is malformed. */
int config_flag(const struct config *c, const char *key, bool fallback, bool *ret)
{
	const char *where = "";
	int r = sub_config_refused(c, key);
	if (r < 0)
		return r;
	const cJSON *v = config_lookup(c, key, &where);
	if (v && !cJSON_IsBool(v)) {
		char shown[64];
		config_describe(v, shown, sizeof(shown));
		return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not true or false", c->file, where, key, shown);
	}
	const struct config_default *d = v ? NULL : family_default(c, KEYS(key));
	*ret = v ? cJSON_IsTrue(v) : d ? d->value != 0 : fallback;
	return 0;
}
