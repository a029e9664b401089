/*
 * model_resolve() on its own (lib/model/resolve.c): what a typed MODEL
 * names, on fake folders made here (empty files: nothing reads a header) —
 * an index without its shards or with some, a Hugging Face cache (refs/main,
 * snapshots linked into blobs, a blob still downloading), a GGUF folder with
 * its projector, a folder of weights beside their copies — and the index
 * reader's total_size on hostile values. The index is meta-llama/Llama-3.1-8B's
 * (tests/fixtures/fit/Llama-3.1-8B: total_size 16060522496, 291 tensors in
 * 4 shards).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "model/resolve.h"
#include "tap.h"

#define HASH "0123456789abcdef0123456789abcdef01234567"

static char root[] = "/tmp/hmn-resolve-XXXXXX";
static char why[512];
static char *llama_index;

static const char *at(const char *rel)
{
	static char paths[8][1024];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof(paths[0]), "%s/%s", root, rel);
	return p;
}

/* mkdir -p of root/rel. */
static void folder(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s", at(rel));
	for (char *s = path + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	mkdir(path, 0755);
}

static void file(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");
	if (!f) {
		printf("# cannot write %s\n", at(rel));
		exit(99);
	}
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *target, const char *path)
{
	if (symlink(target, path) < 0) {
		printf("# cannot link %s\n", path);
		exit(99);
	}
}

static int resolve(const char *path, struct model_files *f)
{
	struct model_error e = { why, sizeof(why) };
	why[0] = '\0';
	int r = model_resolve(path, f, &e);
	if (r < 0)
		printf("# %s: %s\n", path, why);
	return r;
}

/* Does the file list end with these names, in this order? */
static bool files_are(const struct model_files *f, const char *const *names, size_t n)
{
	if (f->n_files != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(f->files[i], '/');
		if (strcmp(slash ? slash + 1 : f->files[i], names[i]))
			return false;
	}
	return true;
}

static void test_index_only(void)
{
	struct model_files f;
	folder("index-only");
	file("index-only/config.json", "{}");
	file("index-only/model.safetensors.index.json", llama_index);
	ok(resolve(at("index-only"), &f) == 0, "a folder of config.json and the index alone resolves");
	ok(f.source == MODEL_SOURCE_SAFETENSORS && f.index_path && f.n_files == 0 && f.n_missing == 4,
	   "safetensors, through the index, none of its 4 shards here");
	ok(f.n_missing == 4 && !strcmp(f.missing[0], "model-00001-of-00004.safetensors") &&
	   !strcmp(f.missing[3], "model-00004-of-00004.safetensors"), "the shards missing, in their order");
	ok(f.index.total == INDEX_TOTAL_VALID && f.index.total_size == 16060522496ull,
	   "the index's total_size: 16060522496 bytes");
	ok(f.index.n_tensors == 291 && f.index.n_shards == 4, "its 291 tensor names kept, in 4 shards");
	/* lm_head.weight is the map's first name, in model-00004: the names stay for what is quantized. */
	ok(f.index.n_tensors && !strcmp(f.index.tensor_names, "lm_head.weight") &&
	   !strcmp(f.index.shards[f.index.tensor_shard[0]], "model-00004-of-00004.safetensors"),
	   "each name with its shard: lm_head.weight in model-00004-of-00004.safetensors");
	is_str(f.name, "index-only", "named by its folder");
	model_files_clear(&f);

	/* One shard here: read; the others priced. */
	file("index-only/model-00002-of-00004.safetensors", "");
	ok(resolve(at("index-only"), &f) == 0 && f.n_files == 1 && f.n_missing == 3,
	   "one shard here and three absent: 1 to read, 3 missing");
	static const char *const two[] = { "model-00002-of-00004.safetensors" };
	ok(files_are(&f, two, 1), "the shard here is the one read");
	model_files_clear(&f);
	/*
	 * A link that leads nowhere is no download in progress (huggingface_hub
	 * links a blob once it is whole): its blob is gone, said, never priced
	 * as a shard to come.
	 */
	struct model_error gone_e = { why, sizeof(why) };
	link_to("/nonexistent/blob", at("index-only/model-00003-of-00004.safetensors"));
	ok(model_resolve(at("index-only"), &f, &gone_e) == -ENOENT &&
	   strstr(why, "index-only: model-00003-of-00004.safetensors leads nowhere (its file is gone)"),
	   "a shard's link that leads nowhere: said to be gone");
	model_files_clear(&f);
	unlink(at("index-only/model-00003-of-00004.safetensors"));

	/* Without a total_size the missing shard is an error, as it always was; a malformed one names the key. */
	folder("no-total");
	file("no-total/config.json", "{}");
	file("no-total/model.safetensors.index.json", "{\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\"}}");
	struct model_error e = { why, sizeof(why) };
	ok(model_resolve(at("no-total"), &f, &e) == -ENOENT &&
	   strstr(why, "model-00001-of-00002.safetensors: no such file, and model.safetensors.index.json has no"
		  " metadata.total_size"), "no total_size: the first shard missing said");
	model_files_clear(&f);
	file("no-total/model.safetensors.index.json",
	     "{\"metadata\":{\"total_size\":\"12\"},\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\"}}");
	ok(model_resolve(at("no-total"), &f, &e) == -EINVAL &&
	   strstr(why, "model.safetensors.index.json: metadata.total_size: the string \"12\" is not a number"),
	   "a string total_size: the file and the key said");
	model_files_clear(&f);
	/* All shards here: total_size is not needed, and not judged (some writers put other figures there). */
	file("no-total/model-00001-of-00002.safetensors", "");
	ok(model_resolve(at("no-total"), &f, &e) == 0 && f.n_files == 1 && !f.n_missing,
	   "every shard here: read, whatever total_size says");
	model_files_clear(&f);
	/* A shard outside the folder is refused, as it was. */
	file("no-total/model.safetensors.index.json",
	     "{\"metadata\":{\"total_size\":12},\"weight_map\":{\"a\":\"../escape.safetensors\"}}");
	ok(model_resolve(at("no-total"), &f, &e) == -EINVAL && strstr(why, "not a .safetensors file beside it"),
	   "an index naming ../escape.safetensors is refused");
	model_files_clear(&f);
}

static void test_total_sizes(void)
{
	static const struct {
		const char *value;
		int state;
		const char *said;
	} cases[] = {
		{ "16060522496", INDEX_TOTAL_VALID, NULL },
		{ "16060522496.0", INDEX_TOTAL_VALID, NULL }, /* a whole number written as a float */
		{ "1125899906842624", INDEX_TOTAL_VALID, NULL }, /* the bound itself */
		{ "1125899906842625", INDEX_TOTAL_INVALID, "is more than 1125899906842624 bytes" },
		{ "1e300", INDEX_TOTAL_INVALID, "is more than" },
		{ "-16060522496", INDEX_TOTAL_INVALID, "-16060522496 is not a whole number" },
		{ "0", INDEX_TOTAL_INVALID, "0 is not a whole number of bytes of 1 or more" },
		{ "12.5", INDEX_TOTAL_INVALID, "12.5 is not a whole number" },
		{ "\"16060522496\"", INDEX_TOTAL_INVALID, "the string \"16060522496\" is not a number" },
		{ "[1]", INDEX_TOTAL_INVALID, "an array is not a number" },
		{ "{\"a\":1}", INDEX_TOTAL_INVALID, "an object is not a number" },
		{ "true", INDEX_TOTAL_INVALID, "a boolean is not a number" },
		{ "null", INDEX_TOTAL_ABSENT, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct safetensors_index ix;
		struct model_error e = { why, sizeof(why) };
		snprintf(text, sizeof(text),
			 "{\"metadata\":{\"total_size\":%s},\"weight_map\":{\"a\":\"x.safetensors\"}}",
			 cases[i].value);
		int r = safetensors_index_read("t/model.safetensors.index.json", text, strlen(text), &ix, &e);
		ok(r == 0 && (int)ix.total == cases[i].state &&
		   (!cases[i].said || strstr(ix.total_problem, cases[i].said)),
		   "total_size %s: %s", cases[i].value, cases[i].said ? cases[i].said : "taken as it is");
		if (r == 0 && cases[i].said && !strstr(ix.total_problem, cases[i].said))
			printf("#   said: %s\n", ix.total_problem);
		if (r == 0)
			safetensors_index_clear(&ix);
	}
	/* No metadata, or metadata that is not an object: absent. */
	struct safetensors_index ix;
	struct model_error e = { why, sizeof(why) };
	const char *bare = "{\"metadata\":[],\"weight_map\":{\"a\":\"x.safetensors\"}}";
	ok(safetensors_index_read("t", bare, strlen(bare), &ix, &e) == 0 && ix.total == INDEX_TOTAL_ABSENT,
	   "metadata that is not an object: no total_size");
	safetensors_index_clear(&ix);
}

static void test_folders(void)
{
	struct model_files f;
	/* Weights beside their copies: the one read, the rest set aside and why. */
	folder("extras");
	file("extras/config.json", "{}");
	file("extras/model.safetensors", "");
	file("extras/consolidated.safetensors", "");
	file("extras/model.fp16.safetensors", "");
	file("extras/adapter_model.safetensors", "");
	ok(resolve(at("extras"), &f) == 0 && f.source == MODEL_SOURCE_SAFETENSORS && !f.index_path,
	   "a folder without an index resolves");
	static const char *const model[] = { "model.safetensors" };
	ok(files_are(&f, model, 1), "model.safetensors alone is read");
	ok(f.n_aside == 3 && !strcmp(f.aside[0].file, "adapter_model.safetensors") &&
	   f.aside[0].reason == MODEL_ASIDE_ADAPTER && !strcmp(f.aside[1].file, "consolidated.safetensors") &&
	   f.aside[1].reason == MODEL_ASIDE_COPY && f.aside[2].reason == MODEL_ASIDE_COPY,
	   "the adapter set aside as a LoRA adapter, consolidated and fp16 as copies");
	is_str(model_aside_reason_name(MODEL_ASIDE_COPY), "second copy of the weights", "the reason's words");
	model_files_clear(&f);

	/* A GGUF folder: its model's parts in order, the projector set aside for the vision part to price. */
	folder("gguf");
	file("gguf/m-00002-of-00002.gguf", "");
	file("gguf/m-00001-of-00002.gguf", "");
	file("gguf/mmproj-model-f16.gguf", "");
	ok(resolve(at("gguf"), &f) == 0 && f.source == MODEL_SOURCE_GGUF, "a folder of GGUF files is a GGUF");
	static const char *const parts[] = { "m-00001-of-00002.gguf", "m-00002-of-00002.gguf" };
	ok(files_are(&f, parts, 2), "its two parts, in order");
	ok(f.n_aside == 1 && f.aside[0].reason == MODEL_ASIDE_PROJECTOR &&
	   !strcmp(f.aside[0].file, "mmproj-model-f16.gguf"), "mmproj-model-f16.gguf set aside as a vision projector");
	is_str(model_aside_reason_name(f.n_aside ? f.aside[0].reason : MODEL_ASIDE_COPY), "vision projector",
	       "said so");
	model_files_clear(&f);
	/* Projectors by their repositories' names: "mmproj" anywhere, in any case. */
	static const char *const projectors[] = { "mmproj-F16.gguf", "llava-v1.5-7b-mmproj-model-f16.gguf",
						  "gemma-3-4b-it-mmproj-f16.gguf", "Model_MMPROJ-Q8_0.gguf" };
	for (size_t i = 0; i < sizeof(projectors) / sizeof(projectors[0]); i++)
		ok(model_is_projector_name(projectors[i]), "%s is a projector's name", projectors[i]);
	ok(!model_is_projector_name("gemma-3-4b-it-Q4_K_M.gguf") && !model_is_projector_name("mmpro.gguf"),
	   "a model's name is not");
	folder("gguf-named");
	file("gguf-named/gemma-3-4b-it-Q4_K_M.gguf", "");
	file("gguf-named/gemma-3-4b-it-mmproj-f16.gguf", "");
	file("gguf-named/llava-v1.5-7b-mmproj-model-f16.gguf", "");
	ok(resolve(at("gguf-named"), &f) == 0 && f.n_files == 1 && f.n_aside == 2 &&
	   f.aside[0].reason == MODEL_ASIDE_PROJECTOR && f.aside[1].reason == MODEL_ASIDE_PROJECTOR,
	   "a model beside *-mmproj-*.gguf projectors: one model, the projectors set aside");
	model_files_clear(&f);
	/* A link that leads nowhere: the model's is said (not "no config.json"); a projector's is set aside. */
	struct model_error e = { why, sizeof(why) };
	folder("gguf-gone");
	link_to("/nonexistent/blob", at("gguf-gone/model-Q4_K_M.gguf"));
	ok(model_resolve(at("gguf-gone"), &f, &e) == -ENOENT && strstr(why, "model-Q4_K_M.gguf leads nowhere"),
	   "a GGUF folder whose model's link leads nowhere: said");
	model_files_clear(&f);
	file("gguf-gone/mmproj-F16.gguf", "");
	ok(model_resolve(at("gguf-gone"), &f, &e) == -ENOENT && strstr(why, "model-Q4_K_M.gguf leads nowhere"),
	   "with a projector beside it: the model's link said, not the projector");
	model_files_clear(&f);
	unlink(at("gguf-gone/model-Q4_K_M.gguf"));
	unlink(at("gguf-gone/mmproj-F16.gguf"));
	file("gguf-gone/model-Q4_K_M.gguf", "");
	link_to("/nonexistent/blob", at("gguf-gone/mmproj-F16.gguf"));
	ok(resolve(at("gguf-gone"), &f) == 0 && f.n_files == 1 && f.n_aside == 1 &&
	   f.aside[0].reason == MODEL_ASIDE_PROJECTOR,
	   "a projector's link that leads nowhere: set aside as the projector");
	model_files_clear(&f);
	/* Any part typed brings the whole split. */
	ok(resolve(at("gguf/m-00002-of-00002.gguf"), &f) == 0 && files_are(&f, parts, 2),
	   "the second part typed: both parts, the first first");
	model_files_clear(&f);

	/* config.json alone, typed or its folder. */
	folder("config");
	file("config/config.json", "{}");
	ok(resolve(at("config"), &f) == 0 && f.source == MODEL_SOURCE_CONFIG && f.config && !f.n_files,
	   "a folder of config.json alone: the config");
	model_files_clear(&f);
	/* A shard typed: its set by name, read first; config.json beside it. */
	ok(resolve(at("index-only/model-00002-of-00004.safetensors"), &f) == 0 && f.one_file && f.set_count == 4 &&
	   f.n_files == 4, "a shard typed brings its set of 4, named");
	model_files_clear(&f);
}

static void setenv_or_unset(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

static void test_cache(void)
{
	struct model_files f;
	const char *repo = "hub/models--meta-llama--Llama-3.1-8B";
	char rel[512];
	/*
	 * As huggingface_hub leaves a download in progress: refs/main, a
	 * snapshot linked into blobs, one .incomplete.
	 */
	snprintf(rel, sizeof(rel), "%s/snapshots/%s", repo, HASH);
	folder(rel);
	snprintf(rel, sizeof(rel), "%s/refs", repo);
	folder(rel);
	snprintf(rel, sizeof(rel), "%s/blobs", repo);
	folder(rel);
	snprintf(rel, sizeof(rel), "%s/refs/main", repo);
	file(rel, HASH);
	snprintf(rel, sizeof(rel), "%s/blobs/c0", repo);
	file(rel, "{}");
	snprintf(rel, sizeof(rel), "%s/blobs/1d", repo);
	file(rel, llama_index);
	snprintf(rel, sizeof(rel), "%s/blobs/5e", repo);
	file(rel, "");
	snprintf(rel, sizeof(rel), "%s/blobs/7f.incomplete", repo);
	file(rel, "");
	snprintf(rel, sizeof(rel), "%s/snapshots/%s/config.json", repo, HASH);
	link_to("../../blobs/c0", at(rel));
	snprintf(rel, sizeof(rel), "%s/snapshots/%s/model.safetensors.index.json", repo, HASH);
	link_to("../../blobs/1d", at(rel));
	snprintf(rel, sizeof(rel), "%s/snapshots/%s/model-00001-of-00004.safetensors", repo, HASH);
	link_to("../../blobs/5e", at(rel));

	/* The cache root typed: refs/main followed to its snapshot, named as the repository. */
	ok(resolve(at(repo), &f) == 0 && f.source == MODEL_SOURCE_SAFETENSORS && f.n_files == 1 && f.n_missing == 3,
	   "models--meta-llama--Llama-3.1-8B: its snapshot, 1 shard there, 3 downloading or to come");
	is_str(f.name, "meta-llama/Llama-3.1-8B", "named ORG/NAME");
	ok(f.repo_named && f.dir && strstr(f.dir, "/snapshots/" HASH), "the files are the snapshot's");
	model_files_clear(&f);
	/* The snapshot typed: named by its repository, never by its hash. */
	snprintf(rel, sizeof(rel), "%s/snapshots/%s", repo, HASH);
	ok(resolve(at(rel), &f) == 0, "the snapshot folder resolves");
	is_str(f.name, "meta-llama/Llama-3.1-8B", "a snapshot is titled by its repository");
	model_files_clear(&f);
	snprintf(rel, sizeof(rel), "%s/snapshots/%s/", repo, HASH);
	ok(resolve(at(rel), &f) == 0 && f.name && !strcmp(f.name, "meta-llama/Llama-3.1-8B"), "with a slash too");
	model_files_clear(&f);
	/* Typed by a short relative path from inside the cache: the folders above still name it. */
	char cwd[1024];
	if (!getcwd(cwd, sizeof(cwd)) || chdir(at(repo)) < 0)
		exit(99);
	static const char *const relative[][2] = {
		{ ".", "snapshots/" HASH }, { "snapshots", HASH }, { "snapshots", HASH "/config.json" },
		{ "snapshots", "./" HASH "/" }, { "snapshots/" HASH, "../" HASH }, { "snapshots/" HASH, "." },
	};
	for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++) {
		if (chdir(at(repo)) < 0 || chdir(relative[i][0]) < 0)
			exit(99);
		ok(resolve(relative[i][1], &f) == 0 && f.name && !strcmp(f.name, "meta-llama/Llama-3.1-8B") &&
		   f.repo_named, "%s typed in %s: named meta-llama/Llama-3.1-8B, not by its hash", relative[i][1],
		   relative[i][0]);
		model_files_clear(&f);
	}
	if (chdir(cwd) < 0)
		exit(99);

	/*
	 * ORG/NAME where no such path is: the cache each variable names, in
	 * huggingface_hub's order. Each case sets every variable below the one
	 * that must win to a cache that exists but is empty, and the one above
	 * it unset: a lookup in the wrong order finds nothing.
	 */
	char hub[1024];
	snprintf(hub, sizeof(hub), "%s", at("hub"));
	folder("empty/hub");
	folder("empty/huggingface/hub");
	folder("home/.cache/huggingface");
	link_to(hub, at("home/.cache/huggingface/hub"));
	folder("xdg/huggingface");
	link_to(hub, at("xdg/huggingface/hub"));
	folder("hf-home");
	link_to(hub, at("hf-home/hub"));
	static const char *const names[] = { "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME",
					     "HOME" };
	static const struct {
		const char *values[5], *why;
	} ways[] = {
		{ { "hub", "empty/hub", "empty", "empty", "empty" }, "HF_HUB_CACHE" },
		{ { NULL, "hub", "empty", "empty", "empty" }, "HUGGINGFACE_HUB_CACHE" },
		{ { NULL, NULL, "hf-home", "empty", "empty" }, "HF_HOME/hub" },
		{ { NULL, NULL, NULL, "xdg", "empty" }, "XDG_CACHE_HOME/huggingface/hub" },
		{ { NULL, NULL, NULL, NULL, "home" }, "~/.cache/huggingface/hub" },
		/* huggingface_hub's expanduser and expandvars: ~ is HOME, $VAR and ${VAR} their values. */
		{ { "~/.cache/huggingface/hub", "empty/hub", "empty", "empty", "home" }, "HF_HUB_CACHE=~/…" },
		{ { "$HMN_TEST_ROOT/hub", "empty/hub", "empty", "empty", "empty" }, "HF_HUB_CACHE=$HMN_TEST_ROOT/hub" },
		{ { NULL, NULL, "${HMN_TEST_ROOT}/hf-home", "empty", "empty" }, "HF_HOME=${HMN_TEST_ROOT}/hf-home" },
		{ { NULL, NULL, "~", "empty", "hf-home" }, "HF_HOME=~" },
	};
	setenv("HMN_TEST_ROOT", root, 1);
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		char values[5][1024];
		for (size_t k = 0; k < 5; k++) {
			const char *v = ways[i].values[k];
			bool as_is = !v || v[0] == '~' || v[0] == '$';
			snprintf(values[k], sizeof(values[k]), "%s", as_is ? (v ? v : "") : at(v));
			setenv_or_unset(names[k], v ? values[k] : NULL);
		}
		ok(resolve("meta-llama/Llama-3.1-8B", &f) == 0 && f.name &&
		   !strcmp(f.name, "meta-llama/Llama-3.1-8B") && f.n_missing == 3,
		   "meta-llama/Llama-3.1-8B found through %s", ways[i].why);
		model_files_clear(&f);
	}
	/* ORG/NAME/ typed (a shell's completion of a folder's name): the same repository. */
	ok(resolve("meta-llama/Llama-3.1-8B/", &f) == 0 && f.name && !strcmp(f.name, "meta-llama/Llama-3.1-8B"),
	   "meta-llama/Llama-3.1-8B/ found in the cache too");
	model_files_clear(&f);
	/* No variable at all: every one that was looked at is said. */
	struct model_error none_e = { why, sizeof(why) };
	for (size_t k = 0; k < 5; k++)
		unsetenv(names[k]);
	ok(model_resolve("meta-llama/Llama-3.1-8B", &f, &none_e) == -ENOENT &&
	   strstr(why, "(HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are not set)"), "no cache to look in: said");
	model_files_clear(&f);
	setenv("HF_HUB_CACHE", hub, 1);
	/* Not there: where it looked is said. */
	struct model_error e = { why, sizeof(why) };
	ok(model_resolve("meta-llama/Llama-3.1-70B", &f, &e) == -ENOENT &&
	   strstr(why, "nor in the Hugging Face cache (") && strstr(why, "models--meta-llama--Llama-3.1-70B)"),
	   "a repository not in the cache: where it looked said");
	model_files_clear(&f);
	/* Names that are no repository id are paths that do not exist, never looked up. */
	static const char *const not_ids[] = { "meta-llama/../etc", "a/b/c", "-x/y", "x/y.", "x--y/z", "x/y..z",
					       "a b/c", "/abs/path" };
	for (size_t i = 0; i < sizeof(not_ids) / sizeof(not_ids[0]); i++) {
		ok(model_resolve(not_ids[i], &f, &e) == -ENOENT && strstr(why, "no such file or folder") &&
		   !strstr(why, "cache"), "'%s' is not looked for in the cache", not_ids[i]);
		model_files_clear(&f);
	}
	/* A Hub address: never fetched, the hint says so and the ORG/NAME that looks in the cache. */
	static const char *const addresses[] = {
		"hf://meta-llama/Llama-3.1-8B", "https://huggingface.co/meta-llama/Llama-3.1-8B",
		"https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main", "hf://models/meta-llama/Llama-3.1-8B",
		"https://hf.co/meta-llama/Llama-3.1-8B?x=1",
	};
	for (size_t i = 0; i < sizeof(addresses) / sizeof(addresses[0]); i++) {
		ok(model_resolve(addresses[i], &f, &e) == -ENOENT &&
			   strstr(why, "no such file or folder: hmn never uses the network; meta-llama/Llama-3.1-8B, "
				       "as ORG/NAME, is looked for in the local Hugging Face cache"),
		   "'%s': the network never used, said, and ORG/NAME named", addresses[i]);
		model_files_clear(&f);
	}
	ok(model_resolve("https://example.com/a/b", &f, &e) == -ENOENT && !strstr(why, "network"),
	   "another address: no such file, no hint");
	model_files_clear(&f);
	ok(model_hf_repo_id_valid("meta-llama/Llama-3.1-8B") && model_hf_repo_id_valid("gpt2") &&
	   model_hf_repo_id_valid("Qwen/Qwen2.5-0.5B_x") && !model_hf_repo_id_valid("") &&
	   !model_hf_repo_id_valid("a/") && !model_hf_repo_id_valid("..") &&
	   !model_hf_repo_id_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"
				   "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"),
	   "repository ids as huggingface_hub validates them (96 characters at most)");

	/* A hostile refs/main: what it holds becomes a path, so only a commit's hash is taken. */
	static const char *const refs[] = { "../../../../etc", "main/../" HASH, "", HASH "/..",
					    "zz23456789abcdef0123456789abcdef01234567" };
	snprintf(rel, sizeof(rel), "%s/refs/main", repo);
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		file(rel, refs[i]);
		ok(model_resolve(at(repo), &f, &e) == -EINVAL && strstr(why, "refs/main holds") &&
		   strstr(why, "not a commit's hash"), "refs/main holding '%s' is refused", refs[i]);
		model_files_clear(&f);
	}
	file(rel, "fedcba9876543210fedcba9876543210fedcba98\n");
	ok(model_resolve(at(repo), &f, &e) == -ENOENT && strstr(why, "whose snapshot is not in the cache"),
	   "a commit whose snapshot is not there is said");
	model_files_clear(&f);
	unlink(at(rel));
	/* No refs/main (a cache copied in part): its one snapshot is read, and said to be. */
	ok(model_resolve(at(repo), &f, &e) == 0 && strstr(f.note, "no refs/main") && strstr(f.note, "one snapshot"),
	   "no refs/main, one snapshot: read, said in a note");
	model_files_clear(&f);
	/* Two snapshots and no refs/main: which is meant cannot be told. */
	snprintf(rel, sizeof(rel), "%s/snapshots/fedcba9876543210fedcba9876543210fedcba98", repo);
	folder(rel);
	ok(model_resolve(at(repo), &f, &e) == -ENOENT && strstr(why, "without refs/main"),
	   "no refs/main, two snapshots: said, with where the snapshots are");
	model_files_clear(&f);
}

int main(void)
{
	size_t len;
	if (!mkdtemp(root))
		return 99;
	llama_index = slurp_fixture("fit/Llama-3.1-8B", "model.safetensors.index.json", &len);
	unsetenv("XDG_CACHE_HOME");
	test_index_only();
	test_total_sizes();
	test_folders();
	test_cache();
	free(llama_index);
	char command[1100];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	if (system(command) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
