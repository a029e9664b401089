/*
 * hmn fit MODEL: the GPU memory MODEL needs, from its headers alone, and
 * which GPUs have room for it now. The estimate is libhmn's; each GPU's
 * answer fills a budget of its free memory part by part (hmn_fit_reserve),
 * and the longest context and the GGUF layers that fit are found by asking
 * the same budget.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "output.h"
#include "pick.h"
#include "render.h"
#include "tool.h"

/*
 * "hmn: MODEL" and the rest of a line, on stderr. MODEL as a terminal may
 * be shown it: a folder's or a file's name is whoever published it's.
 */
static void say(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct cli *cli, const char *fmt, ...)
{
	char *shown = text_shown(cli->model);
	va_list ap;
	fprintf(stderr, "hmn: %s", shown ? shown : "MODEL");
	free(shown);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The request the options make; their names were checked when parsed. */
static void request_of(const struct cli *cli, struct hmn_fit_request *req)
{
	hmn_fit_request_init(req);
	req->context = cli->context;
	req->batch = (uint32_t)cli->batch;
	req->ubatch = (uint32_t)cli->ubatch;
	req->gpus = (uint32_t)cli->gpus;
	req->train = cli->train;
	req->text_only = cli->text_only;
	req->eager_attention = cli->attention == ATTENTION_EAGER;
	req->margin = cli->margin;
	if (cli->dtype)
		hmn_weights_dtype_from_name(cli->dtype, &req->dtype);
	if (cli->kv_dtype)
		hmn_dtype_from_name(cli->kv_dtype, &req->kv_dtype);
}

/* The types llama.cpp's KV cache takes (common/arg.cpp's kv_cache_types). */
static bool llama_cpp_cache_type(enum hmn_dtype t)
{
	switch (t) {
	case HMN_DTYPE_F32: case HMN_DTYPE_F16: case HMN_DTYPE_BF16: case HMN_DTYPE_Q8_0: case HMN_DTYPE_Q4_0:
	case HMN_DTYPE_Q4_1: case HMN_DTYPE_IQ4_NL: case HMN_DTYPE_Q5_0: case HMN_DTYPE_Q5_1:
		return true;
	default:
		return false;
	}
}

/*
 * The cache types vLLM keeps for safetensors and a config.json: the float
 * types and its fp8 (kv_cache_dtype fp8, fp8_e4m3, fp8_e5m2). A GGUF
 * type or int4 would price a cache no engine makes there.
 */
static bool vllm_cache_type(enum hmn_dtype t)
{
	switch (t) {
	case HMN_DTYPE_F32: case HMN_DTYPE_F16: case HMN_DTYPE_BF16: case HMN_DTYPE_F8_E4M3: case HMN_DTYPE_F8_E5M2:
		return true;
	default:
		return false;
	}
}

/*
 * One GPU's answer for free bytes: does the estimate fit (filled part by
 * part into a budget of that size), the longest context that does (up to
 * the trained one stretched by its rope_scaling, as the contract says: past
 * it a model's answers are not to be trusted; the one asked for where the
 * model does not say), the most
 * sequences of the context asked for that do (with --train the largest
 * micro-batch), and for a GGUF that does not fit whole, how many of its
 * layers do.
 */
static int answer_for(const struct hmn_model *m, const struct hmn_fit_request *req, uint64_t free_bytes,
		      struct fit_gpu *g)
{
	int r = hmn_fit_fits(m, req, free_bytes);
	if (r < 0)
		return r;
	g->free_bytes = free_bytes;
	g->fits = r == 1;
	g->max_context = HMN_UNKNOWN;
	g->max_batch = UINT32_MAX;
	g->gpu_layers = UINT32_MAX;

	struct hmn_fit_request longest = *req;
	/* The trained context after the config's rope_scaling, as the warning says it (Qwen2.5's YaRN x4: 131072). */
	longest.context = m->context_limit ? m->context_limit : m->context_length ? m->context_length : req->context;
	uint64_t context;
	r = hmn_fit_max_context(m, &longest, free_bytes, &context);
	if (r == 0)
		g->max_context = context;
	else if (r != -ENOSPC)
		return r;
	uint32_t batch;
	if ((r = hmn_fit_max_batch(m, req, free_bytes, &batch)) < 0)
		return r;
	g->max_batch = batch;
	if (!g->fits && m->format == HMN_MODEL_GGUF) {
		uint32_t layers;
		if ((r = hmn_fit_gpu_layers(m, req, free_bytes, &layers)) < 0)
			return r;
		g->gpu_layers = layers;
	}
	return 0;
}

/* The GPUs present that --device keeps, each with its answer, into *ret (malloc'd). */
static int answer_gpus(const struct cli *cli, hmn_context *ctx, const struct hmn_model *m,
		       const struct hmn_fit_request *req, struct hmn_gpu_list **ret_list, struct fit_gpu **ret,
		       size_t *ret_n)
{
	struct hmn_gpu_list *gpus = NULL;
	int r = hmn_query_gpus(ctx, &gpus);
	if (r < 0) {
		int status = exit_for_query_error(ctx, r);
		if (r == -ENODEV && !cli->n_devices) /* --device and --memory do not go together */
			fputs("hmn: to plan for a GPU that is not here: hmn fit --memory SIZE MODEL\n", stderr);
		return status;
	}
	if ((r = resolve_devices(cli, gpus, NULL)) < 0) {
		hmn_gpu_list_free(gpus);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	size_t n = 0, kept = 0;
	const struct hmn_gpu **rows = select_gpu_rows(cli, gpus, &n);
	struct fit_gpu *answers = calloc(n ? n : 1, sizeof(*answers));
	if (!rows || !answers) {
		free(rows);
		free(answers);
		hmn_gpu_list_free(gpus);
		fprintf(stderr, "hmn: %s\n", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		if (g->free_bytes == HMN_UNKNOWN || used_through_instances(rows, n, g))
			continue;
		struct fit_gpu *a = &answers[kept];
		*a = (struct fit_gpu){
			.place = g->place, .name = g->name, .uuid = g->uuid,
		};
		struct hmn_fit_request on = *req;
		on.vendor = g->vendor;
		if ((r = answer_for(m, &on, g->free_bytes, a)) < 0) {
			free(rows);
			free(answers);
			hmn_gpu_list_free(gpus);
			say(cli, ": cannot estimate: %s\n", strerror(-r));
			return EXIT_RUNTIME;
		}
		kept++;
	}
	free(rows);
	*ret_list = gpus;
	*ret = answers;
	*ret_n = kept;
	return EXIT_OK;
}

/* Exit 4's line: what one GPU needs, and the most any had. */
static void say_no_room(const struct cli *cli, const struct fit_report *rep, unsigned fitting)
{
	char need[SIZE_TEXT_MAX], had[SIZE_TEXT_MAX], label[GPU_CELL_MAX];
	const struct fit_gpu *most = NULL;
	for (size_t i = 0; i < rep->n_gpus; i++)
		if (!most || rep->gpus[i].free_bytes > most->free_bytes)
			most = &rep->gpus[i];
	format_size(rep->parts->total, false, need);
	if (rep->gpus_split > rep->n_gpus && !rep->gpus[0].planned)
		say(cli, " needs %s on each of %u GPUs; %u %s listed\n", need, rep->gpus_split, (unsigned)rep->n_gpus,
		    rep->n_gpus == 1 ? "is" : "are");
	else if (rep->gpus_split > 1)
		say(cli, " needs %s on each of %u GPUs; %u %s room\n", need, rep->gpus_split, fitting,
		    fitting == 1 ? "has" : "have");
	else if (!most)
		say(cli, " needs %s; no GPU says how much it has free\n", need);
	else if (most->planned)
		say(cli, " needs %s; --memory gives %s\n", need, format_size(most->free_bytes, false, had));
	else
		say(cli, " needs %s; no GPU has that free (most: GPU %s, %s)\n", need,
		    gpu_cell(label, &most->place),
		    format_size(most->free_bytes, false, had));
}

int cmd_fit(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_model *m = NULL;
	struct hmn_gpu_list *gpus = NULL;
	struct fit_gpu *answers = NULL, planned;
	struct hmn_fit_request req;
	struct hmn_fit_parts parts;
	struct output out;
	char why[512];
	size_t n = 0;
	int r, status;

	/* A FILE that cannot be written fails before any work. */
	if (output_open(&out, cli->output) < 0)
		return EXIT_RUNTIME;
	if (hmn_model_open(cli->model, &m, why, sizeof(why)) < 0) {
		fprintf(stderr, "hmn: %s\n", why);
		output_discard(&out);
		return EXIT_RUNTIME;
	}
	/* A --context past what the model is meant for: said (and in model.warning), the estimate made as asked. */
	if (cli->context)
		hmn_model_warn_context(m, cli->context);
	hmn_model_warn_split(m, (uint32_t)cli->gpus);
	if (m->warning && !cli->quiet)
		say(cli, ": %s\n", m->warning);
	request_of(cli, &req);
	/* A GGUF, or one planned as a llama.cpp file type (--dtype Q4_K_M): llama.cpp's cache; else vLLM's. */
	bool llama_cpp = m->format == HMN_MODEL_GGUF || hmn_dtype_is_file_type(req.dtype);
	if (req.kv_dtype != HMN_DTYPE_NONE &&
	    !(llama_cpp ? llama_cpp_cache_type(req.kv_dtype) : vllm_cache_type(req.kv_dtype))) {
		char message[200];
		snprintf(message, sizeof(message), "--kv-dtype %s: %s", cli->kv_dtype,
			 llama_cpp ? "llama.cpp's cache takes f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 or q5_1"
				   : "vLLM's cache (safetensors, config.json) takes f32, f16, bf16 or fp8");
		print_usage_error(cli, message);
		status = EXIT_USAGE;
		goto discard;
	}
	/* llama.cpp refuses a quantised V cache without flash attention: say so rather than price it. */
	uint32_t block_elements, block_bytes;
	if (llama_cpp && req.eager_attention && req.kv_dtype != HMN_DTYPE_NONE &&
	    hmn_dtype_block(req.kv_dtype, &block_elements, &block_bytes) == 0 && block_elements > 1 && !cli->quiet)
		say(cli, ": llama.cpp needs flash attention (--attention fused) for a %s V cache\n", cli->kv_dtype);
	/* A MODEL that lacks what the estimate needs is a MODEL problem (exit 1), not a usage error. */
	if (!req.context && !m->context_length) {
		say(cli, ": its trained context is not in the file: give --context N\n");
		status = EXIT_RUNTIME;
		goto discard;
	}
	/* After what makes it fail: a MODEL error is one line. */
	/* The float32 note is of the checkpoint's own type: moot once --dtype prices another. */
	const char *dtype_note = cli->dtype ? NULL : m->dtype_note;
	if ((m->note || dtype_note) && !cli->quiet)
		say(cli, ": note: %s%s%s\n", m->note ? m->note : "", m->note && dtype_note ? "; " : "",
		    dtype_note ? dtype_note : "");
	if ((r = hmn_fit_estimate(m, &req, &parts)) < 0) {
		say(cli, ": cannot estimate: %s\n", r == -EOVERFLOW ? "the estimate passes 2^64 bytes" : strerror(-r));
		status = EXIT_RUNTIME;
		goto discard;
	}
	if (cli->memory.given) {
		planned = (struct fit_gpu){ .planned = true };
		if ((r = answer_for(m, &req, cli->memory.size.bytes, &planned)) < 0) {
			say(cli, ": cannot estimate: %s\n", strerror(-r));
			status = EXIT_RUNTIME;
			goto discard;
		}
		answers = &planned;
		n = 1;
	} else if ((status = answer_gpus(cli, ctx, m, &req, &gpus, &answers, &n)) != EXIT_OK) {
		goto discard;
	}

	uint32_t split = req.gpus ? req.gpus : 1;
	unsigned fitting = 0;
	for (size_t i = 0; i < n; i++)
		fitting += answers[i].fits;
	const char *weights_dtype = req.dtype != HMN_DTYPE_NONE ? hmn_dtype_name(req.dtype) : hmn_dtype_name(m->dtype);
	struct fit_report rep = {
		.model = m,
		.context = parts.context,
		.batch = req.batch ? req.batch : 1,
		.gpus_split = split,
		.kv_dtype = hmn_dtype_name(parts.kv_dtype),
		.weights_dtype = weights_dtype,
		.quantization = req.dtype == HMN_DTYPE_NONE ? m->quantization : NULL,
		.train = req.train,
		.parts = &parts,
		.total_bytes = parts.total > UINT64_MAX / split ? HMN_UNKNOWN : parts.total * split,
		.gpus = answers,
		.n_gpus = n,
	};
	/* With a fitting split over N GPUs, N of them must have room. */
	int verdict = (cli->memory.given ? fitting > 0 : fitting >= split) ? EXIT_OK : EXIT_NOT_ENOUGH;
	if (cli->quiet && output_is_stdout(cli->output)) {
		/* A quiet gate answers by its status alone. */
		output_discard(&out);
		status = verdict;
		goto out;
	}
	/* More GPUs asked for than listed: said before the table, whose rows each have room for one share. */
	if (!cli->memory.given && split > n && !cli->quiet)
		say(cli, ": --gpus %u, but %u GPU%s listed: it cannot be split over %u here\n", split, (unsigned)n,
		    n == 1 ? " is" : "s are", split);
	struct render_options o = { .no_header = cli->no_header, .bytes = cli->bytes };
	if ((r = renderer_for(cli->format)->fit(out.file, &rep, &o)) < 0) {
		fprintf(stderr, "hmn: %s\n", strerror(-r));
		status = EXIT_RUNTIME;
		goto discard;
	}
	status = output_commit(&out, EXIT_OK);
	if (status == EXIT_OK && verdict != EXIT_OK) {
		if (!cli->quiet)
			say_no_room(cli, &rep, fitting);
		status = verdict;
	}
	goto out;
discard:
	output_discard(&out);
out:
	if (gpus) /* the GPUs present were asked (not --memory's): one that failed might have had room */
		status = exit_for_unread_gpus(ctx, status, gpus->failed);
	if (answers != &planned)
		free(answers);
	hmn_gpu_list_free(gpus);
	hmn_model_free(m);
	return status;
}
