/*
 * lib/model/config-encoder-decoder.h: the encoder-decoders' config.json
 * (config-encoder-decoder.c): T5, mT5, UMT5, BART, mBART and Whisper, their
 * encoder's and decoder's layers, the cache of the decoder's tokens and of
 * the encoder's output. Beside config-hybrid.c, on config-layers.c; only
 * config.c above calls it. Private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_ENCODER_DECODER_H
#define HMN_MODEL_CONFIG_ENCODER_DECODER_H

#include "model/config-layers.h"

/*
 * The shape (arch_info.encdec), each from its own config class's keys:
 * the encoder's layers then the decoder's, n_layer both. 0, or -EINVAL
 * said naming the file and the key.
 */
int config_read_encoder_decoder(const struct config *c, const struct arch_info *f, struct hmn_model *m,
				struct shape *s);
/* The tensors that shape implies, for a config.json without weights: 0, -EOVERFLOW, or model_build_tensor()'s. */
int config_implied_encoder_decoder(struct model_build *b, const struct hmn_model *m, const struct shape *s);
/* Each layer's cache: the encoder's none, the decoder's its tokens' and the encoder output's (cross). */
void config_encoder_decoder_layers(struct hmn_model *m, const struct shape *s);

#endif
