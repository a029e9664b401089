/*
 * lib/model/config-gemma3n.h: Gemma 3n's text model (config-gemma3n.c), its
 * layers read as a hybrid's attention and MLP beside AltUp, LAuReL and the
 * per-layer inputs, which config.c prices. Private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_GEMMA3N_H
#define HMN_MODEL_CONFIG_GEMMA3N_H

#include "model/config-layers.h"

/* Gemma3nTextConfig's keys: the heads, each layer's MLP width, AltUp, LAuReL, the per-layer inputs, shared KV. */
int config_read_gemma3n(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);

#endif
