/*
 * A vision-language model's image tower and projector, from config.json's
 * vision_config alone: the parameters its shape implies, as transformers'
 * modelling code builds them, priced as the vision part.
 *
 * A tower is a ViT: a patch embedding (a convolution of channels × patch²
 * (× the temporal patch, for video) into the width), position embeddings
 * for the patches of one image (learned, or none with rotary ones), layers
 * of attention (four width² projections) and a feed-forward (two matrices,
 * or three gated), two norms a layer (Gemma 3n's is timm's convolutional
 * MobileNet-V5, and beside it an audio tower: gemma3n()). The projector
 * maps its output into the text model's width, and is each family's own. The families' keys
 * left out take their config classes' defaults (SiglipVisionConfig,
 * CLIPVisionConfig, Qwen2VLVisionConfig, Qwen2_5_VLVisionConfig,
 * Qwen3VLVisionConfig, PixtralVisionConfig, MllamaVisionConfig), the
 * classes' own figures even where they are another model's (Qwen2.5-VL's
 * hidden_size of 3584 is the 7B's text width, not its tower's 1280):
 * llava-1.5's vision_config says a few keys and inherits CLIP's for the rest.
 *
 * Every number is checked as config.c checks the text model's: a value that
 * is not a whole number within bounds is malformed, said naming the key;
 * the tower as a whole is bounded too (VISION_MAX_PARAMETERS).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/model.h"
#include "model/quant.h"

/* The towers hmn knows, by how their layers and projector are built. */
enum tower {
	TOWER_SIGLIP,   /* Gemma 3, SigLIP-towered LLaVAs */
	TOWER_CLIP,     /* LLaVA 1.5 */
	TOWER_QWEN2,    /* Qwen2-VL */
	TOWER_QWEN2_5,  /* Qwen2.5-VL: RMSNorm, gated MLP */
	TOWER_QWEN3,    /* Qwen3-VL: learned positions, deepstack mergers */
	TOWER_PIXTRAL,  /* Mistral 3, Pixtral */
	TOWER_MLLAMA,   /* Llama 3.2 Vision */
	TOWER_QWEN_VL,  /* Qwen-VL (v1): its config.json's "visual", a ViT and a resampler */
	TOWER_IDEFICS3, /* Idefics3, SmolVLM: SigLIP without its pooling head */
	TOWER_LLAMA4,   /* Llama 4: a ViT of unfolded patches, its pixel-shuffle adapter */
	TOWER_FUYU,     /* Fuyu: no tower, one linear layer of each patch's pixels */
	TOWER_MINICPMV, /* MiniCPM-V 2.6: its own SigLIP without a head, perhaps its last layer dropped */
	TOWER_MOLMO,    /* Molmo: a CLIP ViT-L/14-336 fixed in its code, attention pooling, a gated projector */
	TOWER_GEMMA3N,  /* Gemma 3n: timm's MobileNetV5-300M, and beside it the audio tower */
};

enum projector {
	PROJECTOR_LLAVA,    /* linear_1, GELU, linear_2 */
	PROJECTOR_GEMMA3,   /* mm_input_projection_weight, mm_soft_emb_norm */
	PROJECTOR_MERGER,   /* Qwen's merger: the tower's own (spatial_merge_size² patches a token) */
	PROJECTOR_MISTRAL3, /* a norm, the patch merger, linear_1, linear_2 */
	PROJECTOR_MLLAMA,   /* one linear from vision_output_dim */
	PROJECTOR_RESAMPLER, /* Qwen-VL's attn_pool, ln_post and proj: the tower's own */
	PROJECTOR_IDEFICS3, /* the pixel shuffle of scale_factor, one linear without bias */
	PROJECTOR_LLAMA4,   /* one linear from vision_output_dim, without bias */
	PROJECTOR_MINICPMV, /* MiniCPM-V's resampler: query_num queries, one cross-attention into the text width */
	PROJECTOR_GEMMA3N,  /* embed_vision and embed_audio: the towers' own (gemma3n()) */
};

/*
 * The most parameters a tower and projector may have: 2^40, a hundred
 * times the largest there is (InternViT-6B). Keys each within bounds can
 * still multiply past it (Mllama's tiles × aspect ratios × patches).
 */
#define VISION_MAX_PARAMETERS (1ull << 40)

struct vision {
	const cJSON *v, *root;
	const char *file;
	const char *where;       /* "vision_config.", or Qwen-VL's "visual.": what messages name keys by */
	struct model_error *e;
	struct hmn_model *m;     /* what warnings are said on */
	uint64_t matrix, vector; /* elements, summed saturating */
	const struct quant *q;   /* the checkpoint's quantization; NULL: none */
	enum hmn_dtype dtype;    /* the float type */
	uint64_t bytes;          /* the matrices' bytes as stored, summed saturating */
	bool quantized;          /* some of them in q's format */
};

/*
 * A key's value (v, NULL where absent), a whole number in [min, max]; fallback when absent
 * or null (transformers' None: the class's default). Anything else is
 * malformed.
 */
static int whole(const struct vision *c, const cJSON *v, const char *where, const char *key, uint64_t min,
		 uint64_t max, uint64_t fallback, uint64_t *ret)
{
	if (!v || cJSON_IsNull(v)) {
		*ret = fallback;
		return 0;
	}
	double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	if (!cJSON_IsNumber(v))
		return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a number", c->file, where, key,
				  cJSON_IsString(v) ? "a string" : cJSON_IsBool(v) ? "true or false" :
				  cJSON_IsArray(v) ? "an array" : "an object");
	if (!(d >= (double)min) || d != floor(d))
		return model_fail(c->e, -EINVAL, "%s: %s%s: %.17g is not a whole number of %" PRIu64 " or more",
				  c->file, where, key, d, min);
	if (d > (double)max)
		return model_fail(c->e, -EINVAL, "%s: %s%s: %.17g is more than %" PRIu64, c->file, where, key, d, max);
	*ret = (uint64_t)d;
	return 0;
}

static int number(const struct vision *c, const cJSON *obj, const char *where, const char *key, uint64_t min,
		  uint64_t max, uint64_t fallback, uint64_t *ret)
{
	return whole(c, cJSON_GetObjectItemCaseSensitive(obj, key), where, key, min, max, fallback, ret);
}

/* key at the top level: true or false, fallback when absent; anything else is malformed. */
static int flag(const struct vision *c, const char *key, bool fallback, bool *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
	if (v && !cJSON_IsBool(v))
		return model_fail(c->e, -EINVAL, "%s: %s is not true or false", c->file, key);
	*ret = v ? cJSON_IsTrue(v) : fallback;
	return 0;
}

#define V(key, min, max, fallback, ret) number(c, c->v, c->where, key, min, max, fallback, ret)

/* n elements of what is no linear layer (a convolution, an embedding): the float type's, as quantizers leave them. */
static void matrix(struct vision *c, uint64_t n)
{
	c->matrix = sat_add(c->matrix, n);
	c->bytes = sat_add(c->bytes, dtype_price(c->dtype, n));
}

static void vector(struct vision *c, uint64_t n)
{
	c->vector = sat_add(c->vector, n);
}

/* A linear layer of in × out, with its bias. */
static void linear(struct vision *c, uint64_t in, uint64_t out, bool bias)
{
	/*
	 * A Linear, which bitsandbytes, compressed-tensors, fp8 and ModelOpt
	 * quantize in the tower too unless their lists leave it out
	 * (transformers' bnb integration converts every Linear but
	 * modules_to_not_convert and the head); GPTQ, AWQ and MLX do not.
	 */
	uint64_t n = sat_mul(in, out);
	c->matrix = sat_add(c->matrix, n);
	if (c->q && quant_module_quantized(c->q, QUANT_VISION, NULL)) {
		c->bytes = sat_add(c->bytes, quant_matrix_bytes(c->q, QUANT_VISION, in, out, c->dtype));
		c->quantized = true;
	} else {
		c->bytes = sat_add(c->bytes, dtype_price(c->dtype, n));
	}
	if (bias)
		vector(c, out);
}

/* A norm of width: LayerNorm's weight and bias, or RMSNorm's weight. */
static void norm(struct vision *c, uint64_t width, bool layer_norm)
{
	vector(c, layer_norm ? sat_mul(2, width) : width);
}

/* One encoder layer: two norms, Q, K, V and the output, the feed-forward. */
static void encoder_layer(struct vision *c, uint64_t h, uint64_t ff, bool bias, bool layer_norm, bool gated)
{
	norm(c, h, layer_norm);
	norm(c, h, layer_norm);
	for (int i = 0; i < 4; i++)
		linear(c, h, h, bias);
	linear(c, h, ff, bias);
	if (gated)
		linear(c, h, ff, bias);
	linear(c, ff, h, bias);
}

static void layers(struct vision *c, uint64_t n, uint64_t h, uint64_t ff, bool bias, bool layer_norm, bool gated)
{
	struct vision one = { .e = c->e, .q = c->q, .dtype = c->dtype };
	encoder_layer(&one, h, ff, bias, layer_norm, gated);
	c->matrix = sat_add(c->matrix, sat_mul(one.matrix, n));
	c->bytes = sat_add(c->bytes, sat_mul(one.bytes, n));
	c->quantized |= one.quantized;
	vector(c, sat_mul(one.vector, n));
}

/* The patches of one image a side: image_size / patch_size, checked to be one at least. */
static int patches(struct vision *c, uint64_t image, uint64_t patch, uint64_t *ret)
{
	if (image < patch)
		return model_fail(c->e, -EINVAL, "%s: %simage_size: %" PRIu64 " is smaller than its"
				  " patch_size, %" PRIu64, c->file, c->where, image, patch);
	*ret = image / patch;
	return 0;
}

/* The number of layers vision_feature_layer takes features from: a list's length, else one. */
static int feature_layers(struct vision *c, uint64_t *ret)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(c->root, "vision_feature_layer");
	int n = cJSON_IsArray(f) ? cJSON_GetArraySize(f) : 1;
	if (n < 1 || n > (int)MODEL_MAX_LAYERS)
		return model_fail(c->e, -EINVAL, "%s: vision_feature_layer: a list of %d layers", c->file, n);
	*ret = (uint64_t)n;
	return 0;
}

/*
 * SigLIP (SiglipVisionConfig's defaults), CLIP (CLIPVisionConfig's) and
 * Idefics3's SigLIP (Idefics3VisionConfig's, SmolVLMVisionConfig's the
 * same: a width of 1152, patches of 32, and no pooling head, its
 * Idefics3VisionTransformer ending at post_layernorm) and MiniCPM-V
 * 2.6's (its remote code's SiglipVisionConfig: SigLIP's defaults, no head,
 * the last layer dropped where drop_vision_last_layer says, true by
 * default in its MiniCPMVConfig): the towers that differ in little.
 */
static int siglip_or_clip(struct vision *c, enum tower t, uint64_t *ret_width)
{
	uint64_t h, ff, n, ch, image, patch, side = 0;
	bool clip = t == TOWER_CLIP, head = t == TOWER_SIGLIP, drop = false;
	int r;
	if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, t == TOWER_IDEFICS3 ? 1152 : 768, &h)) < 0 ||
	    (r = V("intermediate_size", 1, MODEL_MAX_WIDTH, 3072, &ff)) < 0 ||
	    (r = V("num_hidden_layers", 1, MODEL_MAX_LAYERS, 12, &n)) < 0 ||
	    (r = V("num_channels", 1, 64, 3, &ch)) < 0 ||
	    (r = V("image_size", 1, MODEL_MAX_WIDTH, 224, &image)) < 0 ||
	    (r = V("patch_size", 1, MODEL_MAX_WIDTH, t == TOWER_IDEFICS3 || clip ? 32 : 16, &patch)) < 0 ||
	    (r = patches(c, image, patch, &side)) < 0 ||
	    (t == TOWER_MINICPMV && (r = flag(c, "drop_vision_last_layer", true, &drop)) < 0))
		return r;
	n -= drop;
	/* SiglipVisionTransformer's pooling head, unless vision_use_head says false (Gemma 3's does). */
	const cJSON *use = cJSON_GetObjectItemCaseSensitive(c->v, "vision_use_head");
	if (use && !cJSON_IsBool(use))
		return model_fail(c->e, -EINVAL, "%s: vision_config.vision_use_head is not true or false", c->file);
	if (use)
		head = t == TOWER_SIGLIP && cJSON_IsTrue(use);
	uint64_t positions = sat_mul(side, side);
	matrix(c, MUL4(ch, patch, patch, h));           /* the patch convolution */
	if (clip) {
		vector(c, h);                            /* class_embedding */
		positions = sat_add(positions, 1);
		norm(c, h, true);                        /* pre_layrnorm */
	} else {
		vector(c, h);                            /* SigLIP's convolution has a bias, CLIP's none */
	}
	matrix(c, sat_mul(positions, h));
	layers(c, n, h, ff, true, true, false);
	norm(c, h, true);                                /* post_layernorm */
	if (head) {
		matrix(c, h);                            /* the probe */
		linear(c, h, sat_mul(3, h), true);       /* in_proj */
		linear(c, h, h, true);
		norm(c, h, true);
		linear(c, h, ff, true);
		linear(c, ff, h, true);
	}
	*ret_width = h;
	return 0;
}

/*
 * Qwen2-VL's feed-forward width: int(embed_dim * mlp_ratio), as its
 * VisionBlock takes it, mlp_ratio a number above 0 (a float too: 2.6875),
 * at most 64; 4 when absent.
 */
static int mlp_width(const struct vision *c, uint64_t h, uint64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->v, "mlp_ratio");
	double ratio = 4;
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v))
			return model_fail(c->e, -EINVAL, "%s: %smlp_ratio is not a number", c->file, c->where);
		ratio = v->valuedouble;
		if (!(ratio > 0 && ratio <= 64))
			return model_fail(c->e, -EINVAL, "%s: %smlp_ratio: %.17g is not a number above 0"
					  " and at most 64", c->file, c->where, ratio);
	}
	double width = floor((double)h * ratio);
	if (width < 1)
		return model_fail(c->e, -EINVAL, "%s: %smlp_ratio: %.17g times %s %" PRIu64 " is less than 1", c->file,
				  c->where, ratio, strcmp(c->where, "visual.") ? "embed_dim" : "width", h);
	*ret = (uint64_t)width;
	return 0;
}

/* Qwen2-VL's, Qwen2.5-VL's and Qwen3-VL's towers, their merger the projector. */
static int qwen(struct vision *c, enum tower t)
{
	uint64_t h, ff, n, ch, patch, temporal, merge, out, positions = 0, deep = 0;
	int r;
	/* Qwen2-VL calls its width embed_dim (hidden_size is the text model's) and its feed-forward a ratio. */
	if (t == TOWER_QWEN2) {
		if ((r = V("embed_dim", 1, MODEL_MAX_WIDTH, 1280, &h)) < 0 ||
		    (r = mlp_width(c, h, &ff)) < 0 ||
		    (r = V("hidden_size", 1, MODEL_MAX_WIDTH, 3584, &out)) < 0)
			return r;
	} else if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, t == TOWER_QWEN3 ? 1152 : 3584, &h)) < 0 ||
		   (r = V("intermediate_size", 1, MODEL_MAX_WIDTH, t == TOWER_QWEN3 ? 4304 : 3420, &ff)) < 0 ||
		   (r = V("out_hidden_size", 1, MODEL_MAX_WIDTH, 3584, &out)) < 0) {
		return r;
	}
	if ((r = V("depth", 1, MODEL_MAX_LAYERS, t == TOWER_QWEN3 ? 27 : 32, &n)) < 0 ||
	    (r = V("in_channels", 1, 64, 3, &ch)) < 0 ||
	    (r = V("patch_size", 1, MODEL_MAX_WIDTH, t == TOWER_QWEN3 ? 16 : 14, &patch)) < 0 ||
	    (r = V("temporal_patch_size", 1, 64, 2, &temporal)) < 0 ||
	    (r = V("spatial_merge_size", 1, 64, 2, &merge)) < 0)
		return r;
	if (t == TOWER_QWEN3) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(c->v, "deepstack_visual_indexes");
		if (d && !cJSON_IsArray(d))
			return model_fail(c->e, -EINVAL, "%s: vision_config.deepstack_visual_indexes is not a list",
					  c->file);
		int k = d ? cJSON_GetArraySize(d) : 3;
		if (k < 0 || k > (int)MODEL_MAX_LAYERS)
			return model_fail(c->e, -EINVAL, "%s: vision_config.deepstack_visual_indexes: %d of them",
					  c->file, k);
		deep = (uint64_t)k;
		if ((r = V("num_position_embeddings", 1, MODEL_MAX_CONTEXT, 2304, &positions)) < 0)
			return r;
	}
	bool layer_norm = t != TOWER_QWEN2_5;
	/* The patch convolution over temporal_patch_size frames: biased in Qwen3-VL alone. */
	matrix(c, sat_mul(MUL4(ch, temporal, patch, patch), h));
	if (t == TOWER_QWEN3) {
		vector(c, h);
		matrix(c, sat_mul(positions, h));
	}
	layers(c, n, h, ff, true, layer_norm, t == TOWER_QWEN2_5);
	/* The merger: spatial_merge_size² patches, normed, through two linears into the text model's width. */
	uint64_t merged = MUL3(h, merge, merge);
	for (uint64_t i = 0; i < 1 + deep; i++) {
		/* Qwen3-VL's deepstack mergers norm after the shuffle, over the merged width. */
		norm(c, i ? merged : h, layer_norm);
		linear(c, merged, merged, true);
		linear(c, merged, out, true);
	}
	return 0;
}

/*
 * Qwen-VL's tower (Qwen/Qwen-VL's visual.py, remote code: QWenConfig keeps
 * its "visual" as given, VisionTransformer's arguments): conv1 (3 x
 * patch² into width, no bias), 256 learned positions of width (256 in the
 * code, whatever the image), ln_pre, layers VisualAttentionBlocks
 * (LayerNorms, in_proj and out_proj biased, c_fc int(width x mlp_ratio)
 * and c_proj biased); the Resampler into output_dim (its sin-cos pos_embed
 * and query of n_queries, kv_proj from width unbiased, a MultiheadAttention
 * of output_dim biased, ln_q and ln_kv), ln_post and proj output_dim².
 * Keys left out take Qwen-VL's own values (its one published tower), but
 * output_dim and n_queries their argument defaults, 512 and 256.
 */
static int qwen_vl(struct vision *c)
{
	uint64_t h, n, image, patch, out, queries, ff, side;
	int r;
	if ((r = V("width", 1, MODEL_MAX_WIDTH, 1664, &h)) < 0 || (r = V("layers", 1, MODEL_MAX_LAYERS, 48, &n)) < 0 ||
	    (r = V("image_size", 1, 1 << 20, 448, &image)) < 0 || (r = V("patch_size", 1, 1 << 20, 14, &patch)) < 0 ||
	    (r = V("output_dim", 1, MODEL_MAX_WIDTH, 512, &out)) < 0 ||
	    (r = V("n_queries", 1, 1 << 20, 256, &queries)) < 0 || (r = mlp_width(c, h, &ff)) < 0 ||
	    (r = patches(c, image, patch, &side)) < 0)
		return r;
	/* Resampler(grid_size=int(sqrt(n_queries))): its queries and positions are the grid's square. */
	uint64_t grid = (uint64_t)floor(sqrt((double)queries));
	while (grid * grid > queries)
		grid--;
	while ((grid + 1) * (grid + 1) <= queries)
		grid++;
	matrix(c, sat_mul(MUL3(3, patch, patch), h));
	matrix(c, sat_mul(256, h));
	norm(c, h, true);
	layers(c, n, h, ff, true, true, false);
	matrix(c, sat_mul(sat_mul(grid, grid), out)); /* pos_embed */
	matrix(c, sat_mul(sat_mul(grid, grid), out)); /* query */
	if (h != out)
		linear(c, h, out, false); /* kv_proj */
	for (int i = 0; i < 4; i++)
		linear(c, out, out, true); /* the MultiheadAttention's in_proj (Q, K, V) and out_proj */
	norm(c, out, true);                /* ln_q */
	norm(c, out, true);                /* ln_kv */
	norm(c, out, true);                /* ln_post */
	matrix(c, sat_mul(out, out));      /* proj */
	return 0;
}

/* Pixtral's tower (PixtralVisionConfig's defaults): RMSNorm, gated, no biases. */
static int pixtral(struct vision *c, uint64_t *ret_width)
{
	uint64_t h, ff, n, ch, patch;
	int r;
	if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, 1024, &h)) < 0 ||
	    (r = V("intermediate_size", 1, MODEL_MAX_WIDTH, 4096, &ff)) < 0 ||
	    (r = V("num_hidden_layers", 1, MODEL_MAX_LAYERS, 24, &n)) < 0 ||
	    (r = V("num_channels", 1, 64, 3, &ch)) < 0 ||
	    (r = V("patch_size", 1, MODEL_MAX_WIDTH, 16, &patch)) < 0)
		return r;
	matrix(c, MUL4(ch, patch, patch, h)); /* patch_conv, no bias; positions are rotary */
	norm(c, h, false);                     /* ln_pre */
	layers(c, n, h, ff, false, false, true);
	*ret_width = h;
	return 0;
}

/*
 * Llama 3.2 Vision's tower (MllamaVisionConfig's defaults): a CLIP-like
 * encoder, then global layers with gates, tile and aspect-ratio position
 * embeddings, and features of several layers concatenated (vision_output_dim).
 */
static int mllama(struct vision *c, uint64_t text_width)
{
	uint64_t h, ff, n, global, ch, image, patch, tiles, out, side = 0;
	int r;
	if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, 1280, &h)) < 0 ||
	    (r = V("intermediate_size", 1, MODEL_MAX_WIDTH, 5120, &ff)) < 0 ||
	    (r = V("num_hidden_layers", 1, MODEL_MAX_LAYERS, 32, &n)) < 0 ||
	    (r = V("num_global_layers", 0, MODEL_MAX_LAYERS, 8, &global)) < 0 ||
	    (r = V("num_channels", 1, 64, 3, &ch)) < 0 ||
	    (r = V("image_size", 1, MODEL_MAX_WIDTH, 448, &image)) < 0 ||
	    (r = V("patch_size", 1, MODEL_MAX_WIDTH, 14, &patch)) < 0 ||
	    (r = V("max_num_tiles", 1, 1024, 4, &tiles)) < 0 ||
	    (r = V("vision_output_dim", 1, MODEL_MAX_WIDTH, 7680, &out)) < 0 ||
	    (r = patches(c, image, patch, &side)) < 0)
		return r;
	/* supported_aspect_ratios: the class's 8 for 4 tiles; the embeddings have one row more (id 0: none). */
	const cJSON *ratios = cJSON_GetObjectItemCaseSensitive(c->v, "supported_aspect_ratios");
	if (ratios && !cJSON_IsArray(ratios))
		return model_fail(c->e, -EINVAL, "%s: vision_config.supported_aspect_ratios is not a list", c->file);
	int k = ratios ? cJSON_GetArraySize(ratios) : 8;
	if (k < 0 || k > 65536)
		return model_fail(c->e, -EINVAL, "%s: vision_config.supported_aspect_ratios: %d of them", c->file, k);
	uint64_t ids = (uint64_t)k + 1, positions = sat_add(sat_mul(side, side), 1);
	matrix(c, MUL4(ch, patch, patch, h));                 /* patch_embedding, no bias */
	vector(c, h);                                          /* class_embedding */
	matrix(c, sat_mul(positions, h));                      /* gated_positional_embedding.embedding */
	matrix(c, MUL4(ids, tiles, positions, h));             /* its tile_embedding */
	vector(c, 1);                                          /* its gate */
	matrix(c, sat_mul(2, MUL3(ids, tiles, h)));            /* pre- and post-tile embeddings */
	vector(c, 2);                                          /* their gates */
	norm(c, h, true);                                      /* layernorm_pre */
	norm(c, h, true);                                      /* layernorm_post */
	layers(c, n, h, ff, false, true, false);
	/* fc1 and fc2 have biases where the attention has none. */
	vector(c, sat_mul(n, sat_add(ff, h)));
	layers(c, global, h, ff, false, true, false);
	vector(c, sat_mul(global, sat_add(sat_add(ff, h), 2))); /* biases, gate_attn and gate_ffn */
	linear(c, out, text_width, true);                      /* multi_modal_projector */
	return 0;
}

/*
 * Llama 4's tower (Llama4VisionConfig's defaults, Llama4VisionModel): its
 * patches unfolded through one Linear (no bias), a class embedding and a
 * position for each patch of a tile and the class, two norms around
 * num_hidden_layers of CLIP's layers (biased, positions rotary), then the
 * vision adapter: the pixel shuffle (pixel_shuffle_ratio 0.5 makes 4 x the
 * width of a quarter of the patches, Scout's 4 x 1408 = 5632) into fc1,
 * which transformers sizes from intermediate_size to projector_input_dim,
 * fc2 of projector_output_dim, both without bias; and
 * multi_modal_projector.linear_1, vision_output_dim into the text model's
 * width, without bias (multi_modal_projector_bias is vLLM's alone).
 */
static int llama4(struct vision *c, uint64_t text_width)
{
	uint64_t h, ff, n, ch, image, patch, in, out, vout, side = 0;
	int r;
	if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, 768, &h)) < 0 ||
	    (r = V("intermediate_size", 1, MODEL_MAX_WIDTH, 5632, &ff)) < 0 ||
	    (r = V("num_hidden_layers", 1, MODEL_MAX_LAYERS, 34, &n)) < 0 ||
	    (r = V("num_channels", 1, 64, 3, &ch)) < 0 ||
	    (r = V("image_size", 1, MODEL_MAX_WIDTH, 448, &image)) < 0 ||
	    (r = V("patch_size", 1, MODEL_MAX_WIDTH, 14, &patch)) < 0 ||
	    (r = V("projector_input_dim", 1, MODEL_MAX_WIDTH, 4096, &in)) < 0 ||
	    (r = V("projector_output_dim", 1, MODEL_MAX_WIDTH, 4096, &out)) < 0 ||
	    (r = V("vision_output_dim", 1, MODEL_MAX_WIDTH, 7680, &vout)) < 0 ||
	    (r = patches(c, image, patch, &side)) < 0)
		return r;
	linear(c, MUL3(ch, patch, patch), h, false);       /* patch_embedding.linear */
	vector(c, h);                                      /* class_embedding */
	matrix(c, sat_mul(sat_add(sat_mul(side, side), 1), h)); /* positional_embedding_vlm */
	norm(c, h, true);                                  /* layernorm_pre */
	norm(c, h, true);                                  /* layernorm_post */
	layers(c, n, h, ff, true, true, false);
	linear(c, ff, in, false);                          /* vision_adapter.mlp.fc1 */
	linear(c, out, out, false);                        /* vision_adapter.mlp.fc2 */
	linear(c, vout, text_width, false);                /* multi_modal_projector.linear_1 */
	return 0;
}

/*
 * MiniCPM-V 2.6's resampler (its remote code's resampler.py, as vLLM's
 * Resampler2_5 builds it): query_num learned queries of the text model's
 * width, kv_proj from the tower's width where the two differ (no bias),
 * one nn.MultiheadAttention (in_proj a Parameter of 3 x width², out_proj a
 * Linear, both biased), LayerNorms on the queries, the keys and the output,
 * and proj, a Parameter of width². Its 2D positions are computed, no
 * parameters.
 */
static int minicpmv_resampler(struct vision *c, uint64_t width, uint64_t text_width)
{
	uint64_t queries;
	int r;
	if ((r = number(c, c->root, "", "query_num", 1, 65536, 64, &queries)) < 0)
		return r;
	matrix(c, sat_mul(queries, text_width));                     /* query */
	if (width != text_width)
		linear(c, width, text_width, false);                  /* kv_proj */
	matrix(c, MUL3(3, text_width, text_width));                   /* attn.in_proj_weight */
	vector(c, sat_mul(3, text_width));                            /* its bias */
	linear(c, text_width, text_width, true);                      /* attn.out_proj */
	for (int i = 0; i < 3; i++)
		norm(c, text_width, true);                            /* ln_q, ln_kv, ln_post */
	matrix(c, sat_mul(text_width, text_width));                   /* proj */
	return 0;
}

/*
 * MiniCPM-V's config.json says its version, and each version is another
 * model under one model_type (2.0 MiniCPM's, 2.5 Llama 3's, 2.6 Qwen2's,
 * 4.0 Llama's, 4.5 Qwen3's text model, each its own tower and resampler;
 * vLLM's get_version_by_config): hmn reads 2.6 alone. true for 2.6, false
 * for any other or none.
 */
static bool minicpmv_26(const cJSON *root)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "version");
	return cJSON_IsNumber(v) && v->valuedouble == 2.6;
}

/*
 * A Molmo whose text model is not the one hmn reads (Molmo-7B-D's and
 * -72B's Qwen2): MolmoE's experts, Molmo-7B-O's OLMo with Q and K norms,
 * tied weights, another norm, an embedding of another size than the
 * vocabulary. Each is refused naming its key: its text model was read as
 * Qwen2's. 0 where none is.
 */
static int molmo_refused(const struct vision *c)
{
	static const char *const flags[] = { "attention_layer_norm", "weight_tying" };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, flags[i]);
		if (v && !cJSON_IsBool(v) && !cJSON_IsNull(v))
			return model_fail(c->e, -EINVAL, "%s: %s is not true or false", c->file, flags[i]);
		if (cJSON_IsTrue(v))
			return model_fail(c->e, -EINVAL, "%s: %s: a Molmo of it is not one hmn reads (Molmo-7B-D's"
					  " and -72B's are): its size cannot be read from config.json alone", c->file,
					  flags[i]);
	}
	const cJSON *norm = cJSON_GetObjectItemCaseSensitive(c->root, "layer_norm_type");
	if (norm && !cJSON_IsNull(norm) && !(cJSON_IsString(norm) && !strcmp(norm->valuestring, "rms")))
		return model_fail(c->e, -EINVAL, "%s: layer_norm_type: a Molmo of other norms than \"rms\" is not one"
				  " hmn reads", c->file);
	uint64_t experts, embedding, vocab;
	int r;
	if ((r = number(c, c->root, "", "moe_num_experts", 0, 1u << 20, 0, &experts)) < 0 ||
	    (r = number(c, c->root, "", "vocab_size", 1, UINT32_MAX, 0, &vocab)) < 0 ||
	    (r = number(c, c->root, "", "embedding_size", 1, UINT32_MAX, vocab, &embedding)) < 0)
		return r;
	if (experts)
		return model_fail(c->e, -EINVAL, "%s: moe_num_experts: %" PRIu64 ": MolmoE's experts are not what hmn"
				  " reads of Molmo: its size cannot be read from config.json alone", c->file, experts);
	if (embedding != vocab)
		return model_fail(c->e, -EINVAL, "%s: embedding_size: %" PRIu64 " is not vocab_size, %" PRIu64 ": hmn"
				  " reads Molmo's embeddings and head as vocab_size's", c->file, embedding, vocab);
	return 0;
}

/*
 * Molmo's image part (its remote code's modeling_molmo.py, as vLLM's
 * molmo.py builds it): no vision_config, its VisionBackboneConfig fixed in
 * code: OpenAI's CLIP ViT-L/14 at 336 cut to 23 layers (1024 wide, an MLP
 * of 4096, biased, LayerNorms), its patches through one Linear (588 x
 * 1024, no bias), a class embedding, 577 positions and pre_ln; the
 * features of two layers side by side (vit_layers -2 and -9: 2048) pooled
 * 2 x 2 by one attention (wq, wk, wv 2048 -> 1024 and wo, biased); then
 * image_projector, the text model's gated MLP from 1024 (two halves of
 * intermediate_size / 2, down into the width, no bias); and pad_embed,
 * 2 x 2048.
 */
static int molmo(struct vision *c, uint64_t text_width)
{
	enum { WIDTH = 1024, LAYERS = 23, MLP = 4096, PATCH = 14, POSITIONS = 577, FEATURES = 2 };
	uint64_t ff;
	int r;
	if ((r = molmo_refused(c)) < 0 ||
	    (r = number(c, c->root, "", "intermediate_size", 2, MODEL_MAX_WIDTH, 2, &ff)) < 0)
		return r;
	linear(c, 3 * PATCH * PATCH, WIDTH, false);               /* image_vit.patch_embedding */
	vector(c, WIDTH);                                         /* class_embedding */
	matrix(c, (uint64_t)POSITIONS * WIDTH);                   /* positional_embedding */
	norm(c, WIDTH, true);                                     /* pre_ln */
	layers(c, LAYERS, WIDTH, MLP, true, true, false);
	for (int i = 0; i < 3; i++)
		linear(c, FEATURES * WIDTH, WIDTH, true);         /* image_pooling_2d.wq, wk, wv */
	linear(c, WIDTH, WIDTH, true);                            /* image_pooling_2d.wo */
	linear(c, WIDTH, ff / 2, false);                          /* image_projector.w1 */
	linear(c, WIDTH, ff / 2, false);                          /* image_projector.w3 */
	linear(c, ff / 2, text_width, false);                     /* image_projector.w2 */
	matrix(c, 2 * FEATURES * WIDTH);                          /* pad_embed */
	return 0;
}

/*
 * Fuyu's image part (FuyuConfig's defaults, FuyuForCausalLM): no tower and
 * no vision_config, each patch's patch_size² x num_channels pixels taken
 * into the text model's width by one biased Linear (vision_embed_tokens),
 * its keys at the top level.
 */
static int fuyu(struct vision *c, uint64_t text_width)
{
	uint64_t ch, patch;
	int r;
	if ((r = number(c, c->root, "", "patch_size", 1, MODEL_MAX_WIDTH, 30, &patch)) < 0 ||
	    (r = number(c, c->root, "", "num_channels", 1, 64, 3, &ch)) < 0)
		return r;
	linear(c, MUL3(ch, patch, patch), text_width, true);
	return 0;
}

/*
 * Gemma 3n's image tower: timm's mobilenetv5_300m_enc, the one
 * architecture its vision_config names (Gemma3nVisionConfig's default),
 * a fixed network whose layers are the definition of that name in timm's
 * mobilenetv5.py (_gen_mobilenet_v5), as a config class's defaults are:
 * a stem (a biased 3 x 3 convolution of 3 channels into 64, a norm), then
 * four stages of blocks, each block's output the next one's input. Their
 * kinds (_efficientnet_blocks.py): EdgeResidual ("er": a k x k convolution
 * into e x its input, a norm, a 1 x 1 into c, a norm),
 * UniversalInvertedResidual ("uir": an a x a depthwise convolution and its
 * norm where a is not 0, a 1 x 1 into e x its input and a norm, a k x k
 * depthwise one and its norm where k is not 0, a 1 x 1 into c and a norm,
 * a layer scale of c) and MobileAttention with multi-query attention
 * ("mqa": a norm, the query's 1 x 1 into h x d, the key's and the value's
 * each into d, after a k x k depthwise convolution and a norm where they
 * are strided (v 2), the output's h x d into c, a layer scale). Every
 * convolution but the stem's has no bias; RmsNorm2d has a weight alone.
 * Then the multi-scale fusion adapter: the last two stages' outputs side
 * by side (640 + 1280) through a UniversalInvertedResidual without
 * depthwise convolutions or layer scale into 2048, expanded 2x, and a
 * norm. 291,406,912 parameters: the "MobileNet-V5-300M" Google names.
 */
enum mnv5_block { MNV5_ER, MNV5_UIR, MNV5_MQA };

static const struct mnv5 {
	enum mnv5_block kind;
	uint8_t repeat;       /* this block, or this block and the next (an mqa and its uir), so many times */
	uint8_t start, k, e;  /* uir's start and middle depthwise kernels, er's kernel, mqa's; the expansion */
	uint8_t heads, kv_stride;
	uint16_t d, c;        /* mqa's key and value width; the block's output channels */
} mnv5_300m[] = {
	{ MNV5_ER, 3, 0, 3, 4, 0, 0, 0, 128 },
	{ MNV5_UIR, 1, 3, 5, 6, 0, 0, 0, 256 },
	{ MNV5_UIR, 1, 5, 0, 4, 0, 0, 0, 256 },
	{ MNV5_UIR, 1, 3, 0, 4, 0, 0, 0, 256 },
	{ MNV5_UIR, 1, 5, 0, 4, 0, 0, 0, 256 },
	{ MNV5_UIR, 1, 3, 0, 4, 0, 0, 0, 256 },
	{ MNV5_UIR, 1, 5, 5, 6, 0, 0, 0, 640 },
	{ MNV5_UIR, 7, 5, 0, 4, 0, 0, 0, 640 },
	{ MNV5_UIR, 1, 0, 0, 1, 0, 0, 0, 640 },
	{ MNV5_MQA, 13, 0, 3, 0, 12, 2, 64, 640 }, /* and after each, uir_a0_k0_e2_c640 */
	{ MNV5_UIR, 1, 5, 5, 6, 0, 0, 0, 1280 },
	{ MNV5_MQA, 19, 0, 3, 0, 16, 1, 96, 1280 }, /* and after each, uir_a0_k0_e2_c1280 */
};

static void mnv5_uir(struct vision *c, uint64_t in, uint64_t out, uint64_t start, uint64_t k, uint64_t e,
		     bool layer_scale)
{
	uint64_t mid = sat_mul(in, e);
	if (start) {
		matrix(c, MUL3(in, start, start));
		norm(c, in, false);
	}
	matrix(c, sat_mul(in, mid)); /* pw_exp */
	norm(c, mid, false);
	if (k) {
		matrix(c, MUL3(mid, k, k)); /* dw_mid */
		norm(c, mid, false);
	}
	matrix(c, sat_mul(mid, out)); /* pw_proj */
	norm(c, out, false);
	if (layer_scale)
		vector(c, out);
}

static void mobilenetv5_300m(struct vision *c)
{
	uint64_t in = 64;
	matrix(c, 3 * 64 * 3 * 3); /* conv_stem, biased */
	vector(c, 64);
	norm(c, 64, false);
	for (size_t i = 0; i < sizeof(mnv5_300m) / sizeof(mnv5_300m[0]); i++) {
		const struct mnv5 *b = &mnv5_300m[i];
		for (unsigned n = 0; n < b->repeat; n++) {
			uint64_t mid = sat_mul(in, b->e);
			switch (b->kind) {
			case MNV5_ER:
				matrix(c, MUL4(in, mid, b->k, b->k)); /* conv_exp */
				norm(c, mid, false);
				matrix(c, sat_mul(mid, b->c)); /* conv_pwl */
				norm(c, b->c, false);
				break;
			case MNV5_UIR:
				mnv5_uir(c, in, b->c, b->start, b->k, b->e, true);
				break;
			case MNV5_MQA:
				norm(c, in, false);
				matrix(c, MUL3(in, b->heads, b->d)); /* query.proj */
				for (int kv = 0; kv < 2; kv++) {
					if (b->kv_stride > 1) {
						matrix(c, MUL3(in, b->k, b->k)); /* down_conv */
						norm(c, in, false);
					}
					matrix(c, sat_mul(in, b->d)); /* key.proj, value.proj */
				}
				matrix(c, MUL3(b->heads, b->d, b->c)); /* output.proj */
				vector(c, b->c);                     /* layer_scale */
				mnv5_uir(c, b->c, b->c, 0, 0, 2, true);
				break;
			}
			in = b->c;
		}
	}
	mnv5_uir(c, 640 + 1280, 2048, 0, 0, 2, false); /* msfa.ffn */
	norm(c, 2048, false);                          /* msfa.norm */
}

/*
 * Gemma3nMultimodalEmbedder (embed_vision, embed_audio): an embedding of
 * the part's vocab_size tokens of its width, the hard and soft embeddings'
 * norms, a Linear (no bias) into the text model's width, and a norm after
 * it without a scale (no parameters).
 */
static int gemma3n_embedder(struct vision *c, const cJSON *obj, const char *where, uint64_t width,
			    uint64_t text_width)
{
	uint64_t vocab;
	int r;
	if ((r = number(c, obj, where, "vocab_size", 1, MODEL_MAX_WIDTH, 128, &vocab)) < 0)
		return r;
	matrix(c, sat_mul(vocab, width));
	norm(c, width, false);
	norm(c, width, false);
	linear(c, width, text_width, false);
	return 0;
}

/* audio_config's key, a list of n entries; NULL where absent or null (the class's default). */
static int audio_list(const struct vision *c, const cJSON *a, const char *key, int n, const cJSON **ret)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(a, key);
	*ret = NULL;
	if (!l || cJSON_IsNull(l))
		return 0;
	if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) != n)
		return model_fail(c->e, -EINVAL, "%s: audio_config.%s is not a list of %d", c->file, key, n);
	*ret = l;
	return 0;
}

/* Entry i (and j, where it is a list of pairs: j >= 0) of such a list, a whole number in [1, max]. */
static int audio_entry(const struct vision *c, const cJSON *l, const char *key, int i, int j, uint64_t max,
		       uint64_t fallback, uint64_t *ret)
{
	if (!l) {
		*ret = fallback;
		return 0;
	}
	const cJSON *v = cJSON_GetArrayItem(l, i);
	char name[80];
	if (j >= 0) {
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
			return model_fail(c->e, -EINVAL, "%s: audio_config.%s[%d] is not a pair", c->file, key, i);
		v = cJSON_GetArrayItem(v, j);
		snprintf(name, sizeof(name), "%s[%d][%d]", key, i, j);
	} else {
		snprintf(name, sizeof(name), "%s[%d]", key, i);
	}
	if (cJSON_IsNull(v))
		return model_fail(c->e, -EINVAL, "%s: audio_config.%s is not a number", c->file, name);
	return whole(c, v, "audio_config.", name, 1, max, fallback, ret);
}

/*
 * Gemma 3n's audio tower (Gemma3nAudioEncoder, modeling_gemma3n.py; keys
 * absent take Gemma3nAudioConfig's defaults): the subsample convolution
 * projection, two convolutions without bias (1 channel into
 * sscp_conv_channel_size[0], that into [1], of sscp_conv_kernel_size),
 * each with a cumulative group norm's weight of its channels, the
 * frequencies each leaves ((f + 2 - kernel width) / stride + 1, from
 * input_feat_size), and a Linear (no bias) of the last channels x
 * frequencies into hidden_size; then conf_num_hidden_layers conformer
 * blocks of width h: two half-step feed-forwards (two norms, h into 4h and
 * back), attention (a norm, Q, K, V, the relative positions' pos_proj and
 * post, each h², per_dim_scale of h / conf_num_attention_heads, post_norm),
 * the light convolution (a norm, linear_start h into 2h, a depthwise
 * convolution of conf_conv_kernel_size, conv_norm, linear_end h²) and a
 * norm. 681,348,640 parameters in E2B's and E4B's.
 */
static int gemma3n_audio(struct vision *c, const cJSON *a, uint64_t text_width)
{
	static const char w[] = "audio_config.";
	uint64_t h, n, heads, kernel, feat, ch[2], kh[2], kw[2], sw[2], f;
	const cJSON *channels, *kernels, *strides;
	int r;
	if ((r = number(c, a, w, "hidden_size", 1, MODEL_MAX_WIDTH, 1536, &h)) < 0 ||
	    (r = number(c, a, w, "conf_num_hidden_layers", 1, MODEL_MAX_LAYERS, 12, &n)) < 0 ||
	    (r = number(c, a, w, "conf_num_attention_heads", 1, MODEL_MAX_WIDTH, 8, &heads)) < 0 ||
	    (r = number(c, a, w, "conf_conv_kernel_size", 1, 65536, 5, &kernel)) < 0 ||
	    (r = number(c, a, w, "input_feat_size", 1, MODEL_MAX_WIDTH, 128, &feat)) < 0 ||
	    (r = audio_list(c, a, "sscp_conv_channel_size", 2, &channels)) < 0 ||
	    (r = audio_list(c, a, "sscp_conv_kernel_size", 2, &kernels)) < 0 ||
	    (r = audio_list(c, a, "sscp_conv_stride_size", 2, &strides)) < 0)
		return r;
	if (h % heads)
		return model_fail(c->e, -EINVAL, "%s: audio_config.conf_num_attention_heads: %" PRIu64 " does not"
				  " divide its hidden_size, %" PRIu64, c->file, heads, h);
	static const uint64_t ch_default[2] = { 128, 32 };
	f = feat;
	for (int i = 0; i < 2; i++) {
		uint64_t unused;
		if ((r = audio_entry(c, channels, "sscp_conv_channel_size", i, -1, MODEL_MAX_WIDTH, ch_default[i],
				     &ch[i])) < 0 ||
		    (r = audio_entry(c, kernels, "sscp_conv_kernel_size", i, 0, 65536, 3, &kh[i])) < 0 ||
		    (r = audio_entry(c, kernels, "sscp_conv_kernel_size", i, 1, 65536, 3, &kw[i])) < 0 ||
		    (r = audio_entry(c, strides, "sscp_conv_stride_size", i, 0, 65536, 2, &unused)) < 0 ||
		    (r = audio_entry(c, strides, "sscp_conv_stride_size", i, 1, 65536, 2, &sw[i])) < 0)
			return r;
		/* Padded by one frequency each side: a kernel wider than that leaves none. */
		if (kw[i] > f + 2)
			return model_fail(c->e, -EINVAL, "%s: audio_config.sscp_conv_kernel_size[%d][1]: %" PRIu64
					  " is wider than the %" PRIu64 " frequencies it convolves", c->file, i,
					  kw[i], f + 2);
		f = (f + 2 - kw[i]) / sw[i] + 1;
		matrix(c, MUL4(i ? ch[0] : 1, ch[i], kh[i], kw[i])); /* conv_i.conv */
		vector(c, ch[i]);                                    /* conv_i.norm */
	}
	linear(c, sat_mul(ch[1], f), h, false); /* input_proj_linear */
	struct vision one = { .e = c->e, .q = c->q, .dtype = c->dtype };
	for (int i = 0; i < 2; i++) { /* ffw_layer_start, ffw_layer_end */
		norm(&one, h, false);
		linear(&one, h, sat_mul(4, h), false);
		linear(&one, sat_mul(4, h), h, false);
		norm(&one, h, false);
	}
	norm(&one, h, false); /* attention.pre_attn_norm */
	for (int i = 0; i < 5; i++) /* q_proj, k_proj, v_proj, relative_position_embedding.pos_proj, post */
		linear(&one, h, h, false);
	vector(&one, h / heads); /* per_dim_scale */
	norm(&one, h, false);    /* post_norm */
	norm(&one, h, false);    /* lconv1d.pre_layer_norm */
	linear(&one, h, sat_mul(2, h), false);
	matrix(&one, sat_mul(h, kernel)); /* depthwise_conv1d */
	norm(&one, h, false);             /* conv_norm */
	linear(&one, h, h, false);        /* linear_end */
	norm(&one, h, false);             /* the block's norm */
	c->matrix = sat_add(c->matrix, sat_mul(one.matrix, n));
	c->bytes = sat_add(c->bytes, sat_mul(one.bytes, n));
	c->quantized |= one.quantized;
	vector(c, sat_mul(one.vector, n));
	return gemma3n_embedder(c, a, w, h, text_width);
}

/*
 * Gemma 3n (Gemma3nModel): the image tower and embed_vision, the audio
 * tower and embed_audio, each part's keys the config class's defaults
 * where its config is absent, as Gemma3nConfig builds them. A
 * vision_config of another timm architecture, or with model_args
 * reshaping it, is a network hmn does not know: its image tower and
 * embedder left out, said.
 */
static int gemma3n(struct vision *c, uint64_t text_width)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->root, "audio_config");
	const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c->v, "architecture");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(c->v, "model_args");
	uint64_t width;
	int r;
	if (a && !cJSON_IsNull(a) && !cJSON_IsObject(a))
		return model_fail(c->e, -EINVAL, "%s: audio_config is not an object", c->file);
	if (arch && !cJSON_IsNull(arch) && !cJSON_IsString(arch))
		return model_fail(c->e, -EINVAL, "%s: vision_config.architecture is not a name", c->file);
	if ((r = V("hidden_size", 1, MODEL_MAX_WIDTH, 2048, &width)) < 0)
		return r;
	if ((arch && cJSON_IsString(arch) && strcmp(arch->valuestring, "mobilenetv5_300m_enc")) ||
	    (args && !cJSON_IsNull(args))) {
		char w[200];
		snprintf(w, sizeof(w), "its vision_config (%s) is not one hmn prices: the image tower is left out",
			 args && !cJSON_IsNull(args) ? "with model_args" : SHOWN(arch->valuestring));
		model_add_warning(c->m, w);
	} else {
		mobilenetv5_300m(c);
		if ((r = gemma3n_embedder(c, c->v, c->where, width, text_width)) < 0)
			return r;
	}
	return gemma3n_audio(c, cJSON_IsObject(a) ? a : NULL, text_width);
}

/* The tower and projector a model_type (and its vision_config's) names; -ENOENT: none hmn knows. */
static int family(const char *type, const char *vision_type, enum tower *ret_tower, enum projector *ret_projector,
		  bool *ret_newline)
{
	static const struct {
		const char *type;
		enum tower tower;
		enum projector projector;
		bool newline; /* LLaVA-NeXT's image_newline: one text-width vector between rows of tiles */
	} families[] = {
		{ "gemma3", TOWER_SIGLIP, PROJECTOR_GEMMA3, false },
		{ "llava", TOWER_CLIP, PROJECTOR_LLAVA, false },
		{ "llava_next", TOWER_CLIP, PROJECTOR_LLAVA, true },
		{ "qwen2_vl", TOWER_QWEN2, PROJECTOR_MERGER, false },
		{ "qwen2_5_vl", TOWER_QWEN2_5, PROJECTOR_MERGER, false },
		{ "qwen3_vl", TOWER_QWEN3, PROJECTOR_MERGER, false },
		{ "qwen3_vl_moe", TOWER_QWEN3, PROJECTOR_MERGER, false },
		{ "mistral3", TOWER_PIXTRAL, PROJECTOR_MISTRAL3, false },
		{ "mllama", TOWER_MLLAMA, PROJECTOR_MLLAMA, false },
		{ "qwen", TOWER_QWEN_VL, PROJECTOR_RESAMPLER, false },
		{ "idefics3", TOWER_IDEFICS3, PROJECTOR_IDEFICS3, false },
		{ "smolvlm", TOWER_IDEFICS3, PROJECTOR_IDEFICS3, false }, /* SmolVLM2: Idefics3's classes renamed */
		{ "llama4", TOWER_LLAMA4, PROJECTOR_LLAMA4, false },
		{ "fuyu", TOWER_FUYU, PROJECTOR_LLAMA4, false },
		{ "minicpmv", TOWER_MINICPMV, PROJECTOR_MINICPMV, false },
		{ "molmo", TOWER_MOLMO, PROJECTOR_LLAMA4, false },
		{ "gemma3n", TOWER_GEMMA3N, PROJECTOR_GEMMA3N, false },
	};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (strcmp(type, families[i].type))
			continue;
		*ret_tower = families[i].tower;
		*ret_projector = families[i].projector;
		*ret_newline = families[i].newline;
		/* LLaVA takes its tower from vision_config's model_type: CLIP (the default), SigLIP, Pixtral. */
		if (families[i].tower == TOWER_CLIP && vision_type) {
			if (!strcmp(vision_type, "siglip_vision_model"))
				*ret_tower = TOWER_SIGLIP;
			else if (!strcmp(vision_type, "pixtral"))
				*ret_tower = TOWER_PIXTRAL;
			else if (strcmp(vision_type, "clip_vision_model"))
				return -ENOENT;
		}
		return 0;
	}
	return -ENOENT;
}

int vision_read(const cJSON *root, const char *file, uint64_t text_width, enum hmn_dtype dtype,
		const struct quant *q, struct model_build *b, struct model_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
	/*
	 * Qwen-VL (model_type "qwen", QWenConfig) says its tower as "visual":
	 * priced as text alone it was 3.87 GB under Qwen-VL-Chat-Int4's 9.73 GB.
	 */
	const char *where = "vision_config.";
	if ((!v || cJSON_IsNull(v)) && cJSON_IsString(type) && !strcmp(type->valuestring, "qwen") &&
	    (v = cJSON_GetObjectItemCaseSensitive(root, "visual")) != NULL && !cJSON_IsNull(v))
		where = "visual.";
	/*
	 * Fuyu's and Molmo's image parts have no vision_config: their keys are
	 * the top level's, or none; Gemma 3n's absent is Gemma3nVisionConfig's
	 * defaults, and its audio tower is beside it.
	 */
	bool molmo_type = cJSON_IsString(type) && !strcmp(type->valuestring, "molmo");
	bool top_level = molmo_type || (cJSON_IsString(type) && (!strcmp(type->valuestring, "fuyu") ||
								 !strcmp(type->valuestring, "gemma3n")));
	/*
	 * A MiniCPM-V of another version than 2.6 is another model under its
	 * model_type: refused from config.json alone, its tower the weights'
	 * beside an index (its text model then read as 2.6's Qwen2: the KV
	 * cache's shape; the weights are the index's).
	 */
	if (cJSON_IsString(type) && !strcmp(type->valuestring, "minicpmv") && !minicpmv_26(root)) {
		if (!b->priced_by_index)
			return model_fail(e, -EINVAL, "%s: model_type 'minicpmv' of a version other than 2.6 is not"
					  " one hmn knows: its size cannot be read from config.json alone (give hmn the"
					  " model's folder: its weights' safetensors headers, or its"
					  " model.safetensors.index.json)", file);
		model_add_warning(b->m, "its version of MiniCPM-V is not 2.6, the one hmn reads: its text model read as"
				  " 2.6's (Qwen2), its image tower in weights (the index's total_size)");
		return 0;
	}
	/*
	 * The one text model and tower each of these is built of: FuyuConfig's
	 * text_config is Persimmon's, MiniCPM-V 2.6's tower SigLIP's. Another
	 * model_type there is a model hmn would price as neither (a Fuyu-shaped
	 * Llama): refused naming it.
	 */
	static const struct { const char *family, *part, *kind, *also; } built_of[] = {
		{ "fuyu", "text_config", "persimmon", NULL },
		{ "minicpmv", "vision_config", "siglip", "siglip_vision_model" },
	};
	for (size_t i = 0; cJSON_IsString(type) && i < sizeof(built_of) / sizeof(built_of[0]); i++) {
		const cJSON *part = cJSON_GetObjectItemCaseSensitive(root, built_of[i].part);
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(part, "model_type");
		if (strcmp(type->valuestring, built_of[i].family) || !cJSON_IsObject(part) || !kind ||
		    (cJSON_IsString(kind) && (!strcmp(kind->valuestring, built_of[i].kind) ||
					      (built_of[i].also && !strcmp(kind->valuestring, built_of[i].also)))))
			continue;
		return model_fail(e, -EINVAL, "%s: %s.model_type: model_type %s is built of %s's, not %s", file,
				  built_of[i].part, built_of[i].family, built_of[i].kind,
				  cJSON_IsString(kind) ? SHOWN(kind->valuestring) : "a value that is not a name");
	}
	/* MiniCPMVConfig's tower without a vision_config is its own dict of defaults, not SigLIP's: not guessed. */
	if ((!v || cJSON_IsNull(v)) && cJSON_IsString(type) && !strcmp(type->valuestring, "minicpmv") &&
	    !b->priced_by_index)
		return model_fail(e, -EINVAL, "%s: key vision_config is missing for model_type minicpmv", file);
	if ((!v || cJSON_IsNull(v)) && !top_level)
		return 0;
	if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
		return model_fail(e, -EINVAL, "%s: %.*s is not an object", file, (int)strlen(where) - 1, where);
	struct vision c = { .v = v, .root = root, .file = file, .where = where, .e = e, .m = b->m,
			    .q = q && q->name[0] ? q : NULL,
			    .dtype = dtype };
	const cJSON *vision_type = cJSON_GetObjectItemCaseSensitive(v, "model_type");
	enum tower tower;
	enum projector projector;
	bool newline = false;
	char w[240], shown[64];
	if (!cJSON_IsString(type) ||
	    family(type->valuestring, cJSON_IsString(vision_type) ? vision_type->valuestring : NULL, &tower,
		   &projector, &newline) < 0) {
		/* Left out said, not silently: the total would be the text model's alone. */
		printable_name(cJSON_IsString(type) ? type->valuestring : "?", shown, sizeof(shown));
		/*
		 * A model_type hmn knows neither as a model nor as a vision one
		 * (frob_llava around a llama text_config), from config.json alone:
		 * its tower is a guess, as any unknown model's size (issue 27 item 1).
		 */
		if (!b->priced_by_index && cJSON_IsString(type) && !arch_find_model_type(type->valuestring) &&
		    family(type->valuestring, NULL, &tower, &projector, &newline) < 0)
			return model_fail(e, -EINVAL, "%s: model_type '%s' is not one hmn knows: its image tower's size"
					  " cannot be read from config.json alone (give hmn the model's folder: its"
					  " weights' safetensors headers, or its model.safetensors.index.json)",
					  file, shown);
		if (b->vision_in_weights)
			snprintf(w, sizeof(w), "its vision_config (of %s) is not one hmn prices: the image tower is in"
				 " weights (the index's total_size), not in parameters, and --text-only cannot leave it"
				 " out", shown);
		else
			snprintf(w, sizeof(w), "its vision_config (of %s) is not one hmn prices: the image tower is"
				 " left out", shown);
		model_add_warning(b->m, w);
		return 0;
	}
	uint64_t width = 0, features, merge;
	int r = 0;
	/*
	 * A Molmo of another text model (MolmoE, Molmo-7B-O) beside an index:
	 * its weights are the index's, its tower with them; said, not refused.
	 */
	if (molmo_type && b->priced_by_index && molmo_refused(&c) < 0) {
		snprintf(w, sizeof(w), "a Molmo hmn does not read (%s): its weights the index's, its KV cache read as"
			 " Molmo-7B-D's", e->buf);
		model_add_warning(b->m, w);
		return 0;
	}
	switch (tower) {
	case TOWER_SIGLIP: case TOWER_CLIP: case TOWER_IDEFICS3: case TOWER_MINICPMV:
		r = siglip_or_clip(&c, tower, &width);
		break;
	case TOWER_LLAMA4: r = llama4(&c, text_width); break;
	case TOWER_FUYU: r = fuyu(&c, text_width); break;
	case TOWER_MOLMO: r = molmo(&c, text_width); break;
	case TOWER_GEMMA3N: r = gemma3n(&c, text_width); break;
	case TOWER_PIXTRAL: r = pixtral(&c, &width); break;
	case TOWER_QWEN2: case TOWER_QWEN2_5: case TOWER_QWEN3: r = qwen(&c, tower); break;
	case TOWER_MLLAMA: r = mllama(&c, text_width); break;
	case TOWER_QWEN_VL: r = qwen_vl(&c); break;
	}
	if (r < 0)
		return r;
	bool bias;
	switch (projector) {
	case PROJECTOR_LLAVA:
		if ((r = feature_layers(&c, &features)) < 0 ||
		    (r = flag(&c, "multimodal_projector_bias", true, &bias)) < 0)
			return r;
		linear(&c, sat_mul(width, features), text_width, bias);
		linear(&c, text_width, text_width, bias);
		if (newline)
			vector(&c, text_width);
		break;
	case PROJECTOR_GEMMA3:
		matrix(&c, sat_mul(width, text_width)); /* mm_input_projection_weight */
		norm(&c, width, false);                  /* mm_soft_emb_norm */
		break;
	case PROJECTOR_MISTRAL3:
		if ((r = feature_layers(&c, &features)) < 0 ||
		    (r = number(&c, root, "", "spatial_merge_size", 1, 64, 2, &merge)) < 0 ||
		    (r = flag(&c, "multimodal_projector_bias", false, &bias)) < 0)
			return r;
		norm(&c, width, false);
		linear(&c, MUL3(width, merge, merge), width, false); /* patch_merger.merging_layer */
		linear(&c, sat_mul(width, features), text_width, bias);
		linear(&c, text_width, text_width, bias);
		break;
	case PROJECTOR_IDEFICS3:
		/* Idefics3Connector: scale_factor² patches side by side, one Linear into the text model's width. */
		if ((r = number(&c, root, "", "scale_factor", 1, 64, 2, &merge)) < 0)
			return r;
		linear(&c, MUL3(width, merge, merge), text_width, false);
		break;
	case PROJECTOR_MINICPMV:
		if ((r = minicpmv_resampler(&c, width, text_width)) < 0)
			return r;
		break;
	case PROJECTOR_MERGER: case PROJECTOR_MLLAMA: case PROJECTOR_RESAMPLER: case PROJECTOR_LLAMA4:
	case PROJECTOR_GEMMA3N:
		break; /* the tower's own */
	}
	uint64_t parameters = sat_add(c.matrix, c.vector);
	if (parameters > VISION_MAX_PARAMETERS)
		return model_fail(e, -EINVAL, "%s: the vision_config's shape is too large (more than %" PRIu64
				  " parameters)", file, (uint64_t)VISION_MAX_PARAMETERS);
	/* The linear layers in the checkpoint's format where it quantizes the tower (linear()); the rest in the float type. */
	static const char matrices[] = "vision_tower.implied.weight", vectors[] = "vision_tower.implied.norm";
	uint64_t dims[2] = { c.matrix, 1 };
	uint64_t bytes = c.bytes;
	enum hmn_dtype mtype = c.quantized ? q->dtype : dtype;
	if (bytes == HMN_UNKNOWN || (r = model_build_tensor(b, matrices, strlen(matrices), mtype, dims, 2, bytes)) < 0)
		return model_fail(e, bytes == HMN_UNKNOWN ? -EOVERFLOW : r,
				  "%s: the vision_config's shape is too large", file);
	dims[0] = c.vector;
	bytes = dtype_price(dtype, c.vector);
	if (c.vector && (bytes == HMN_UNKNOWN ||
			 (r = model_build_tensor(b, vectors, strlen(vectors), dtype, dims, 1, bytes)) < 0))
		return model_fail(e, bytes == HMN_UNKNOWN ? -EOVERFLOW : r,
				  "%s: the vision_config's shape is too large", file);
	return 0;
}
